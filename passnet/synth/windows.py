"""Ops that read several input positions per output: max pooling and bilinear resizing.

Each output element computes its window's (or its four neighbours') input coordinates from
its own, clamps them into bounds so every load stays in bounds, and asks the builder for the
operand's value at each: the ops before the pool or resize are recomputed per tap rather
than written out and read back, so a ``batch_norm, relu, max_pool2d`` never stores the
full-size activation. Flat kernels only (one output element per lane).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torch.fx import Node

from passnet.synth.ops import Op
from passnet.synth.shapes import Unfusable

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map


WINDOWS = ("maxpool", "interp")


def _single(b: Builder, op: Op) -> None:
    """Refuse a window over a value that is itself a window's: the taps would multiply (a
    resize of a resize computes 16 values per output), so such a chain is split into groups."""
    above = b.ancestors([a for a in op.args if isinstance(a, Node)])
    for n in (n for n in b.nodes if n in above):  # graph order: one reason, every run
        if b.ops[n].kind in WINDOWS:
            raise Unfusable(f"{op.name} of a value {b.ops[n].name} computed in the same kernel")


def max_pool(b: Builder, op: Op, m: Map) -> str:
    """The max of the window at ``m``'s last two coordinates: each tap's input coordinate
    clamped into bounds (every load stays in bounds) and a tap in the padding replaced by
    -inf, as eager pads; NaN wins, as in eager's kernel. Max picks a value: no rounding."""
    if b.mode != "flat":
        raise Unfusable("max_pool2d in a kernel that walks rows")
    _single(b, op)
    x = op.args[0]
    dims = b.shapes.dims[x]
    taps: list[list[tuple[str, str]]] = []
    for i in range(2):
        k, s = op.attrs["kernel"][i], op.attrs["stride"][i]
        p, d = op.attrs["padding"][i], op.attrs["dilation"][i]
        size, c = b.dim(dims[-2 + i]), m[-2 + i]
        base = b.let(f"{c} * {s} - {p}")
        taps.append([])
        for t in range(k):
            at = b.let(f"{base} + {t * d}") if t * d else base
            inside = f"({at} >= 0) & ({at} < {size})"
            taps[i].append((b.let(f"tl.minimum(tl.maximum({at}, 0), {size} - 1)"), inside))
    out = None
    for h, h_in in taps[0]:
        for w, w_in in taps[1]:
            v = b.value(x, (*m[:-2], h, w))
            v = b.let(f"tl.where({h_in} & {w_in}, {v}, float('-inf'))")
            out = v if out is None else b.let(
                f"tl.maximum({out}, {v}, propagate_nan=tl.PropagateNan.ALL)")
    return out  # type: ignore[return-value]


def bilinear(b: Builder, op: Op, m: Map) -> str:
    """Bilinear resizing at ``m`` as eager's upsample_bilinear2d computes it, in float32:
    per axis the source coordinate ``scale * dst`` (align_corners) or ``max(scale * (dst +
    0.5) - 0.5, 0)`` with ``scale`` an IEEE float32 quotient of the sizes, the lower tap
    its truncation, the upper one the next (or itself at the edge), then
    ``l0h * (l0w * a + l1w * b) + l1h * (l0w * c + l1w * d)``, contracted on CUDA as
    nvcc contracts eager's kernel (``_mix``)."""
    if b.mode != "flat":
        raise Unfusable("interpolate in a kernel that walks rows")
    _single(b, op)
    x, corners = op.args[0], op.attrs["align_corners"]
    dims = b.shapes.dims[x]
    axes = []
    for i in range(2):
        size, out, c = b.dim(dims[-2 + i]), op.attrs["size"][i], m[-2 + i]
        f = f"{c}.0" if c.isdigit() else f"{c}.to(tl.float32)"
        if corners:
            scale = (b.let(f"tl.math.div_rn(({size} - 1) * 1.0, {out - 1}.0)")
                     if out > 1 else "0.0")  # fmt: skip
            src = b.let(f"{scale} * {f}")
        else:
            scale = b.let(f"tl.math.div_rn({size} * 1.0, {out}.0)")
            src = b.let(f"tl.maximum(_mix({scale}, {f} + 0.5, -1.0, 0.5, EAGER_CUDA), "
                           "0.0)")  # fmt: skip
        lo = b.let(f"{src}.to(tl.int32)")
        hi = b.let(f"{lo} + tl.where({lo} < {size} - 1, 1, 0)")
        l1 = b.let(f"{src} - {lo}.to(tl.float32)")
        axes.append((lo, hi, b.let(f"1.0 - {l1}"), l1))
    (h0, h1, a0, a1), (w0, w1, b0, b1) = axes
    v = {(h, w): b.value(x, (*m[:-2], h, w)) for h in (h0, h1) for w in (w0, w1)}
    b.eager_cuda = True
    top = b.let(f"_mix({b0}, {v[h0, w0]}, {b1}, {v[h0, w1]}, EAGER_CUDA)")
    bottom = b.let(f"_mix({b0}, {v[h1, w0]}, {b1}, {v[h1, w1]}, EAGER_CUDA)")
    return b.let(f"_mix({a0}, {top}, {a1}, {bottom}, EAGER_CUDA)")
