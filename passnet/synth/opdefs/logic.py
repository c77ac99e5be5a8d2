"""Comparisons and boolean logic. Their bool results are flags inside a kernel (1.0 / 0.0, as
a cast to bool already makes them) that casts, masks and other logic read; a bool output is
stored as torch.bool (``passnet.synth.bools``). An integer operand (token ids, an attention
mask of int64) is read as stored, never through float32, so ``input_ids.ne(1)`` is exact at
any id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from torch.fx import Node

from passnet.synth.ir import BinOp, Const, Expr, Int, cmp, float_text, where
from passnet.synth.op_model import INTEGERS, Op, bind, number
from passnet.synth.opdefs.pointwise import Pointwise
from passnet.synth.registry import register
from passnet.synth.shapes import DType, Shapes, Unfusable

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map

_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _targets(names: list[str]) -> tuple[str, ...]:
    return tuple(f"{where}.{n}" for n in names for where in ("operator", "torch", "Tensor"))


class Flag(Pointwise):
    """A pointwise op with a bool result, kept as a flag."""

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        return DType(torch.bool, None, actual)

    def flag(self, op: Op) -> bool:
        return True

    def reads_exactly(self, op: Op, value: Node) -> bool:
        return any(a is value for a in op.args)

    def reads_as_integers(self, op: Op, value: Node) -> bool:
        return self.reads_exactly(op, value)  # an integer operand: as stored (``read``)

    def read(self, b: Builder, node: Node, m: Map, a: Any) -> Expr:
        """Operand ``a`` at ``m``: an integer tensor as stored, other tensors as float32
        (flags and bools as 1.0 / 0.0), numbers as literals of their kind."""
        if not isinstance(a, Node):
            return Int(a) if isinstance(a, int) else Const(float_text(float(a)))
        at = b.broadcast(m, b.shapes.dims[node], a)
        vals = b.shapes.dtypes[a].vals
        if set(vals) <= set(INTEGERS) and torch.bool not in vals:
            return b.indices(a, at)
        return b.value(a, at)


@register
class Compare(Flag):
    """``a == b`` and the other five, of tensors and numbers."""

    name, targets = "compare", _targets(list(_SYMBOLS))

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "other"], {})
        if b is None or not all(isinstance(x, Node) or number(x) for x in b.values()):
            return f"{key} of a non-tensor, non-number operand"
        symbol = _SYMBOLS[key.rsplit(".", 1)[1]]
        return self.op([b["input"], b["other"]], {"symbol": symbol}, key.rsplit(".", 1)[1])

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        x, y = (self.read(b, node, m, a) for a in op.args)
        return b.let(where(cmp(op.attrs["symbol"], x, y), 1.0, 0.0))


@register
class Logic(Flag):
    """``logical_and``/``or``/``xor``/``not`` of any tensors (zero or not), and ``&``, ``|``,
    ``^``, ``~`` of bool tensors (on integers those are bitwise: refused)."""

    name = "logic"
    targets = (*_targets(["logical_and", "logical_or", "logical_xor", "logical_not"]),
               "operator.and_", "operator.or_", "operator.xor", "operator.invert",
               "Tensor.bitwise_not", "torch.bitwise_not")  # fmt: skip

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        what = key.rsplit(".", 1)[1].removeprefix("logical_").removeprefix("bitwise_")
        what = {"and_": "and", "or_": "or", "invert": "not"}.get(what, what)
        unary = what == "not"
        b = bind(node, ["input"] if unary else ["input", "other"], {})
        if b is None or not all(isinstance(x, Node) for x in b.values()):
            return f"{key} of a non-tensor operand"
        bitwise = not key.split(".")[-1].startswith("logical_")
        return self.op(list(b.values()), {"what": what, "bitwise": bitwise}, what)

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        if op.attrs["bitwise"] and any(set(b.shapes.dtypes[a].vals) != {torch.bool}
                                       for a in op.args):  # fmt: skip
            raise Unfusable(f"'{node.name}' is a bitwise op on integers")
        what = op.attrs["what"]
        if what == "not":
            test: Expr = cmp("==", self.read(b, node, m, op.args[0]), 0.0)
        else:
            x, y = (cmp("!=", self.read(b, node, m, a), 0.0) for a in op.args)
            test = BinOp({"and": "&", "or": "|", "xor": "^"}[what], x, y)
        return b.let(where(test, 1.0, 0.0))
