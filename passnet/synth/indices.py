"""Integer index values inside a group: what an embedding lookup reads its rows by.

Embedding lookups start many transformer subgraphs (word, position and token-type embeddings
summed and normalised). Their indices are integer tensors, usually an input or a view of one
(``position_ids[:, :seq]``, ``token_type_ids.expand(...)``), sometimes with an integer offset
(OPT's learned positions, ``positions + 2``). Such nodes are *index nodes*: computed in
integers (``passnet.synth.lower.Builder.indices``), never rounded or read as floats, and read
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

from passnet.synth.op_model import INFIX, VIEWS, Op, scalar

# integer dtypes whose arithmetic Triton does as eager does (wrapping, truncating casts)
INT_RESULTS = (torch.int64, torch.int32)


def _index_capable(op: Op) -> bool:
    """Ops that give exact integer results on integer operands: views and copies, and
    add/sub/mul with integer literals or other index values."""
    if op.kind in VIEWS or (op.kind == "id" and op.name == "copy"):
        return True
    return (
        op.kind == "pw"
        and op.name in INFIX  # exact on integers, as lower.Builder.indices writes them
        and all(isinstance(a, Node) or (scalar(a) and float(a).is_integer()) for a in op.args)
    )


def reads_as_index(user: Node, value: Node, ops: dict[Node, Op | str]) -> bool:
    """Whether ``user`` reads ``value`` as an embedding's indices."""
    op = ops.get(user)
    return isinstance(op, Op) and op.kind == "gather" and op.args[1] is value and (
        op.args[0] is not value
    )


def _int_cast(op: Op) -> bool:
    return op.kind == "cast" and op.attrs.get("dtype") in INT_RESULTS


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
        if not isinstance(op, Op) or not (_index_capable(op) or (result and _int_cast(op))):
            continue
        if node in outputs and not result:
            continue
        users = [u for u in node.users if u in inside]
        if (users or node in outputs) and all(
            u in found or reads_as_index(u, node, ops) for u in users
        ):
            found.add(node)
    return found
