"""The record every op registration fills, and the argument binding the binders share.

:class:`Op` is one supported FX node: the registration that classified it (its
:class:`~passnet.synth.registry.OpDef`), tensor operands in a fixed order and literals bound
by name (:func:`bind`: positional and keyword spellings of one call look the same). What an
op does everywhere (its shape, dtype, lowering, how eager runs it) is a lookup on ``defn``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch
from torch.fx import Node

if TYPE_CHECKING:
    from passnet.synth.registry import OpDef

FLOATS = (torch.float32, torch.float16, torch.bfloat16)  # the dtypes a kernel computes in
INTEGERS = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
F = "torch.nn.functional."


@dataclass(frozen=True)
class Reduction:
    """What a reduction reduces, for the phase schedule (``kernel.py``): ``collapses`` (a mean
    or sum: the reduced dims leave the result, or stay as 1 with ``keepdim``) or not (a norm,
    softmax: one result per element of the row); over the last ``dims`` dims (merged into one
    row), or over the one other dim ``axis`` (the phase walks it as its row); ``groups``: a
    group norm's."""

    collapses: bool
    dims: int = 1
    axis: int | None = None
    keepdim: bool = False
    groups: int | None = None


@dataclass
class Op:
    """One supported node: its registration, operands (Node, number or None), bound literals,
    and the name reports and docstrings show (the registration's unless the binder says)."""

    defn: OpDef
    args: list[Any]
    attrs: dict[str, Any] = field(default_factory=dict)
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or self.defn.name

    @property
    def view(self) -> bool:
        """Whether eager returns a view: a view op (unless the recorded layout makes a reshape
        copy, ``attrs["copy"]``), eval dropout, and a ``contiguous`` of a tensor that is
        contiguous already (``attrs["noop"]``: eager returns its input)."""
        return self.defn.view(self) or bool(self.attrs.get("noop"))

    @property
    def work(self) -> int:
        """How many kernels eager launches for it: none for a view, else the registration's
        count (none for a ``torch.tensor`` scalar, three for ``normalize``)."""
        return 0 if self.view else self.defn.eager_kernels

    @property
    def reduction(self) -> Reduction | None:
        return self.defn.reduction(self)


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


def scalar_input(v: Any) -> bool:
    """Whether ``v`` is a node whose recorded value is a Python number, no tensor: a scalar
    the graph takes as an input (an eps or a clamp bound Dynamo read with ``.item()``), which
    an op may take where it takes a literal (``Builder.constant``)."""
    return (isinstance(v, Node) and v.meta.get("tensor_meta") is None
            and v.meta.get("type") in (float, int))  # fmt: skip


def literal_or_input(v: Any) -> Any:
    """A float argument as the op keeps it: a literal as a float, a scalar input as its node."""
    return v if scalar_input(v) else float(v)


def number(v: Any) -> bool:
    """A finite Python number (a pointwise operand, an exponent, a slope)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
