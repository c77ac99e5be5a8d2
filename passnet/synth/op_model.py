"""The record every classifier of the synthesizer fills, and the argument binding they share.

:class:`Op` is one supported FX node: its kind, tensor operands in a fixed order and literals
bound by name (:func:`bind`: positional and keyword spellings of one call look the same).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.fx import Node

FLOATS = (torch.float32, torch.float16, torch.bfloat16)  # the dtypes a kernel computes in
INTEGERS = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
REDUCTIONS = frozenset({"ln", "gn", "softmax", "normalize", "mean", "sum"})
ROW_OPS = REDUCTIONS | {"linear"}  # ops that need the row mode's [BLOCK_M, BLOCK_N] tiles
VIEWS = frozenset({"reshape", "permute", "unsqueeze", "squeeze", "getitem", "expand"})
INFIX = {"add": "+", "sub": "-", "mul": "*"}  # pointwise ops written as Python operators
_F = "torch.nn.functional."
EAGER_KERNELS = {"normalize": 3}  # ops eager computes in several kernels


@dataclass
class Op:
    """One supported node: ``kind``, operands (Node, number or None) and bound literals."""

    kind: str
    name: str
    args: list[Any]
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def view(self) -> bool:
        """Whether eager returns a view: views, unless the recorded layout makes a reshape
        copy (``attrs["copy"]``, the ``expand, reshape`` of grouped-query attention), eval
        dropout, and a ``contiguous`` of a tensor that is contiguous already (``attrs["noop"]``:
        eager returns its input)."""
        return (
            (self.kind in VIEWS and not self.attrs.get("copy"))
            or (self.kind == "id" and self.name == "dropout")
            or bool(self.attrs.get("noop"))
        )

    @property
    def work(self) -> int:
        """How many kernels eager launches for it: none for a view or a ``torch.tensor``
        scalar, three for ``normalize`` (the norm, its clamp, the division), else one."""
        if self.view or self.name == "const":
            return 0
        return EAGER_KERNELS.get(self.name, 1)


def bind(node: Node, names: list[str], defaults: dict[str, Any]) -> dict[str, Any] | None:
    """Positional and keyword arguments by parameter name; None when they do not fit."""
    if len(node.args) > len(names):
        return None
    out = dict(zip(names, node.args, strict=False))
    for k, v in node.kwargs.items():
        if k not in names or k in out:
            return None
        out[k] = v
    for n in names:
        if n not in out:
            if n not in defaults:
                return None
            out[n] = defaults[n]
    return out


def varargs(node: Node) -> list[Any] | None:
    """``x.view(1, -1)`` and ``x.view((1, -1))`` alike: the shape/dims after self."""
    rest = list(node.args[1:])
    if node.kwargs:
        key = next(iter(node.kwargs))
        if len(node.kwargs) != 1 or rest or key not in ("size", "shape", "dims"):
            return None
        rest = [node.kwargs[key]]
    if len(rest) == 1 and isinstance(rest[0], (tuple, list, torch.Size)):
        rest = list(rest[0])
    return rest if all(isinstance(v, int) and not isinstance(v, bool) for v in rest) else None


def scalar(v: Any) -> bool:
    """A Python number that can be a fill value (infinities too, not NaN)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v)
