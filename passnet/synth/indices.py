"""Integer index values inside a group: what an embedding lookup reads its rows by.

Embedding lookups start many transformer subgraphs (word, position and token-type embeddings
summed and normalised). Their indices are integer tensors, usually an input or a view of one
(``position_ids[:, :seq]``, ``token_type_ids.expand(...)``), sometimes with an integer offset
(OPT's learned positions, ``positions + 2``). Such nodes are *index nodes*: computed in
integers (``passnet.synth.lower.Builder.indices``; an op's registration says whether it is exact
on integers: views, copies, add/sub/mul with integer literals), never rounded or read as floats, and read
only by other index nodes or as an embedding's indices.

The same integer arithmetic computes *integer results*: a float value cast to int64 or int32
(truncated toward zero, as eager's conversion) and add/sub/mul of such values and integer
literals, up to a group output (T5's relative-position buckets: ``8 + (x * 8).to(int64)``),
so that they stay exact where float32 would round beyond 2**24. Every other integer value
keeps the group out of the synthesizer's reach (it works in float32).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.fx import Node

from passnet.synth.op_model import Op

# integer dtypes whose arithmetic Triton does as eager does (wrapping, truncating casts)
INT_RESULTS = (torch.int64, torch.int32)


def reads_as_index(user: Node, value: Node, ops: dict[Node, Op | str]) -> bool:
    """Whether ``user`` reads ``value`` as an embedding's (or index_select's) indices."""
    op = ops.get(user)
    return isinstance(op, Op) and op.defn.reads_as_integers(op, value)


def index_nodes(
    nodes: list[Node],
    ops: dict[Node, Op | str],
    outputs: list[Node],
    integer: Callable[[Node], bool] | None = None,
) -> set[Node]:
    """The group's nodes computed in integers (module docstring): index-capable, read inside
    the group only as indices or by other such nodes, and not an output; with ``integer``
    (which nodes hold an int64/int32 value), only such nodes, and also integer results: casts
    to those dtypes and the arithmetic over them, outputs included."""
    inside = set(nodes)
    found: set[Node] = set()
    for node in reversed(nodes):  # users come after their operands: one backward sweep
        op = ops[node]
        if integer is not None and not integer(node):  # a float read by a cast, say
            continue
        result = integer is not None  # an int64/int32 value: a cast and an output may be one
        if not isinstance(op, Op) or not (
            op.defn.exact_on_integers(op) or (result and op.defn.int_result(op))
        ):
            continue
        if node in outputs and not result:
            continue
        users = [u for u in node.users if u in inside]
        if (users or node in outputs) and all(
            u in found or reads_as_index(u, node, ops) for u in users
        ):
            found.add(node)
    return found
