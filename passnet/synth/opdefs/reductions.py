"""Reductions whose reduced dims leave the result: ``mean``, ``sum`` and the global average
pool, over the last dim, the last k dims (one row once merged) or one other dim (the phase
walks it as its row, ``kernel._axis_op``).

:class:`Collapsing` holds what they share (the binder, the shape rule, the schedule's
:class:`~passnet.synth.op_model.Reduction`, reading the operand along the row); each
registration adds its IR pattern, :meth:`Collapsing.combine`: the row's values (a
[BLOCK_M, BLOCK_N] tile, padded columns still in it) to one value per row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from torch.fx import Node

from passnet.synth.ir import Expr, Reduce, where
from passnet.synth.op_model import F, Op, Reduction, bind
from passnet.synth.registry import OpDef, operand_dims, register
from passnet.synth.shapes import Dim, Shapes, lit

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map


def trailing(dim: Any, rank: int) -> int | None:
    """How many trailing dims ``dim`` names (``-1``, ``[-2, -1]``, ``(2, 3)`` of rank 4), or
    None when it names others (or none): the synthesizer reduces along its row, and trailing
    dims are one row once merged."""
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    if not dims or rank < 1 or any(not isinstance(d, int) or isinstance(d, bool) for d in dims):
        return None
    norm = {d % rank for d in dims if -rank <= d < rank}
    if len(norm) != len(dims) or norm != set(range(rank - len(dims), rank)):
        return None
    return len(dims)


def one_dim(dim: Any, rank: int) -> int | None:
    """The one dim ``dim`` names (``1``, ``-1``, ``[2]``), normalised; None otherwise."""
    if isinstance(dim, (list, tuple)) and len(dim) == 1:
        dim = dim[0]
    if not isinstance(dim, int) or isinstance(dim, bool) or not -rank <= dim < rank:
        return None
    return dim % rank


def other_axis(dim: Any, rank: int) -> int | None:
    """The one dim ``dim`` names, normalised, when it is not the last: the kernel's row then
    walks that dim (``kernel._axis_op``)."""
    d = one_dim(dim, rank)
    return d if d != rank - 1 else None


class Collapsing(OpDef):
    """``op(x, dim, keepdim)``: attrs ``dims`` (trailing dims reduced), ``keepdim`` and, for
    one other dim, ``axis``."""

    needs_row = True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "dim", "keepdim", "dtype"],
                 {"dim": None, "keepdim": False, "dtype": None})  # fmt: skip
        k = trailing(b["dim"], rank) if b is not None else None
        axis = other_axis(b["dim"], rank) if b is not None and k is None else None
        if b is None or (k is None and axis is None) or b["dtype"] is not None:
            return f"{self.name} over several dims other than the trailing ones"
        attrs = {"keepdim": bool(b["keepdim"]), "dims": k or 1}
        return self.op([b["input"]], attrs | ({} if axis is None else {"axis": axis}))

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x, keep = operand_dims(shapes, op), op.attrs["keepdim"]
        if "axis" in op.attrs:  # over one other dim
            a = op.attrs["axis"]
            return x[:a] + ([lit(1, shapes.n)] if keep else []) + x[a + 1 :]
        k = op.attrs["dims"]  # over the last ``dims`` dims
        return x[:-k] + ([lit(1, shapes.n)] * k if keep else [])

    def reduction(self, op: Op) -> Reduction | None:
        return Reduction(True, op.attrs["dims"], op.attrs.get("axis"), op.attrs["keepdim"])

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        v = b.on_tile(b.value(op.args[0], b.reduced_map(node, m)))
        return b.round(self.combine(b, op, v), node)

    def combine(self, b: Builder, op: Op, v: Expr) -> Expr:
        """The IR pattern: ``v`` along the row to one value per row (``[BLOCK_M, 1]``)."""
        raise NotImplementedError(self.name)


def row_sum(b: Builder, v: Expr) -> Expr:
    """The row's sum, padded columns masked out with 0."""
    return b.let(Reduce("sum", where(b.name("cmask"), v, 0.0)))


@register
class Sum(Collapsing):
    name, targets = "sum", ("torch.sum", "Tensor.sum")

    def combine(self, b: Builder, op: Op, v: Expr) -> Expr:
        return row_sum(b, v)


@register
class Mean(Collapsing):
    """The sum, then eager's division: on CUDA ``sum * float32(1 / n)`` (its MeanOps), on CPU
    ``sum / n`` (the ``_mean`` helper, by ``EAGER_CUDA``)."""

    name = "mean"
    targets: ClassVar[tuple[str, ...]] = ("torch.mean", "Tensor.mean")

    def combine(self, b: Builder, op: Op, v: Expr) -> Expr:
        n = b.dim(b.domain[-1])
        return b.let(b.helper("_mean", row_sum(b, v), n, b.eager_cuda))


@register
class AdaptiveAvgPool(Mean):
    """``adaptive_avg_pool2d(x, 1)``: eager computes ``x.mean((-1, -2), keepdim=True)``."""

    name, targets = "adaptive_avg_pool2d", (F + "adaptive_avg_pool2d",)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "output_size"], {})
        if b is None or rank not in (3, 4) or b["output_size"] not in (1, (1, 1), [1, 1]):
            return "adaptive_avg_pool2d to other than 1 x 1"
        return self.op([b["input"]], {"keepdim": True, "dims": 2})
