"""What the synthesizer understands: an FX node classified by its registration, or a reason.

Each supported node becomes an :class:`~passnet.synth.op_model.Op` with its tensor operands
in a fixed order and its literals bound by name (positional and keyword spellings of one call
look the same). The registrations are in :mod:`passnet.synth.opdefs`, the registry in
:mod:`passnet.synth.registry`: classification is a lookup of the node's canonical target (the
matcher's own naming, ``passnet.passes.calls``) and a call of that op's binder.
"""

from __future__ import annotations

import operator
from typing import Any

from torch.fx import Node

import passnet.synth.opdefs  # noqa: F401 - registers every supported op
from passnet.passes.calls import call_name as canonical_name  # the matcher's own op naming
from passnet.synth.op_model import FLOATS, INTEGERS, Op
from passnet.synth.registry import lookup

__all__ = ["FLOATS", "INTEGERS", "Op", "canonical_name", "classify"]

_IN_PLACE = (operator.iadd, operator.imul, operator.isub, operator.itruediv)


def classify(node: Node, rank_of: Any) -> Op | str:
    """The node as an :class:`Op`, or why the synthesizer cannot handle it ("unsupported op
    X" or a narrower reason). ``rank_of(node)`` gives a tensor node's rank (-1: not a tensor)."""
    key = canonical_name(node)
    short = key.rsplit(".", 1)[-1]
    if node.op not in ("call_function", "call_method"):
        return f"unsupported op {short}"
    first = node.args[0] if node.args else None
    if isinstance(first, (tuple, list)) and first:  # torch.cat's sequence: the rank of its items
        first = first[0]
    rank = rank_of(first) if isinstance(first, Node) else -1
    if node.target in _IN_PLACE:
        return f"in-place {short}"
    defn = lookup(key)
    try:
        op = defn.bind(key, node, rank) if defn is not None else None
    except (TypeError, ValueError, ZeroDivisionError, IndexError):
        op = f"{short} with unexpected arguments"
    if op is None:
        return f"unsupported op {short}"
    if isinstance(op, str):
        return op
    tensors = [a for a in op.args if isinstance(a, Node)] + (
        [op.attrs["like"]] if "like" in op.attrs else []
    )
    if (rank_of(node) < 0 and not op.defn.parts) or any(rank_of(a) < 0 for a in tensors):
        return f"{short} on a non-tensor value"
    if op.args and not isinstance(op.args[0], Node) and not op.defn.constant_operands:
        return f"{short} of a constant"
    return op
