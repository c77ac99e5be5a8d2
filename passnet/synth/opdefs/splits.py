"""Splits: ``chunk`` makes a tuple of views of its operand; each ``getitem`` of it is a slice.

Eager launches nothing for either (the pieces are views). The synthesizer keeps the split's
node in the group, so the pattern makes the graph's own calls (``v1 = v0.chunk(2, dim=-1)``,
``v2 = v1[0]``), but nothing reads its tuple: a getitem of it is a :class:`Piece` (the
getitem's binder asks the split, :meth:`Split.piece`), which reads the split's operand
directly, its coordinate along the split dim shifted by the piece's start. A piece is a view,
exact on integers, and the group keeps every piece of a split it holds (``graph._trim``): a
split's tuple is no value a kernel can hand back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch.fx import Node

from passnet.passes.calls import call_name
from passnet.synth.ir import Int, SizeOp, cmp
from passnet.synth.op_model import Op, bind
from passnet.synth.opdefs.views import View
from passnet.synth.registry import operand_dims, register
from passnet.synth.shapes import Dim, Shapes, Unfusable, lit, ratio

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map


@register
class Split(View):
    """``x.chunk(chunks, dim)`` / ``torch.chunk``: ``chunks`` pieces along ``dim``, each
    ``ceil(size / chunks)`` long but the last. Its own dims are the operand's (nothing reads
    them: the pieces read the operand)."""

    name, targets, parts = "chunk", ("Tensor.chunk", "torch.chunk"), True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "chunks", "dim"], {"dim": 0})
        if (
            b is None
            or type(b["chunks"]) is not int
            or b["chunks"] < 1
            or type(b["dim"]) is not int
        ):
            return "chunk into a computed number of pieces or along a computed dim"
        return self.op([b["input"]], {"chunks": b["chunks"], "dim": b["dim"]})

    def piece(self, split: Node, index: Any) -> Op | str:
        """``split[index]``: a view of the split's operand (or why not)."""
        whole = self.bind(call_name(split), split, -1)
        if not isinstance(whole, Op):
            return whole or f"getitem of an unsupported {self.name}"
        if type(index) is not int or not 0 <= index < whole.attrs["chunks"]:
            return f"getitem of {self.name} with an index other than a piece's"
        return PIECE.op(whole.args, whole.attrs | {"index": index})


class Piece(View):
    """Piece ``index`` of a chunk (made by :meth:`Split.piece`, not registered: the getitem's
    registration binds it): the operand sliced along ``dim``."""

    name = "chunk_piece"

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x = operand_dims(shapes, op)
        d = op.attrs["dim"] % len(x)
        return x[:d] + [bounds(shapes, x[d], op)[1]] + x[d + 1 :]

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        x = op.args[0]
        dims = b.shapes.dims[x]
        d = op.attrs["dim"] % len(dims)
        start = bounds(b.shapes, dims[d], op)[0]
        at = m[d] if start.literal == 0 else b.let(m[d] + b.dim(start))
        return x, m[:d] + (at,) + m[d + 1 :]


PIECE = Piece()


def bounds(shapes: Shapes, size: Dim, op: Op) -> tuple[Dim, Dim]:
    """Where piece ``op.attrs["index"]`` of a dim of ``size`` starts and how long it is: eager's
    pieces are ``ceil(size / chunks)`` long, the last one shorter. A literal size is split as
    eager splits it; a size the wrapper reads must be a multiple of ``chunks`` in every
    analysed variant (a guard says so at run time), so every piece is ``size // chunks``."""
    c, i, n = op.attrs["chunks"], op.attrs["index"], shapes.n
    if size.literal is not None:
        step = -(-size.literal // c)
        length = min(step, size.literal - i * step)
        if length <= 0:
            raise Unfusable(f"chunk of a dim of {size.literal} has no piece {i}")
        return lit(i * step, n), lit(length, n)
    if any(v % c for v in size.vals):
        raise Unfusable("chunk of a dim that is not a multiple of its pieces in some variant")
    shapes.guard(cmp("==", size.expr % c, 0))
    length = ratio(size, c, tuple(v // c for v in size.vals))
    if i <= 1:
        return (lit(0, n) if i == 0 else length), length
    return Dim(SizeOp("*", (length.expr, Int(i))), tuple(v * i for v in length.vals)), length
