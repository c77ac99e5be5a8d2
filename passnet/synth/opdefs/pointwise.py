"""Pointwise ops: arithmetic, activations, masks and scalars, each computed in float32 the way
eager computes it, then rounded to the op's dtype where eager materialises its result.

Only ``tl``/``tl.math`` functions that Triton's interpreter also implements are used (no
libdevice), so a generated pass runs on CPU as it runs on a GPU: tanh is built from exp,
divisions of two tensors and square roots are the IEEE-rounded ``div_rn``/``sqrt_rn``.

Kernels are launched with ``enable_fp_fusion=False`` (``emit``): each eager op rounds its
result, so a product must not fuse with the next op's sum into one FMA, as Triton's default
contraction did across the rounding to half precision (docs/results/h200-2026-12-04f.md). Where
eager's own kernel contracts inside one op (a norm's ``* weight + bias``, gelu's cubic term),
the template says ``tl.fma``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import torch
from torch.fx import Node

from passnet.synth.ir import BinOp, Const, Expr, Int, call, cmp, float_text, where
from passnet.synth.op_model import (
    FLOATS,
    F,
    Op,
    bind,
    literal_or_input,
    number,
    scalar,
    scalar_input,
)
from passnet.synth.registry import OpDef, register
from passnet.synth.shapes import Dim, DType, Shapes, Unfusable, broadcast, promote

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map

NAN = Const("tl.PropagateNan.ALL")  # NaN in, NaN out, as eager's max/min/clamp


class Pointwise(OpDef):
    """One value per element of its operands' broadcast shape: each operand read at its
    broadcast map, the op's template (:meth:`apply`), rounded to the result's dtype."""

    constant_operands = elementwise = True

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        return broadcast(shapes, [shapes.dims[a] for a in op.args if isinstance(a, Node)])

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        tensors = [shapes.dtypes[a] for a in op.args if isinstance(a, Node)]
        return promote(shapes, op.name, tensors, actual)

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        args = [b.operand(a, node, m, i) for i, a in enumerate(op.args)]
        return b.round(self.apply(b, op, args), node)

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        """The op applied to already computed float32 operands."""
        raise NotImplementedError(self.name)


class Binary(Pointwise):
    """``a op b`` of tensors and numbers, either side (``alpha`` and ``rounding_mode`` only at
    their defaults)."""

    symbol: ClassVar[str] = ""  # the infix operator written in the kernel

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        names = ["input", "other", "alpha"] if self.name in ("add", "sub") else ["input", "other"]
        if self.name == "div" and key != "operator.truediv":
            names.append("rounding_mode")
        b = bind(node, names, {"alpha": 1, "rounding_mode": None})
        if b is None or b.get("alpha", 1) != 1 or b.get("rounding_mode") is not None:
            return f"{self.name} with alpha or rounding_mode"
        a, c = b["input"], b["other"]
        if not all(isinstance(x, Node) or number(x) for x in (a, c)):
            return f"{self.name} of a non-tensor, non-number operand"
        return self.op([a, c])

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        return b.let(BinOp(self.symbol, args[0], args[1]))

    def free(self, op: Op, label: str, value: Any) -> tuple[Any, str] | None:
        """A float operand (an attention scale, ``x / 8.0``) a generic rule takes at run time."""
        side = {"a": 0, "input": 0, "self": 0, "b": 1, "other": 1}.get(label)
        if side is None or type(value) is not float or not number(value):
            return None
        return ("arg", side), "scalar"

    def exact_on_integers(self, op: Op) -> bool:
        """Integer add/sub/mul of index values and integer literals (``positions + 2``)."""
        return all(isinstance(a, Node) or (scalar(a) and float(a).is_integer()) for a in op.args)

    def int_lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        if any(b.shapes.freed(node, ("arg", i)) for i in range(len(op.args))):
            raise Unfusable(f"'{node.name}' computes indices with a free literal")
        args = [b.indices(a, b.broadcast(m, b.shapes.dims[node], a)) if isinstance(a, Node)
                else Int(int(a)) for a in op.args]  # fmt: skip
        return b.let(BinOp(self.symbol, args[0], args[1]))


@register
class Add(Binary):
    name, symbol = "add", "+"
    targets = ("operator.add", "torch.add", "Tensor.add")


@register
class Sub(Binary):
    name, symbol = "sub", "-"
    targets = ("operator.sub", "torch.sub", "Tensor.sub")


@register
class Mul(Binary):
    name, symbol = "mul", "*"
    targets = ("operator.mul", "torch.mul", "Tensor.mul")


@register
class Div(Binary):
    name = "div"
    targets = ("operator.truediv", "torch.div", "Tensor.div", "torch.true_divide")

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        if all(isinstance(x, Node) for x in op.args):
            return b.let(call("tl.math.div_rn", args[0], args[1]))
        return b.let(args[0] / args[1])

    def exact_on_integers(self, op: Op) -> bool:
        return False


class Unary(Pointwise):
    """``f(x)`` (``inplace=True`` allowed: computed out of place where the write is private,
    written back where it is into an input, ``graph._shared_write``); a subclass names its
    targets and writes :meth:`emit`."""

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "inplace"], {"inplace": False})
        if b is None or not isinstance(b["inplace"], bool):
            return f"{self.name} with unexpected arguments"
        return self.op([b["input"]], {"inplace": True} if b["inplace"] else {})

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        return self.emit(b, args[0])

    def emit(self, b: Builder, a: Expr) -> Expr:
        """The op's IR on the float32 value ``a``."""
        raise NotImplementedError(self.name)


def tanh(b: Builder, a: Expr) -> Expr:
    e = b.let(call("tl.exp", -2.0 * call("tl.abs", a)))
    t = b.let(call("tl.math.div_rn", 1.0 - e, 1.0 + e))
    return b.let(where(cmp("<", a, 0.0), -t, t))


def filled(b: Builder, like: Expr, value: float = 1.0) -> Expr:
    """``value`` in the shape of ``like`` (``div_rn`` wants tensors), without arithmetic on it:
    ``1.0 + 0.0 * like`` is NaN where ``like`` is infinite (a float16 running_var beyond
    65504 made a batch norm NaN where eager gives the bias; sigmoid(inf) NaN, not 1)."""
    return b.let(where(cmp("==", like, like), value, value))


@register
class Neg(Unary):
    name, targets = "neg", ("operator.neg", "torch.neg", "Tensor.neg")

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(-a)


@register
class Relu(Unary):
    name = "relu"
    targets = (F + "relu", "torch.relu", "Tensor.relu", "torch.relu_", "Tensor.relu_")
    idempotent = True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        if not key.endswith("_"):
            return super().bind(key, node, rank)
        b = bind(node, ["input"], {})  # torch.relu_(x), x.relu_(): in place
        if b is None:
            return "relu_ with unexpected arguments"
        return self.op([b["input"]], {"inplace": True})

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(call("tl.maximum", a, 0.0, propagate_nan=NAN))


@register
class Silu(Unary):
    name, targets = "silu", (F + "silu",)

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(call("tl.math.div_rn", a, 1.0 + call("tl.exp", -a)))


@register
class Sigmoid(Unary):
    name, targets = "sigmoid", ("torch.sigmoid", "Tensor.sigmoid", F + "sigmoid")

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(call("tl.math.div_rn", filled(b, a), 1.0 + call("tl.exp", -a)))


@register
class Tanh(Unary):
    name, targets = "tanh", ("torch.tanh", "Tensor.tanh", F + "tanh")

    def emit(self, b: Builder, a: Expr) -> Expr:
        return tanh(b, a)


@register
class Exp(Unary):
    name, targets = "exp", ("torch.exp", "Tensor.exp")

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(call("tl.exp", a))


@register
class Rsqrt(Unary):
    name, targets = "rsqrt", ("torch.rsqrt", "Tensor.rsqrt")

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(1.0 / call("tl.math.sqrt_rn", a))


@register
class Sqrt(Unary):
    name, targets = "sqrt", ("torch.sqrt", "Tensor.sqrt")

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(call("tl.math.sqrt_rn", a))


@register
class Cos(Unary):  # float32 in and out, as eager's cosf / sinf (opmath)
    name, targets = "cos", ("torch.cos", "Tensor.cos")

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(call("tl.cos", a))


@register
class Sin(Unary):
    name, targets = "sin", ("torch.sin", "Tensor.sin")

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(call("tl.sin", a))


@register
class Hardsigmoid(
    Unary
):  # MobileNetV3's gate, as CUDA computes it: min(max(x + 3, 0), 6) * (1 / 6)
    name, targets = "hardsigmoid", (F + "hardsigmoid",)

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(_relu6(a + 3.0) * (1.0 / 6.0))


@register
class Hardswish(Unary):  # as CUDA computes it: x * min(max(x + 3, 0), 6) * (1 / 6)
    name, targets = "hardswish", (F + "hardswish",)

    def emit(self, b: Builder, a: Expr) -> Expr:
        return b.let(a * _relu6(a + 3.0) * (1.0 / 6.0))


def _relu6(v: Expr) -> Expr:
    inner = call("tl.maximum", v, 0.0, propagate_nan=NAN)
    return call("tl.minimum", inner, 6.0, propagate_nan=NAN)


@register
class Pow(Pointwise):
    """``x ** c`` for a constant exponent: square roots, small integer powers by square and
    multiply (exact where eager's ``pow`` is), otherwise ``exp2(c * log2(x))``."""

    name, targets = "pow", ("operator.pow", "torch.pow", "Tensor.pow")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "exponent"], {})
        if b is None or not isinstance(b["input"], Node) or not number(b["exponent"]):
            return "pow with a tensor exponent"
        return self.op([b["input"]], {"exponent": float(b["exponent"])})

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        a, c = args[0], op.attrs["exponent"]
        if c == 0.5:
            return b.let(call("tl.math.sqrt_rn", a))
        if c == -0.5:
            return b.let(1.0 / call("tl.math.sqrt_rn", a))
        if c == int(c) and abs(c) <= 8:
            n, acc, base = abs(int(c)), None, a
            while n:  # square and multiply
                if n & 1:
                    acc = base if acc is None else b.let(acc * base)
                n >>= 1
                if n:
                    base = b.let(base * base)
            acc = acc or b.let(a * 0.0 + 1.0)
            return b.let(1.0 / acc) if c < 0 else acc
        return b.let(call("tl.exp2", c * call("tl.log2", a)))


@register
class Gelu(Pointwise):
    """gelu with ``approximate="none"`` (erf) or ``"tanh"`` (named ``gelu_tanh``)."""

    name, targets = "gelu", (F + "gelu",)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "approximate"], {"approximate": "none"})
        if b is None or b["approximate"] not in ("none", "tanh"):
            return "gelu with an unknown approximation"
        return self.op([b["input"]], name="gelu_tanh" if b["approximate"] == "tanh" else "gelu")

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        a = args[0]
        if op.name == "gelu":
            return b.let(0.5 * a * (1.0 + call("tl.math.erf", a * 0.7071067811865476)))
        cube = b.let(a * a * a)
        inner = b.let(0.7978845608028654 * call("tl.fma", 0.044715, cube, a))
        return b.let(0.5 * a * (1.0 + tanh(b, inner)))


@register
class Logit(Pointwise):
    """``logit(x, eps)``: ``log(z / (1 - z))``, ``z`` being ``x`` clamped to ``[eps, 1 - eps]``
    where ``eps`` is given (NaN stays NaN). Eager's CUDA kernel keeps the bounds and every step
    in float32; its CPU kernel rounds the bounds, ``1 - z`` and the quotient to the input's dtype
    (``_cpu_round``, by ``EAGER_CUDA``)."""

    name = "logit"
    targets = ("torch.logit", "Tensor.logit", "torch.special.logit",
               "torch._C._special.special_logit")  # fmt: skip

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "eps"], {"eps": None})
        if b is None or not isinstance(b["input"], Node):
            return "logit with unexpected arguments"
        eps = b["eps"]
        if eps is not None and not number(eps):
            return "logit with a non-number eps"
        return self.op([b["input"]], {"eps": None if eps is None or eps < 0 else float(eps)})

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        dt = b.shapes.dtypes[op.args[0]]
        if dt.index is not None:
            b.pointers.add(dt.index)
        z, eps, cuda = args[0], op.attrs["eps"], b.eager_cuda

        def rounded(v: Expr) -> Expr:
            return b.let(b.helper("_cpu_round", v, dt.triton(), cuda))

        if eps is not None:
            lo = rounded(filled(b, z, eps))
            hi = rounded(b.let(1.0 - lo))
            z = b.let(where(cmp("<", z, lo), lo, where(cmp(">", z, hi), hi, z)))
        ratio = rounded(b.let(call("tl.math.div_rn", z, rounded(b.let(1.0 - z)))))
        return b.let(call("tl.log", ratio))


@register
class Clamp(Pointwise):
    """clamp / clip with number bounds, hardtanh and relu6 (clamps to literals, or to scalar
    inputs of the graph: the kernel's arguments); NaN in, NaN out."""

    name, idempotent = "clamp", True
    targets = (F + "hardtanh", F + "relu6", "torch.clamp", "Tensor.clamp", "torch.clip",
               "Tensor.clip")  # fmt: skip

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        if key in ("torch.clamp", "Tensor.clamp", "torch.clip", "Tensor.clip"):
            b = bind(node, ["input", "min", "max"], {"min": None, "max": None})
            bounds = (b["min"], b["max"]) if b is not None else ()
            if b is None or not all(v is None or number(v) or scalar_input(v) for v in bounds):
                return "clamp with tensor bounds"
            return self.op([b["input"]], {"min": b["min"], "max": b["max"]})
        six = key.endswith("relu6")
        names = ["input", "inplace"] if six else ["input", "min_val", "max_val", "inplace"]
        b = bind(node, names, {"min_val": -1.0, "max_val": 1.0, "inplace": False})
        if b is None or not isinstance(b["inplace"], bool):
            return "hardtanh with unexpected arguments"
        lo, hi = (0.0, 6.0) if six else (b["min_val"], b["max_val"])
        attrs = {"min": literal_or_input(lo), "max": literal_or_input(hi)}
        attrs |= {"inplace": True} if b["inplace"] else {}
        return self.op([b["input"]], attrs)

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        a, lo, hi = args[0], op.attrs["min"], op.attrs["max"]
        if lo is not None:
            a = b.let(call("tl.maximum", a, bound(b, lo), propagate_nan=NAN))
        if hi is not None:
            a = b.let(call("tl.minimum", a, bound(b, hi), propagate_nan=NAN))
        return a


def bound(b: Builder, v: Any) -> Expr | float:
    """A clamp bound: a literal, or a scalar input of the graph (the kernel's argument)."""
    return b.number(v) if isinstance(v, Node) else float(v)


@register
class LeakyRelu(Pointwise):
    name, targets = "leaky_relu", (F + "leaky_relu",)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "negative_slope", "inplace"],
                 {"negative_slope": 0.01, "inplace": False})  # fmt: skip
        if b is None or not number(b["negative_slope"]) or not isinstance(b["inplace"], bool):
            return "leaky_relu with unexpected arguments"
        attrs = {"slope": float(b["negative_slope"])} | ({"inplace": True} if b["inplace"] else {})
        return self.op([b["input"]], attrs)

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        a = args[0]
        return b.let(where(cmp(">", a, 0.0), a, a * op.attrs["slope"]))


@register
class MaskedFill(Pointwise):
    """``masked_fill(mask, value)`` with a number value (infinities too); the mask is a flag
    (1.0 / 0.0) or any tensor read as bool. The result has the filled tensor's dtype."""

    name, targets = "masked_fill", ("Tensor.masked_fill", "torch.masked_fill")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "mask", "value"], {})
        v = b["value"] if b else None
        if b is None or not isinstance(b["mask"], Node) or v is None or not scalar(v):
            return "masked_fill with a tensor value"
        return self.op([b["input"], b["mask"]], {"value": float(v)})

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        return shapes.dtypes[op.args[0]]

    def apply(self, b: Builder, op: Op, args: list[Expr]) -> Expr:
        return b.let(where(cmp("!=", args[1], 0.0), Const(float_text(op.attrs["value"])), args[0]))

    def reads_exactly(self, op: Op, value: Node) -> bool:
        return op.args[1] is value and op.args[0] is not value


@register
class Scalar(Pointwise):
    """``torch.tensor(v, dtype=float)``: a 0-dim constant, as eager rounds it; no kernel."""

    name, targets, eager_kernels = "const", ("torch.tensor",), 0

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["data", "dtype", "device", "requires_grad", "pin_memory"],
                 {"dtype": None, "device": None, "requires_grad": False, "pin_memory": False})  # fmt: skip
        if b is None or not scalar(b["data"]) or b["dtype"] not in FLOATS:
            return "tensor() of other than a float scalar with a float dtype"
        return self.op([float(b["data"])], {"dtype": b["dtype"]})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        return []

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        return DType(op.attrs["dtype"], None, actual)

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        return Const(float_text(float(torch.tensor(op.args[0], dtype=op.attrs["dtype"]))))
