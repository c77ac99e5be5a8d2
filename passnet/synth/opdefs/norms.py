"""Normalisations and softmax: one result per element, computed from statistics of its row
(layer_norm, group_norm, softmax, normalize) or of its channel (eval batch_norm, prelu's
per-channel slope), as eager's kernels compute them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from torch.fx import Node

from passnet.synth.ir import BinOp, Bound, Const, Expr, Int, List, Reduce, call, cmp, where
from passnet.synth.op_model import F, Op, Reduction, bind, literal_or_input
from passnet.synth.opdefs.pointwise import NAN, filled
from passnet.synth.opdefs.reductions import one_dim
from passnet.synth.registry import OpDef, operand_dims, register
from passnet.synth.shapes import Dim, DType, Shapes, Unfusable, lit

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map


def affine(b: Builder, d: Expr, scale: Expr, weight: Expr | None, bias: Expr | None) -> Expr:
    """``d * scale * weight + bias`` as eager's norm kernels compute it: the last product and
    the bias in one FMA (nvcc contracts them; the kernel itself is launched without
    contraction)."""
    if weight is None:
        return b.let(call("tl.fma", d, scale, bias)) if bias is not None else b.let(d * scale)
    y = b.let(d * scale)
    return b.let(call("tl.fma", y, weight, bias)) if bias is not None else b.let(y * weight)


def real(value: Any) -> bool:
    """A Python float a generic rule may take at run time (an eps)."""
    return isinstance(value, float)


class FreeEps(OpDef):
    """A norm whose ``eps`` a generic rule takes at run time."""

    def free(self, op: Op, label: str, value: Any) -> tuple[Any, str] | None:
        return ("eps", "eps") if label == "eps" and real(value) else None


def moments(b: Builder, v: Expr) -> tuple[Expr, Expr, Expr, Expr]:
    """The row's sum, mean, centred values and variance (two passes over the tile)."""
    n = b.dim(b.domain[-1])
    cmask = b.name("cmask")
    total = b.let(Reduce("sum", where(cmask, v, 0.0)))
    mean = b.let(call("tl.math.div_rn", total, n + 0.0 * total))
    d = b.let(where(cmask, v - mean, 0.0))
    var = b.let(call("tl.math.div_rn", Reduce("sum", d * d), n + 0.0 * total))
    return total, mean, d, var


@register
class LayerNorm(FreeEps):
    """layer_norm over the last dim (affine or not). Eager's CUDA layer and group norms take
    rsqrtf(var + eps), as ``tl.math.rsqrt`` does: on half precision a norm's float32 result
    decides roundings that a second op amplifies. A generic rule takes ``eps`` and the row
    length at run time; its wrapper checks ``normalized_shape`` is the input's last dim."""

    name, targets, needs_row = "layer_norm", (F + "layer_norm",), True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "normalized_shape", "weight", "bias", "eps"],
                 {"weight": None, "bias": None, "eps": 1e-5})  # fmt: skip
        if b is None or len(b["normalized_shape"]) != 1:
            return "layer_norm over more than the last dim"
        return self.op([b["input"], b["weight"], b["bias"]],
                       {"eps": literal_or_input(b["eps"]),
                        "size": int(b["normalized_shape"][0])})  # fmt: skip

    def free(self, op: Op, label: str, value: Any) -> tuple[Any, str] | None:
        if label == "normalized_shape" and isinstance(value, (tuple, list)) and len(value) == 1:
            return ("size", "normalized_shape")
        return super().free(op, label, value)

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x = operand_dims(shapes, op)
        if (keyword := shapes.freed(node, "size")) is not None:  # the row: the input's own
            if not x or not shapes.equal(x[-1], shapes.bound_dim(keyword, 0)):
                raise Unfusable("layer_norm's normalized_shape differs from the input's last dim")
            return list(x)
        size = lit(op.attrs["size"], shapes.n)  # normalized_shape: the row length is constant
        if not x or not shapes.equal(x[-1], size):
            raise Unfusable("layer_norm's normalized_shape differs from the input's last dim")
        return x[:-1] + [size]

    def reduction(self, op: Op) -> Reduction | None:
        return Reduction(False)

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        b.row_check(m, node, op.name)
        v = b.value(op.args[0], m)
        weight, bias = (b.param(a, (m[-1],)) for a in op.args[1:])
        _, _, d, var = moments(b, b.on_tile(v))
        rstd = b.let(call("tl.math.rsqrt", var + b.constant(node, "eps", op.attrs["eps"])))
        return b.round(affine(b, d, rstd, weight, bias), node)


@register
class GroupNorm(FreeEps):
    """group_norm on [N, C, *S] with any group count dividing C: a group per channel on
    [N, C, L] walks L as its row; otherwise the phase's rows are the N x G groups, each a
    contiguous run of C / G channels times all positions (``shapes.group_rows``)."""

    name, targets, needs_row = "group_norm", (F + "group_norm",), True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "num_groups", "weight", "bias", "eps"],
                 {"weight": None, "bias": None, "eps": 1e-5})  # fmt: skip
        if b is None or rank < 3:
            return "group_norm on other than [N, C, ...] input"
        return self.op([b["input"], b["weight"], b["bias"]],
                       {"eps": literal_or_input(b["eps"]), "groups": int(b["num_groups"])})  # fmt: skip

    def reduction(self, op: Op) -> Reduction | None:
        return Reduction(False, groups=op.attrs["groups"])

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        b.group_check(node, op)
        v = b.value(op.args[0], m)
        weight, bias = (b.param(a, (m[1],)) for a in op.args[1:])
        v = b.on_tile(v)
        _, mean, _, var = moments(b, v)
        eps = b.constant(node, "eps", op.attrs["eps"])
        return b.round(self.affine(b, op, v, mean, var, weight, bias, eps), node)

    def affine(self, b: Builder, op: Op, v: Expr, mean: Expr, var: Expr, weight: Expr | None,
               bias: Expr | None, eps: Expr) -> Expr:  # fmt: skip
        """Group norm as eager computes it: ``a * x + b`` per channel with ``a = rstd *
        weight`` and ``b = -a * mean + bias``. Eager's CUDA kernel takes eps and stores the
        group's mean and rstd in the input's dtype before it forms ``a`` and ``b`` (its CPU
        kernel keeps them in float32): on half precision that rounding moves results by more
        than an ulp, so the kernel rounds them likewise where the wrapper says the device is
        CUDA (``EAGER_CUDA``)."""
        dt = b.shapes.dtypes[op.args[0]]
        if dt.index is not None:
            b.pointers.add(dt.index)
        cuda = b.eager_cuda
        full = call("tl.full", List((Int(1), Int(1))), eps, Const("tl.float32"))
        eps = b.let(b.helper("_stat", full, dt.triton(), cuda))
        mean = b.let(b.helper("_stat", mean, dt.triton(), cuda))
        a = b.let(b.helper("_stat", call("tl.math.rsqrt", var + eps), dt.triton(), cuda))
        if weight is not None:
            a = b.let(a * weight)
        shift = b.let(call("tl.fma", -a, mean, bias) if bias is not None else -a * mean)
        return b.let(call("tl.fma", a, v, shift))


@register
class Softmax(OpDef):
    """softmax (optionally with a dtype) over one dim: the row's max subtracted, exp, divided
    by the sum with ``div_rn``."""

    name, needs_row = "softmax", True
    targets = (F + "softmax", "torch.softmax", "Tensor.softmax")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        names = (["input", "dim", "_stacklevel", "dtype"] if key.startswith(F)
                 else ["input", "dim", "dtype"])  # fmt: skip
        b = bind(node, names, {"dim": None, "_stacklevel": 3, "dtype": None})
        d = one_dim(b["dim"], rank) if b is not None else None
        if b is None or d is None:
            return "softmax over an unknown dim"
        return self.op([b["input"]], {"dtype": b["dtype"]} | ({} if d == rank - 1 else {"axis": d}))

    def free(self, op: Op, label: str, value: Any) -> tuple[Any, str] | None:
        return free_dim(label, value)

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        guard_dim(shapes, node, op)
        return super().shape(shapes, node, op)

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        if op.attrs.get("dtype") is not None:
            return DType(op.attrs["dtype"], None, actual)
        return super().dtype(shapes, node, op, actual)

    def reduction(self, op: Op) -> Reduction | None:
        return Reduction(False, axis=op.attrs.get("axis"))

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        b.row_check(m, node, op.name, op.attrs.get("axis", -1))
        v = b.value(op.args[0], m)
        if op.attrs.get("dtype") is not None:
            v = b.round(v, node)
        v = b.on_tile(v)
        b.dim(b.domain[-1])
        vm = b.let(where(b.name("cmask"), v, Const("float('-inf')")))
        mx = b.let(Reduce("max", vm))
        e = b.let(call("tl.exp", vm - mx))
        s = b.let(Reduce("sum", e))
        return b.round(b.let(call("tl.math.div_rn", e, s + 0.0 * e)), node)


def free_dim(label: str, value: Any) -> tuple[Any, str] | None:
    """A reduction's ``dim`` a generic rule binds at run time (a guard checks it names the
    kernel's row: ``guard_dim``)."""
    return ("dim", "dim") if label == "dim" and type(value) is int else None


def guard_dim(shapes: Shapes, node: Node, op: Op) -> None:
    """Where ``dim`` is free: the wrapper checks the bound dim is the one the kernel reduces
    (``-1`` and ``3`` on a rank-4 input alike)."""
    if (keyword := shapes.freed(node, "dim")) is not None:
        rank = len(operand_dims(shapes, op))
        axis = op.attrs.get("axis", rank - 1)
        shapes.guard(cmp("==", BinOp("%", Bound(keyword), Int(rank)), Int(axis)))


@register
class Normalize(OpDef):
    """``F.normalize`` with p = 1 or 2 over one dim, as eager computes it in three kernels:
    the norm (L1: sum of magnitudes; L2: square root of the sum of squares; accumulated in
    float32) rounded to the tensor's dtype, clamped to eps and rounded again, then the
    division, rounded once. NaN propagates through the clamp, as eager's clamp_min does."""

    name, targets, needs_row, eager_kernels = "normalize", (F + "normalize",), True, 3

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "p", "dim", "eps", "out"],
                 {"p": 2.0, "dim": 1, "eps": 1e-12, "out": None})  # fmt: skip
        d = one_dim(b["dim"], rank) if b is not None else None
        if b is None or d is None or b["out"] is not None or b["p"] not in (1, 2):
            return "normalize other than an L1 or L2 norm over one dim"
        attrs = {"p": int(b["p"]), "eps": float(b["eps"])}
        return self.op([b["input"]], attrs | ({} if d == rank - 1 else {"axis": d}))

    def free(self, op: Op, label: str, value: Any) -> tuple[Any, str] | None:
        if label == "eps" and real(value):
            return ("eps", "eps")
        return free_dim(label, value)

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        guard_dim(shapes, node, op)
        return super().shape(shapes, node, op)

    def reduction(self, op: Op) -> Reduction | None:
        return Reduction(False, axis=op.attrs.get("axis"))

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        b.row_check(m, node, op.name, op.attrs.get("axis", -1))
        eps = b.constant(node, "eps", op.attrs["eps"])
        out = self.row(b, op, b.value(op.args[0], m), lambda v: b.round(v, node), eps)
        return b.round(out, node)

    def row(self, b: Builder, op: Op, v: Expr, rounded: Callable[[Expr], Expr],
            eps: Expr) -> Expr:  # fmt: skip
        v = b.on_tile(v)
        a = b.let(where(b.name("cmask"), v, 0.0))
        if op.attrs["p"] == 1:
            norm = b.let(Reduce("sum", call("tl.abs", a)))
        else:
            norm = b.let(call("tl.math.sqrt_rn", Reduce("sum", a * a)))
        den = rounded(b.let(call("tl.maximum", rounded(norm), eps, propagate_nan=NAN)))
        return b.let(call("tl.math.div_rn", v, den + 0.0 * v))


@register
class BatchNorm(FreeEps):
    """Eval-mode batch norm: (x - mean) / sqrt(var + eps) * weight + bias, per channel (dim 1)."""

    name, targets = "batch_norm", (F + "batch_norm",)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "running_mean", "running_var", "weight", "bias", "training",
                        "momentum", "eps"],
                 {"weight": None, "bias": None, "training": False, "momentum": 0.1,
                  "eps": 1e-5})  # fmt: skip
        if b is None or b["training"] or not isinstance(b["running_mean"], Node) or rank < 2:
            return "batch_norm in training mode"
        args = [b[k] for k in ("input", "running_mean", "running_var", "weight", "bias")]
        return self.op(args, {"eps": literal_or_input(b["eps"])})  # momentum: unused in eval

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        x = op.args[0]
        if not b.shapes.equal(b.shapes.dims[op.args[1]][0], b.shapes.dims[x][1]):
            raise Unfusable("batch_norm statistics of another size than the channels")
        mean, var, weight, bias = (b.param(a, (m[1],)) for a in op.args[1:])
        if mean is None or var is None:
            raise Unfusable("batch_norm without running statistics")
        v = b.value(x, m)
        eps = b.constant(node, "eps", op.attrs["eps"])
        inv = b.let(call("tl.math.div_rn", filled(b, var), call("tl.math.sqrt_rn", var + eps)))
        return b.round(affine(b, b.let(v - mean), inv, weight, bias), node)


@register
class Prelu(OpDef):
    """``x > 0 ? x : w * x`` as eager's kernel: ``w`` one slope for every element, or one per
    channel (dim 1, eager's rule; dim 0 of a 1-D input)."""

    name, targets = "prelu", ("torch.prelu", F + "prelu", "Tensor.prelu")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "weight"], {})
        if b is None or not all(isinstance(b[k], Node) for k in ("input", "weight")):
            return "prelu with a constant weight"
        return self.op([b["input"], b["weight"]])

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        x, w = op.args
        wd, xd = b.shapes.dims[w], b.shapes.dims[x]
        if len(wd) != 1:
            raise Unfusable("prelu's weight is not one-dimensional")
        channel = 1 if len(xd) > 1 else 0
        if wd[0].all_one():
            at: Map = (Int(0),)
        elif b.shapes.equal(wd[0], xd[channel]):
            at = (m[channel],)
        else:
            raise Unfusable("prelu's weight is neither one slope nor one per channel")
        v, a = b.value(x, m), b.value(w, at)
        return b.round(b.let(where(cmp(">", v, 0.0), v, a * v)), node)
