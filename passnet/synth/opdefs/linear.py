"""``F.linear(x, weight[, bias])`` as a ``tl.dot`` of the row tile with the transposed weight.

``_dot`` in the module: float32 at float32 accuracy as three TF32 products on tensor cores,
since eager's float32 linear uses no TF32; float16 on tensor cores, bfloat16 as IEEE float32
products, both exact in float32; accumulated in float32 as cuBLAS does. The bias is added
before the one rounding to the output dtype. The output features must be the kernel's row;
an input row of another length is loaded with its own column range, a computed one must
share the kernel's row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torch.fx import Node

from passnet.synth.ir import COL, Const, Expr, Index, Int, List, Load, call, cmp, conj, where
from passnet.synth.op_model import F, Op, bind
from passnet.synth.registry import OpDef, register
from passnet.synth.shapes import Dim, Shapes, Unfusable

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map

MAX_WEIGHT_TILE = 16384
"""Most elements of the [K, N] weight tile one program holds (64 KiB in float32): beyond
it the whole weight no longer fits one program's registers and a GEMM's tiling wins."""


def _pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _constant(b: Builder, d: Dim) -> int | None:
    """A size that is the same in every variant (guarded in the wrapper), else None."""
    if d.literal is not None:
        return d.literal
    if len(set(d.vals)) != 1:
        return None
    b.shapes.guard(cmp("==", d.expr, d.vals[0]))
    return d.vals[0]


@register
class Linear(OpDef):
    name, targets, needs_row = "linear", (F + "linear",), True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "weight", "bias"], {"bias": None})
        if (
            b is None
            or not isinstance(b["weight"], Node)
            or not (b["bias"] is None or isinstance(b["bias"], Node))
        ):
            return "linear with unexpected arguments"
        return self.op([b["input"], b["weight"], b["bias"]])

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x, w, bias = shapes.dims[op.args[0]], shapes.dims[op.args[1]], op.args[2]
        if len(w) != 2 or not x or not shapes.equal(x[-1], w[1]):
            raise Unfusable("linear's weight is not [out, in] over the input's last dim")
        if bias is not None and not (
            len(shapes.dims[bias]) == 1 and shapes.equal(shapes.dims[bias][0], w[0])
        ):
            raise Unfusable("linear's bias is not one value per output feature")
        return x[:-1] + [w[0]]

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        """``x @ weight.T + bias`` for the rows at ``m``: the [BLOCK_M, K] row tile times the
        [K, BLOCK_N] transposed weight."""
        x, w, bias = op.args
        cols = b.name("cols", COL)
        if b.mode != "row" or m[-1] != cols or any(b.on_cols(t) for t in m[:-1]):
            raise Unfusable(f"linear '{node.name}' is needed other than along its output features")
        n_dim, k_dim = b.shapes.dims[w]
        if not b.shapes.equal(n_dim, b.domain[-1]):
            raise Unfusable(f"linear '{node.name}': its output features are not the kernel's row")
        n_out, k_in = _constant(b, n_dim), _constant(b, k_dim)
        if n_out is None or k_in is None or min(n_out, k_in) < 16:
            raise Unfusable(f"linear '{node.name}': tl.dot needs constant sizes of 16 or more")
        if _pow2(n_out) * _pow2(k_in) > MAX_WEIGHT_TILE:
            raise Unfusable(f"linear '{node.name}': a {n_out}x{k_in} weight is no single tile "
                            "(a GEMM library's tiling is the better kernel)")  # fmt: skip
        if w not in b.index or (bias is not None and bias not in b.index):
            raise Unfusable(f"linear '{node.name}' of a computed weight or bias")
        rows = m[:-1]

        def zeros(width: Expr) -> Expr:
            return call("tl.zeros", List((b.name("BLOCK_M"), width)), Const("tl.float32"))

        if x in b.index:  # an input: its own K columns, masked at K
            j, bk = b.index[x], _pow2(k_in)
            kc = b.let(Index(call("tl.arange", 0, bk), "None, :"))
            terms = [t * b.stride(j, d) for d, t in enumerate(rows) if t != Int(0)]
            terms.append(kc * b.stride(j, len(rows)))
            off = b.let(conj("+", terms))  # type: ignore[arg-type]
            load = Load(b.pointer(j) + off, b.name("rmask") & cmp("<", kc, k_in), Const("0.0"))
            xt = b.let(load.to(Const("tl.float32")) + zeros(Int(bk)))
            kr = b.let(Index(call("tl.arange", 0, bk), ":, None"))
        else:  # computed on the kernel's row: K must be the row's length
            if not b.shapes.equal(k_dim, b.domain[-1]):
                raise Unfusable(f"linear '{node.name}' of a computed input longer than its output")
            v = b.value(x, rows + (cols,))
            xt = b.let(where(b.name("mask"), v + zeros(b.name("BLOCK_N")), 0.0))
            kr = b.let(Index(call("tl.arange", 0, b.name("BLOCK_N")), ":, None"))
        jw = b.index[w]
        address = b.pointer(jw) + cols * b.stride(jw, 0) + kr * b.stride(jw, 1)
        wt = b.let(Load(address, b.name("cmask") & cmp("<", kr, k_in), Const("0.0"))
                   .to(Const("tl.float32")))  # fmt: skip
        dt = b.shapes.dtypes[w]
        if dt.index is not None:
            b.pointers.add(dt.index)
        y = b.let(b.helper("_dot", xt, wt, dt.triton()))
        if bias is not None:
            y = b.let(y + b.value(bias, (cols,)))
        return b.round(y, node)
