"""Integer index values inside a group: what an embedding lookup reads its rows by.

Embedding lookups start many transformer subgraphs (word, position and token-type embeddings
summed and normalised). Their indices are integer tensors, usually an input or a view of one
(``position_ids[:, :seq]``, ``token_type_ids.expand(...)``), sometimes with an integer offset
(OPT's learned positions, ``positions + 2``). Such nodes are *index nodes*: computed in
integers (``passnet.synth.lower.Builder.indices``), never rounded or read as floats, and read
only by other index nodes or as an embedding's indices. Every other integer value keeps the
group out of the synthesizer's reach (it works in float32).
"""

from __future__ import annotations

from torch.fx import Node

from passnet.synth.op_model import INFIX, VIEWS, Op, scalar


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


def index_nodes(nodes: list[Node], ops: dict[Node, Op | str], outputs: list[Node]) -> set[Node]:
    """The group's nodes that compute indices only (module docstring): index-capable, not an
    output, and read inside the group only as indices or by other index nodes."""
    inside = set(nodes)
    found: set[Node] = set()
    for node in reversed(nodes):  # users come after their operands: one backward sweep
        op = ops[node]
        if node in outputs or not isinstance(op, Op) or not _index_capable(op):
            continue
        users = [u for u in node.users if u in inside]
        if users and all(u in found or reads_as_index(u, node, ops) for u in users):
            found.add(node)
    return found
