"""Repeats: copies whose every element is one of the operand's, found by index arithmetic.

``x.repeat(*counts)`` tiles the operand (each coordinate modulo the operand's size along its
dim), ``repeat_interleave(r, dim)`` repeats each element ``r`` times in place (the coordinate
divided by ``r``). Like the views (:mod:`passnet.synth.opdefs.views`) they read their operand
at the coordinates an element comes from (:meth:`~passnet.synth.registry.OpDef.source`), so
the kernel loads the operand and moves nothing; unlike them eager copies: one kernel each.
Copies are exact, so integer index values pass through them (torch_geometric's self loops:
``arange(n).view(1, -1).repeat(2, 1)`` concatenated to an edge index).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torch.fx import Node

from passnet.synth.ir import Expr, Int
from passnet.synth.op_model import Op, bind, varargs
from passnet.synth.registry import OpDef, operand_dims, register
from passnet.synth.shapes import Dim, Shapes, lit, prod

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map


class _Copied(OpDef):
    """A copy of the operand's elements: exact on integers (index values)."""

    def exact_on_integers(self, op: Op) -> bool:
        return True

    def moves_values(self, op: Op) -> bool:
        return True


def _count(v: object) -> bool:
    """A literal repeat count of at least 1 (0 would make an empty tensor)."""
    return type(v) is int and v >= 1


@register
class Repeat(_Copied):
    """``x.repeat(*counts)`` (or ``repeat(repeats=(...))``) with literal counts of at least 1,
    as many as the operand's dims or more (the first ones then make new leading dims): the
    result's dim ``i`` is the operand's times its count, and its element at ``m`` is the
    operand's at ``m[i] % size`` per repeated dim, the new leading coordinates dropped."""

    name, targets = "repeat", ("Tensor.repeat",)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        counts = varargs(node) if "repeats" not in node.kwargs else _keyword(node)
        if counts is None or not all(_count(c) for c in counts):
            return "repeat by computed counts or by a count below 1"
        if len(counts) < max(rank, 0):
            return "repeat by fewer counts than the tensor has dims"
        return self.op([node.args[0]], {"repeats": list(counts)})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        src, counts, n = operand_dims(shapes, op), op.attrs["repeats"], shapes.n
        new = len(counts) - len(src)
        return [lit(c, n) for c in counts[:new]] + [
            d if c == 1 else prod([d, lit(c, n)], n) for d, c in zip(src, counts[new:], strict=True)
        ]

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        """Each repeated coordinate modulo the operand's size (folded where both are known)."""
        x = op.args[0]
        src = b.shapes.dims[x]
        k = len(m) - len(src)
        out: list[Expr] = []
        for d, c, tok in zip(src, op.attrs["repeats"][k:], m[k:], strict=True):
            if c == 1 or tok == Int(0):
                out.append(tok)
            elif d.literal == 1:
                out.append(Int(0))
            elif isinstance(tok, Int) and d.literal is not None:
                out.append(Int(tok.value % d.literal))
            else:
                out.append(b.let(tok % b.dim(d)))
        return x, tuple(out)


def _keyword(node: Node) -> list[int] | None:
    """``x.repeat(repeats=(2, 1))``: the counts of the keyword spelling."""
    counts = node.kwargs["repeats"]
    if len(node.args) != 1 or len(node.kwargs) != 1 or not isinstance(counts, (tuple, list)):
        return None
    return list(counts)


@register
class RepeatInterleave(_Copied):
    """``repeat_interleave(x, r, dim)`` / ``x.repeat_interleave(r, dim)`` with a literal count
    ``r`` of at least 1 (a tensor of counts is refused): along ``dim`` each element ``r``
    times, the element at ``m`` the operand's at ``m[dim] // r``; without ``dim`` over the
    flattened operand (a 1-D result whose index ``// r`` is unravelled over the operand)."""

    name = "repeat_interleave"
    targets = ("Tensor.repeat_interleave", "torch.repeat_interleave")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "repeats", "dim", "output_size"],
                 {"dim": None, "output_size": None})  # fmt: skip
        if b is None or not isinstance(b["input"], Node) or not _count(b["repeats"]):
            return "repeat_interleave by a tensor of counts or a count below 1"
        dim = b["dim"]
        if dim is not None and (type(dim) is not int or not -max(rank, 1) <= dim < max(rank, 1)):
            return "repeat_interleave along an unexpected dim"
        d = None if dim is None else dim % max(rank, 1)
        return self.op([b["input"]], {"repeats": b["repeats"], "dim": d})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        src, r, d, n = operand_dims(shapes, op), op.attrs["repeats"], op.attrs["dim"], shapes.n
        if d is None or not src:  # a 0-dim operand repeats into one dim, as without ``dim``
            return [prod([*src, lit(r, n)], n)]
        return src[:d] + [src[d] if r == 1 else prod([src[d], lit(r, n)], n)] + src[d + 1 :]

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        x, r, d = op.args[0], op.attrs["repeats"], op.attrs["dim"]
        src = b.shapes.dims[x]
        if d is None or not src:
            return x, tuple(b.unravel(_div(b, m[0], r), src))
        return x, m[:d] + (_div(b, m[d], r),) + m[d + 1 :]


def _div(b: Builder, tok: Expr, r: int) -> Expr:
    """``tok // r`` (folded where ``tok`` is a literal or ``r`` is 1)."""
    if r == 1 or tok == Int(0):
        return tok
    if isinstance(tok, Int):
        return Int(tok.value // r)
    return b.let(tok // r)
