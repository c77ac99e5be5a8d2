"""Bool tensors in a group: kept as flags (1.0 / 0.0) inside the kernel.

A bool value is made by a comparison, boolean logic or a cast to bool (``opdefs/logic.py``:
the op's ``flag``), loaded from a bool input (Triton passes a torch.bool tensor as an ``*i1``
pointer, loads its bytes and tests them ``!= 0``; the kernel reads that as 1.0 / 0.0), or
moved by an index map (views, repeats, copies, cat: ``OpDef.moves_values``) from such values.
A bool output is stored through its ``*i1`` pointer: the flag converted to ``int1`` (``!=
0``) and written as a byte, so it equals eager's result exactly.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.fx import Node

from passnet.synth.op_model import Op
from passnet.synth.shapes import Shapes


def carries_bool(op: Op, shapes: Shapes) -> bool:
    """Whether the kernel computes ``op``'s bool result as a flag: a flag op, or an index map
    of bool operands only (their flags moved as they are)."""
    if op.defn.flag(op):
        return True
    tensors = [a for a in op.args if isinstance(a, Node)]
    return bool(tensors) and op.defn.moves_values(op) and all(
        set(shapes.dtypes[a].vals) == {torch.bool} for a in tensors)  # fmt: skip


def bool_reads(
    ops: dict[Node, Op | str],
    value: Node,
    inside: set[Node],
    reads: Callable[[Node, Node], bool],
) -> bool:
    """Whether the group (``inside``) reads the bool ``value`` only where ``reads(user,
    value)`` allows (an exact read: a cast, a mask, a comparison, logic), directly or through
    index maps of it (views, repeats, copies), which carry the same flags."""
    for u in value.users:
        if u not in inside or reads(u, value):
            continue
        op = ops.get(u)
        moved = isinstance(op, Op) and op.defn.moves_values(op) and all(
            a is value or not isinstance(a, Node) for a in op.args)  # fmt: skip
        if not moved or not bool_reads(ops, u, inside, reads):
            return False
    return True
