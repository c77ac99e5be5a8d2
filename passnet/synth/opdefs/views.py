"""Views: ops that move data without arithmetic, pure index arithmetic in the kernel.

``reshape`` (view, reshape with -1, flatten, reshape_as, view_as), ``permute``/``transpose``,
``unsqueeze``, ``squeeze(dim)``, ``getitem`` (ints, unit-step slices, None, Ellipsis) and
``expand``/``expand_as``. Each reads its operand at the coordinates its own element comes
from (:meth:`~passnet.synth.registry.OpDef.source`); eager launches nothing for them unless a
reshape's recorded layout makes it copy (``attrs["copy"]``, ``graph._copies``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import torch
from torch.fx import Node

from passnet.passes.calls import call_name
from passnet.synth.ir import Bound, Expr, Int, SizeOp, cmp
from passnet.synth.op_model import Op, bind, varargs
from passnet.synth.registry import OpDef, Step, lookup, operand_dims, register
from passnet.synth.shapes import (
    Dim,
    Shapes,
    Unfusable,
    expand_to,
    lit,
    minus,
    prod,
    ratio,
)

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map


class View(OpDef):
    is_view = True

    def exact_on_integers(self, op: Op) -> bool:
        return True

    def moves_values(self, op: Op) -> bool:
        return True


@register
class Reshape(View):
    """``view``/``reshape`` to literal sizes (one -1), ``reshape_as``/``view_as`` (the other
    tensor's shape only, never its data): coordinates raveled over the view's dims and
    unraveled over the source's, common leading and trailing dims kept."""

    name = "reshape"
    targets: ClassVar[tuple[str, ...]] = ("Tensor.view", "Tensor.reshape", "torch.reshape", "Tensor.reshape_as",
               "Tensor.view_as")  # fmt: skip
    may_copy = moves_layout = folds_into_reshape = True

    def free(self, op: Op, label: str, value: Any) -> tuple[Any, str] | None:
        """A generic rule binds the sizes at run time: each size given as its own argument
        (``view(-1, 128)``: the 128; a -1 stays, it is the size the kernel works out), or a
        whole shape given as one (``reshape((2, -1))``: the wrapper checks its -1 stays)."""
        if "shape" not in op.attrs:
            return None
        if label.isdigit() and type(value) is int and value != -1:
            return ("shape", int(label) - 1), "size"
        if isinstance(value, (tuple, list)) and all(type(v) is int for v in value):
            return ("shape", None), "shape"
        return None

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        if key in ("Tensor.reshape_as", "Tensor.view_as"):
            b = bind(node, ["input", "other"], {})
            if b is None or not isinstance(b["other"], Node):
                return f"{key.split('.')[-1]} without a tensor"
            return self.op([b["input"]], {"like": b["other"]})
        shape = varargs(node)
        if shape is None:
            return f"{key.split('.')[-1]} to a computed shape"
        return self.op([node.args[0]], {"shape": shape})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        src, n = operand_dims(shapes, op), shapes.n
        if "flatten" in op.attrs:
            start, end = op.attrs["flatten"]
            if not src:
                return [lit(1, n)]
            return src[:start] + [prod(src[start : end + 1], n)] + src[end + 1 :]
        if "like" in op.attrs:  # reshape_as / view_as: the other tensor's shape
            like = shapes.dims[op.attrs["like"]]
            if not shapes.equal(prod(src, n), prod(like, n)):
                raise Unfusable("reshape_as to a shape of another size")
            return list(like)
        wanted = op.attrs["shape"]
        sizes = [self._size(shapes, node, i, v) for i, v in enumerate(wanted)]
        known = [d for d in sizes if d is not None]
        if wanted.count(-1) > 1:
            raise Unfusable("reshape with two -1 dims")
        out = []
        for d in sizes:
            if d is not None:
                out.append(d)
                continue
            whole, rest = prod(src, n), prod(known, n)
            vals = tuple(t // max(r, 1) for t, r in zip(whole.vals, rest.vals, strict=True))
            if whole.literal is not None and rest.literal is not None:
                out.append(lit(whole.literal // max(rest.literal, 1), n))
            elif rest.literal == 1:
                out.append(whole)
            else:
                out.append(ratio(whole, rest, vals))
        return out

    def _size(self, shapes: Shapes, node: Node, i: int, v: int) -> Dim | None:
        """Size ``i`` of the view (None: the -1), free where a generic rule binds it."""
        whole = shapes.freed(node, ("shape", None))
        keyword = whole or shapes.freed(node, ("shape", i))
        if keyword is not None and whole and v == -1:
            shapes.guard(cmp("==", Bound(keyword, i), -1))
        if v == -1:
            return None
        return (
            lit(v, shapes.n) if keyword is None else shapes.bound_dim(keyword, i if whole else None)
        )

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        x = op.args[0]
        while b.passable(x):  # reshape(reshape(y)) is one reshape of y
            x = b.ops[x].args[0]
        return x, b.reshape(m, b.shapes.dims[node], b.shapes.dims[x])

    def forward(self, b: Builder, op: Op, m: Map, src: list[Dim], dst: list[Dim]) -> Map:
        return b.reshape(m, src, dst)

    def alias_step(self, node: Node, op: Op, shapes: Shapes) -> Step | None:
        return ("view", tuple(shapes.dims[node]))


@register
class Flatten(Reshape):
    name, targets = "flatten", ("Tensor.flatten", "torch.flatten")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "start_dim", "end_dim"], {"start_dim": 0, "end_dim": -1})
        if b is None:
            return "flatten with unexpected arguments"
        start, end = b["start_dim"] % max(rank, 1), b["end_dim"] % max(rank, 1)
        return self.op([b["input"]], {"flatten": (start, end)})


@register
class Permute(View):
    name, targets, moves_layout = "permute", ("Tensor.permute", "torch.permute"), True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        dims = varargs(node) if key.startswith("Tensor") else _varargs_fn(node)
        if dims is None or sorted(d % rank for d in dims) != list(range(rank)):
            return "permute with unexpected dims"
        return self.op([node.args[0]], {"perm": [d % rank for d in dims]})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x = operand_dims(shapes, op)
        return [x[p] for p in op.attrs["perm"]]

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        src: list[Expr] = [Int(0)] * len(m)
        for i, p in enumerate(op.attrs["perm"]):
            src[p] = m[i]
        return op.args[0], tuple(src)

    def forward(self, b: Builder, op: Op, m: Map, src: list[Dim], dst: list[Dim]) -> Map:
        return tuple(m[p] for p in op.attrs["perm"])

    def alias_step(self, node: Node, op: Op, shapes: Shapes) -> Step | None:
        return ("permute", tuple(op.attrs["perm"]))


@register
class Transpose(Permute):
    name, targets = "transpose", ("Tensor.transpose", "torch.transpose")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "dim0", "dim1"], {})
        if b is None:
            return "transpose with unexpected arguments"
        perm = list(range(rank))
        a, c = b["dim0"] % rank, b["dim1"] % rank
        perm[a], perm[c] = perm[c], perm[a]
        return self.op([b["input"]], {"perm": perm})


class _OneDim(View):
    """unsqueeze / squeeze: one dim named, normalised to the result's (unsqueeze) or the
    operand's (squeeze) rank."""

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "dim"], {})
        if b is None or not isinstance(b["dim"], int):
            return f"{self.name} without one dim"
        out_rank = rank + 1 if self.name == "unsqueeze" else rank
        return self.op([b["input"]], {"dim": b["dim"] % out_rank})

    def alias_step(self, node: Node, op: Op, shapes: Shapes) -> Step | None:
        return (self.name, op.attrs["dim"])


@register
class Unsqueeze(_OneDim):
    name, targets = "unsqueeze", ("Tensor.unsqueeze", "torch.unsqueeze")

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x, d = operand_dims(shapes, op), op.attrs["dim"]
        return x[:d] + [lit(1, shapes.n)] + x[d:]

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        d = op.attrs["dim"]
        return op.args[0], m[:d] + m[d + 1 :]


@register
class Squeeze(_OneDim):
    name, targets = "squeeze", ("Tensor.squeeze", "torch.squeeze")

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x, d = operand_dims(shapes, op), op.attrs["dim"]
        if d >= len(x) or not x[d].all_one():
            if d < len(x) and any(v == 1 for v in x[d].vals):
                raise Unfusable("squeeze of a dim that is 1 in some variants only")
            return list(x)
        if x[d].literal is None:
            shapes.guard(cmp("==", x[d].expr, 1))
        return x[:d] + x[d + 1 :]

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        d, x = op.attrs["dim"], op.args[0]
        same = len(b.shapes.dims[x]) == len(b.shapes.dims[node])
        return x, m if same else m[:d] + (Int(0),) + m[d:]


@register
class Getitem(View):
    """Basic indexing (ints, unit-step slices, None, ...) with Ellipsis expanded and every dim
    of the source named, so the kernel maps coordinates item by item."""

    name, targets = "getitem", ("operator.getitem",)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        src = node.args[0] if len(node.args) == 2 else None
        if isinstance(src, Node) and (split := lookup(call_name(src))) is not None and split.parts:
            return split.piece(src, node.args[1])  # a piece of a chunk: a slice of its operand
        index = node.args[1] if len(node.args) == 2 else None
        items = list(index) if isinstance(index, tuple) else [index]
        if any(isinstance(i, Node) or isinstance(i, (list, torch.Tensor)) for i in items):
            return "getitem with tensor indices"
        for i in items:
            if isinstance(i, slice) and not (i.step in (None, 1) and all(
                    v is None or (isinstance(v, int) and not isinstance(v, bool))
                    for v in (i.start, i.stop))):  # fmt: skip
                return "getitem with a step or computed bounds"
            if not (i is None or i is Ellipsis or isinstance(i, slice) or (
                    isinstance(i, int) and not isinstance(i, bool))):  # fmt: skip
                return "getitem with unexpected index"
        used = sum(1 for i in items if i is not None and i is not Ellipsis)
        if items.count(Ellipsis) > 1 or used > rank:
            return "getitem with unexpected index"
        full = slice(None, None, None)
        if Ellipsis in items:
            at = items.index(Ellipsis)
            items[at : at + 1] = [full] * (rank - used)
        else:
            items += [full] * (rank - used)
        return self.op([node.args[0]], {"index": items})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        src, out, k = operand_dims(shapes, op), [], 0
        for item in op.attrs["index"]:
            if item is None:
                out.append(lit(1, shapes.n))
                continue
            d = src[k]
            k += 1
            if isinstance(item, int):
                continue
            zero = lit(0, shapes.n)
            start, stop = _bound(shapes, d, item.start, zero), _bound(shapes, d, item.stop, d)
            if start.literal == 0:
                out.append(stop)
            elif start.literal is not None and stop.literal is not None:
                out.append(lit(max(0, stop.literal - start.literal), shapes.n))
            else:
                vals = tuple(max(0, c - a) for a, c in zip(start.vals, stop.vals, strict=True))
                out.append(Dim(SizeOp("-", (stop.expr, start.expr)), vals))
        return out

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        """Coordinates in ``x`` of element ``m`` of ``x[index]``."""
        x = op.args[0]
        src, i = b.shapes.dims[x], 0  # i: position in m
        res: list = []
        for item in op.attrs["index"]:
            d = src[len(res)] if len(res) < len(src) else None
            if item is None:
                i += 1
            elif isinstance(item, int):
                res.append(Int(item) if item >= 0 else b.let(b.dim(d) - -item))  # type: ignore[arg-type]
            else:
                start = item.start or 0
                first = Int(start) if start >= 0 else b.let(b.dim(d) - -start)  # type: ignore[arg-type]
                res.append(m[i] if first == Int(0) else b.let(m[i] + first))
                i += 1
        return x, tuple(res)


def _bound(shapes: Shapes, d: Dim, v: int | None, default: Dim) -> Dim:
    """A slice bound as a dim: clamped into [0, d] the way every variant clamps it."""
    if v is None:
        return default
    if v < 0:
        if not all(x >= -v for x in d.vals):
            raise Unfusable("getitem bound beyond a dim")
        if d.literal is None:
            shapes.guard(cmp(">=", d.expr, -v))
        return (
            lit(d.literal + v, shapes.n)
            if d.literal is not None
            else Dim(minus(d.expr, -v), tuple(x + v for x in d.vals))
        )
    if all(x >= v for x in d.vals):
        if d.literal is None:
            shapes.guard(cmp(">=", d.expr, v))
        return lit(v, shapes.n)
    if all(x <= v for x in d.vals):
        if d.literal is None:
            shapes.guard(cmp("<=", d.expr, v))
        return d
    raise Unfusable("getitem bound inside some variants' dims and beyond others'")


@register
class Expand(View):
    """``expand(sizes)`` (new leading dims take their literal size, -1 keeps a dim, a size-1
    dim broadcasts) and ``expand_as`` (the other tensor's shape only)."""

    name, targets = "expand", ("Tensor.expand", "Tensor.expand_as")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        if key == "Tensor.expand_as":
            b = bind(node, ["input", "other"], {})
            if b is None or not isinstance(b["other"], Node):
                return "expand_as without a tensor"
            return self.op([b["input"]], {"like": b["other"]})
        sizes = varargs(node)
        if sizes is None or len(sizes) < rank:
            return "expand to a computed shape"
        return self.op([node.args[0]], {"sizes": sizes})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        src = operand_dims(shapes, op)
        if "like" in op.attrs:
            return expand_to(shapes, src, shapes.dims[op.attrs["like"]], "expand_as")
        sizes: list[int] = op.attrs["sizes"]
        new = len(sizes) - len(src)
        if any(v < 0 for v in sizes[:new]):
            raise Unfusable("expand with -1 for a new dim")
        target = [lit(v, shapes.n) for v in sizes[:new]]
        target += [d if v == -1 else lit(v, shapes.n)
                   for d, v in zip(src, sizes[new:], strict=True)]  # fmt: skip
        return expand_to(shapes, src, target, "expand")

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        """New leading dims dropped, broadcast dims at 0."""
        x, dims = op.args[0], b.shapes.dims[node]
        src_dims = b.shapes.dims[x]
        k = len(m) - len(src_dims)
        return x, tuple(Int(0) if d.all_one() and not dims[k + i].all_one()
                        else m[k + i] for i, d in enumerate(src_dims))  # fmt: skip


def _varargs_fn(node: Node) -> list[Any] | None:
    dims = node.args[1] if len(node.args) == 2 else node.kwargs.get("dims")
    return list(dims) if isinstance(dims, (tuple, list)) else None
