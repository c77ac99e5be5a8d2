"""``matmul`` as a reduction along the kernel's row: each output element is the sum over K of
its row of ``a`` times its column of ``b``.

A phase computing a matmul walks the domain ``[*batch, M, N, K]``: one row per output
element, K its columns (:meth:`Matmul.row_domain`). That reads each element of ``a`` once
per output column and each of ``b`` once per output row, which is what a matrix-vector
product (M or N is 1: GCNet's context pooling, a softmax over positions times the features)
reads anyway, and cheap where K is shorter than ``tl.dot``'s smallest tile (16: attention
over 8-wide heads). Larger products are left to the GEMM library (cuBLAS), whose tiling
reads each element a few times only. Products are formed in float32 (exact for float16 and
bfloat16 operands) and summed in float32, rounded once to the dtype, as cuBLAS accumulates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch.fx import Node

from passnet.synth.ir import COL, Expr, Reduce, where
from passnet.synth.op_model import Op, Reduction, bind
from passnet.synth.registry import OpDef, register
from passnet.synth.shapes import Dim, DType, Shapes, Unfusable, broadcast, promote

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map

SHORT_K = 16
"""A matmul whose M and N both exceed 1 is lowered only for K below this (``tl.dot``'s
smallest tile side): each output then costs fewer loads than a tile would hold."""


@register
class Matmul(OpDef):
    """``torch.matmul`` / ``@`` / ``bmm`` of two tensors of rank 2 or more (batch dims
    broadcast), as a sum along the row."""

    name, needs_row = "matmul", True
    targets = ("torch.matmul", "Tensor.matmul", "operator.matmul", "torch.bmm", "Tensor.bmm")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "other"], {})
        if b is None or not all(isinstance(b[k], Node) for k in ("input", "other")) or rank < 2:
            return f"{key.rsplit('.', 1)[-1]} of a vector or of a constant"
        return self.op([b["input"], b["other"]])

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        a, b = (shapes.dims[x] for x in op.args)
        if len(b) < 2 or not shapes.equal(a[-1], b[-2]):
            raise Unfusable("matmul of a vector or of sizes that do not meet")
        m, n, k = a[-2], b[-1], a[-1]
        if not all(min(i, j) == 1 or kk < SHORT_K
                   for i, j, kk in zip(m.vals, n.vals, k.vals, strict=True)):  # fmt: skip
            raise Unfusable(f"matmul with M and N above 1 and K of {SHORT_K} or more (a GEMM "
                            "library's tiling is the better kernel)")  # fmt: skip
        return broadcast(shapes, [a[:-2], b[:-2]]) + [m, n]

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        return promote(shapes, op.name, [shapes.dtypes[x] for x in op.args], actual)

    def reduction(self, op: Op) -> Reduction | None:
        return Reduction(True)

    def row_domain(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        """One row per output element, K long."""
        return shapes.dims[node] + [shapes.dims[op.args[0]][-1]]

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        """The output at ``m``: ``a[*batch, i, cols] * b[*batch, cols, j]`` summed along the
        row (padded columns masked out)."""
        x, y = op.args
        if b.mode != "row" or any(b.on_cols(t) for t in m):
            raise Unfusable(f"matmul '{node.name}' is needed along the row it reduces")
        if not b.shapes.equal(b.shapes.dims[x][-1], b.domain[-1]):
            raise Unfusable(f"matmul '{node.name}' reduces dims of another size than the row")
        out, cols = b.shapes.dims[node], b.name("cols", COL)
        lhs = b.value(x, _batch(b, m, out, x) + (m[-2], cols))
        rhs = b.value(y, _batch(b, m, out, y) + (cols, m[-1]))
        prod = b.on_tile(b.let(lhs * rhs))
        total = b.let(Reduce("sum", where(b.name("cmask"), prod, 0.0)))
        return b.round(total, node)


def _batch(b: Builder, m: Map, out: list[Dim], x: Node) -> Map:
    """``x``'s batch coordinates for the output's at ``m`` (its last two dims are the matrix)."""
    return b.broadcast_dims(m, out[:-2], b.shapes.dims[x][:-2])
