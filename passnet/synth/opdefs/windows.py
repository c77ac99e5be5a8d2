"""Ops that read several input positions per output: max and average pooling, bilinear resizing.

Each output element computes its window's (or its four neighbours') input coordinates from
its own, clamps them into bounds so every load stays in bounds, and asks the builder for the
operand's value at each: the ops before the pool or resize are recomputed per tap rather
than written out and read back, so a ``batch_norm, relu, max_pool2d`` never stores the
full-size activation. Flat kernels only (one output element per lane).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch.fx import Node

from passnet.synth.ir import (
    BinOp,
    Const,
    Expr,
    Int,
    Paren,
    atomic,
    call,
    cmp,
    where,
)
from passnet.synth.op_model import F, Op, bind
from passnet.synth.opdefs.pointwise import NAN, filled
from passnet.synth.registry import OpDef, operand_dims, register
from passnet.synth.shapes import Dim, Shapes, Unfusable, lit

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map


def _pair(v: Any) -> tuple[int, int] | None:
    """An int or a pair of ints as a pair (pooling's kernel_size, stride, padding, dilation)."""
    v = (v, v) if isinstance(v, int) else tuple(v) if isinstance(v, (tuple, list)) else None
    ok = v is not None and len(v) == 2 and all(type(x) is int for x in v)
    return (v[0], v[1]) if ok and v is not None else None


class Window(OpDef):
    window = True

    def single(self, b: Builder, op: Op) -> None:
        """Refuse a window over a value that is itself a window's: the taps would multiply
        (a resize of a resize computes 16 values per output), so such a chain is split into
        groups."""
        if b.mode != "flat":
            raise Unfusable(f"{op.name} in a kernel that walks rows")
        above = b.ancestors([a for a in op.args if isinstance(a, Node)])
        for n in (n for n in b.nodes if n in above):  # graph order: one reason, every run
            if b.ops[n].defn.window:
                raise Unfusable(f"{op.name} of a value {b.ops[n].name} computed in the same kernel")


class Pool2d(Window):
    """A window over the last two dims of [N, C, H, W] (or [C, H, W]): the output's size."""

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x = operand_dims(shapes, op)
        return x[:-2] + [self.pooled(x[-2 + i], op, i, shapes.n) for i in range(2)]

    def pooled(self, size: Dim, op: Op, i: int, n: int) -> Dim:
        """A pooled dim's size, as ATen's ``pooling_output_shape`` computes it."""
        k, s = op.attrs["kernel"][i], op.attrs["stride"][i]
        p, d, ceil = op.attrs["padding"][i], op.attrs["dilation"][i], op.attrs["ceil_mode"]
        extra = 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)

        def out(v: int) -> int:
            o = (v + extra) // s + 1
            return o - 1 if ceil and (o - 1) * s >= v + p else o

        vals = tuple(out(v) for v in size.vals)
        if any(v < 1 for v in vals):
            raise Unfusable(f"{op.name}'s window is larger than its padded input")
        if size.literal is not None:
            return lit(vals[0], n)
        x = size.expr if atomic(size.expr) else Paren(size.expr)
        o = Paren(BinOp("+", BinOp("//", BinOp("+", x, Int(extra)), Int(s)), Int(1)))
        if not ceil:
            return Dim(o, vals)
        overhang = cmp(">=", BinOp("*", BinOp("-", o, Int(1)), Int(s)), BinOp("+", x, Int(p)))
        return Dim(Paren(BinOp("-", o, overhang)), vals)

    def taps(self, b: Builder, op: Op, m: Map) -> list[list[tuple[Expr, Expr]]]:
        """Per pooled axis, each tap of the window at ``m``: its input coordinate clamped into
        bounds (every load stays in bounds) and whether it lies inside (not in the padding)."""
        dims = b.shapes.dims[op.args[0]]
        taps: list[list[tuple[Expr, Expr]]] = []
        for i in range(2):
            k, s = op.attrs["kernel"][i], op.attrs["stride"][i]
            p, d = op.attrs["padding"][i], op.attrs["dilation"][i]
            size, c = b.dim(dims[-2 + i]), m[-2 + i]
            base = b.let(c * s - p)
            taps.append([])
            for t in range(k):
                at = b.let(base + t * d) if t * d else base
                inside = cmp(">=", at, 0) & cmp("<", at, size)
                clamped = b.let(call("tl.minimum", call("tl.maximum", at, 0), size - 1))
                taps[i].append((clamped, inside))
        return taps


@register
class MaxPool2d(Pool2d):
    """A max over each window of the last two dims, padding never chosen (eager pads with
    -inf): exact in every dtype, so the window's values are simply compared."""

    name, targets = "max_pool2d", (F + "max_pool2d",)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "kernel_size", "stride", "padding", "dilation", "ceil_mode",
                        "return_indices"],
                 {"stride": None, "padding": 0, "dilation": 1, "ceil_mode": False,
                  "return_indices": False})  # fmt: skip
        if b is None or b["return_indices"] or rank not in (3, 4):
            return "max_pool2d with indices or of another rank than [N, C, H, W]"
        k, p, d = _pair(b["kernel_size"]), _pair(b["padding"]), _pair(b["dilation"])
        s = k if b["stride"] in (None, [], ()) else _pair(b["stride"])
        if k is None or s is None or p is None or d is None or min(*k, *s, *d) < 1 or min(p) < 0:
            return "max_pool2d with window arguments other than ints"
        return self.op([b["input"]], {"kernel": k, "stride": s, "padding": p, "dilation": d,
                                      "ceil_mode": bool(b["ceil_mode"])})  # fmt: skip

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        """The max of the window at ``m``'s last two coordinates: each tap's input coordinate
        clamped into bounds (every load stays in bounds) and a tap in the padding replaced by
        -inf, as eager pads; NaN wins, as in eager's kernel. Max picks a value: no rounding."""
        self.single(b, op)
        x, taps = op.args[0], self.taps(b, op, m)
        out: Expr | None = None
        for h, h_in in taps[0]:
            for w, w_in in taps[1]:
                v = b.value(x, (*m[:-2], h, w))
                v = b.let(where(h_in & w_in, v, Const("float('-inf')")))
                out = v if out is None else b.let(call("tl.maximum", out, v, propagate_nan=NAN))
        return out  # type: ignore[return-value]


@register
class AvgPool2d(Pool2d):
    """The mean of each window of the last two dims (``ceil_mode=False``, no
    ``divisor_override``): the taps in bounds summed in float32 from 0 in eager's order (rows,
    then columns), divided by ``kh * kw`` (``count_include_pad``) or by the taps in bounds, and
    rounded to the dtype, as eager's CPU and CUDA kernels compute it."""

    name, targets = "avg_pool2d", (F + "avg_pool2d", "torch._C._nn.avg_pool2d")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "kernel_size", "stride", "padding", "ceil_mode",
                        "count_include_pad", "divisor_override"],
                 {"stride": None, "padding": 0, "ceil_mode": False, "count_include_pad": True,
                  "divisor_override": None})  # fmt: skip
        if b is None or rank not in (3, 4) or b["ceil_mode"] or b["divisor_override"] is not None:
            return "avg_pool2d with ceil_mode, a divisor or of another rank than [N, C, H, W]"
        k, p = _pair(b["kernel_size"]), _pair(b["padding"])
        s = k if b["stride"] in (None, [], ()) else _pair(b["stride"])
        if k is None or s is None or p is None or min(*k, *s) < 1 or min(p) < 0:
            return "avg_pool2d with window arguments other than ints"
        return self.op([b["input"]], {"kernel": k, "stride": s, "padding": p, "dilation": (1, 1),
                                      "ceil_mode": False,
                                      "include_pad": bool(b["count_include_pad"])})  # fmt: skip

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        self.single(b, op)
        x, taps = op.args[0], self.taps(b, op, m)
        total: Expr | None = None
        count: Expr | None = None
        for h, h_in in taps[0]:
            for w, w_in in taps[1]:
                both = b.let(h_in & w_in)
                v = b.value(x, (*m[:-2], h, w))
                v = b.let(where(both, v, 0.0))
                total = b.let((0.0 + v) if total is None else total + v)
                one = b.let(where(both, 1.0, 0.0))
                count = one if count is None else b.let(count + one)
        assert total is not None and count is not None
        kh, kw = op.attrs["kernel"]
        if op.attrs["include_pad"]:
            count = filled(b, total, float(kh * kw))
        return b.round(b.let(call("tl.math.div_rn", total, count)), node)


@register
class Interpolate(Window):
    """Bilinear resizing of [N, C, H, W] to a literal size: four taps per output, weighed as
    eager's upsample_bilinear2d weighs them."""

    name, targets = "interpolate", (F + "interpolate",)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "size", "scale_factor", "mode", "align_corners",
                        "recompute_scale_factor", "antialias"],
                 {"size": None, "scale_factor": None, "mode": "nearest", "align_corners": None,
                  "recompute_scale_factor": None, "antialias": False})  # fmt: skip
        size = _pair(b["size"]) if b is not None else None
        if b is None or b["mode"] != "bilinear" or b["antialias"] or rank != 4:
            return "interpolate other than bilinear over [N, C, H, W]"
        if size is None or b["scale_factor"] is not None or min(size) < 1:
            return "interpolate to other than a literal size"
        return self.op([b["input"]], {"size": size, "align_corners": bool(b["align_corners"])})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x = operand_dims(shapes, op)
        return x[:-2] + [lit(v, shapes.n) for v in op.attrs["size"]]

    @staticmethod
    def same_size(b: Builder, op: Op) -> bool:
        """Every variant's input already has the size asked for: eager's CUDA kernel copies
        it (its CPU kernel weighs the taps 1 and 0: the same value unless one is infinite)."""
        dims = b.shapes.dims[op.args[0]]
        return all(dims[-2 + i].vals == (op.attrs["size"][i],) * b.shapes.n for i in range(2))

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        """Bilinear resizing at ``m`` as eager's upsample_bilinear2d computes it, in float32:
        per axis the source coordinate ``scale * dst`` (align_corners) or ``max(scale * (dst +
        0.5) - 0.5, 0)`` with ``scale`` an IEEE float32 quotient of the sizes, the lower tap
        its truncation, the upper one the next (or itself at the edge), then
        ``l0h * (l0w * a + l1w * b) + l1h * (l0w * c + l1w * d)``, contracted on CUDA as
        nvcc contracts eager's kernel (``_mix``). To the input's own size, the input's value."""
        x, corners = op.args[0], op.attrs["align_corners"]
        if self.same_size(b, op):
            return b.value(x, m)
        self.single(b, op)
        dims = b.shapes.dims[x]
        cuda = b.eager_cuda
        axes = []
        for i in range(2):
            size, out, c = b.dim(dims[-2 + i]), op.attrs["size"][i], m[-2 + i]
            f = Const(f"{c.value}.0") if isinstance(c, Int) else c.to(Const("tl.float32"))
            if corners:
                scale: Expr = (b.let(call("tl.math.div_rn", (size - 1) * 1.0, Const(f"{out - 1}.0")))
                               if out > 1 else Const("0.0"))  # fmt: skip
                src = b.let(scale * f)
            else:
                scale = b.let(call("tl.math.div_rn", size * 1.0, Const(f"{out}.0")))
                src = b.let(call("tl.maximum", b.helper("_mix", scale, f + 0.5, -1.0, 0.5, cuda),
                                 0.0))  # fmt: skip
            lo = b.let(src.to(Const("tl.int32")))
            hi = b.let(lo + where(cmp("<", lo, size - 1), 1, 0))
            l1 = b.let(src - lo.to(Const("tl.float32")))
            axes.append((lo, hi, b.let(1.0 - l1), l1))
        (h0, h1, a0, a1), (w0, w1, b0, b1) = axes
        v = {(h, w): b.value(x, (*m[:-2], h, w)) for h in (h0, h1) for w in (w0, w1)}
        top = b.let(b.helper("_mix", b0, v[h0, w0], b1, v[h0, w1], cuda))
        bottom = b.let(b.helper("_mix", b0, v[h1, w0], b1, v[h1, w1], cuda))
        return b.round(b.let(b.helper("_mix", a0, top, a1, bottom, cuda)), node)
