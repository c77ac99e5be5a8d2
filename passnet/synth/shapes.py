"""Symbolic shapes and dtypes of a fused group, valid for every variant that shares its pattern.

A dim is a Python expression over the replacement's input shapes (``s0[2]``, ``128``,
``(s1[0] * s1[1]) // 16``) plus its value in each analysed variant. The wrapper evaluates the
expressions at run time, so no shape is baked in that the pattern's literals do not fix.
Where the kernel relies on two dims being equal (a reshape keeping its last dim, a size-1 dim
that broadcasts) and only the recorded variants say so, the fact becomes a *guard*: the
wrapper checks it and raises instead of computing garbage on a shape nobody analysed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import torch
from torch.fx import Node

from passnet.synth.ops import Op

TL_DTYPE = {torch.float32: "tl.float32", torch.float16: "tl.float16",
            torch.bfloat16: "tl.bfloat16", torch.int64: "tl.int64",
            torch.int32: "tl.int32"}  # fmt: skip


class Unfusable(Exception):
    """The group cannot become one kernel; the message is the reason shown to the user."""


@dataclass(frozen=True)
class Dim:
    """One size: ``expr`` over the wrapper's ``s{j}`` shape tuples, ``vals`` per variant."""

    expr: str
    vals: tuple[int, ...]

    @property
    def literal(self) -> int | None:
        return int(self.expr) if self.expr.isdigit() else None

    def all_one(self) -> bool:
        return all(v == 1 for v in self.vals)


def lit(value: int, n: int) -> Dim:
    return Dim(str(value), (value,) * n)


def prod(dims: list[Dim], n: int) -> Dim:
    """Product with literals folded (``s0[0] * s0[1] * 64``)."""
    const, terms = 1, []
    for d in dims:
        if d.literal is not None:
            const *= d.literal
        else:
            terms.append(atom(d.expr))
    vals = tuple(_mul([d.vals[k] for d in dims]) for k in range(n))
    if not terms:
        return lit(const, n)
    if const != 1:
        terms.append(str(const))
    return Dim(" * ".join(terms), vals)


MAX_ROW = 32768  # the longest row a row-mode kernel loads into one tile


def grouped(dims: list[Dim], groups: int) -> bool:
    """Whether a group norm over ``dims`` walks whole groups as its row ([N, G, C / G * S]),
    not one channel's last dim ([N, C, L] with a group per channel, the plain row)."""
    return len(dims) != 3 or any(v != groups for v in dims[1].vals)


def group_rows(dims: list[Dim], groups: int, n: int) -> list[Dim]:
    """[N, C, *S] as [N, G, C / G * prod(S)]: the row of a group norm with ``groups`` groups
    (a contiguous reshape: each group's channels and positions are one run of elements)."""
    rest = prod(dims[1:], n)
    size = Dim(f"{atom(rest.expr)} // {groups}", tuple(v // groups for v in rest.vals))
    return [dims[0], lit(groups, n), size]


def merge_trailing(dims: list[Dim], k: int, n: int) -> list[Dim]:
    """``dims`` with its last ``k`` merged into one (their product): the row a reduction over
    the trailing dims walks."""
    return list(dims) if k == 1 else dims[:-k] + [prod(dims[-k:], n)]


def total(dims: list[Dim], n: int) -> Dim:
    """Sum with literals folded (``s0[3] + s1[3] + 8``): a concatenation's size or offset."""
    const = sum(d.literal for d in dims if d.literal is not None)
    terms = [atom(d.expr) for d in dims if d.literal is None]
    vals = tuple(sum(d.vals[k] for d in dims) for k in range(n))
    if not terms:
        return lit(const, n)
    return Dim(" + ".join(terms + ([str(const)] if const else [])), vals)


def _cat(shapes: Shapes, op: Op) -> list[Dim]:
    """Operands of one rank, equal but for ``dim``, each at least 1 there (the kernel clamps
    a coordinate into every operand, so none may be empty)."""
    parts = [shapes.dims[a] for a in op.args]
    d = op.attrs["dim"]
    if len({len(p) for p in parts}) != 1:
        raise Unfusable("cat of tensors of different ranks")
    for p in parts[1:]:
        for i, (a, b) in enumerate(zip(parts[0], p, strict=True)):
            if i != d and not shapes.equal(a, b):
                raise Unfusable("cat of tensors whose other dims differ")
    if any(0 in p[d].vals for p in parts):
        raise Unfusable("cat of an empty tensor")
    return parts[0][:d] + [total([p[d] for p in parts], shapes.n)] + parts[0][d + 1 :]


def _expand(shapes: Shapes, src: list[Dim], sizes: list[int]) -> list[Dim]:
    """New leading dims take their literal size; -1 keeps a dim; a size-1 dim broadcasts."""
    new = len(sizes) - len(src)
    if any(v < 0 for v in sizes[:new]):
        raise Unfusable("expand with -1 for a new dim")
    target = [lit(v, shapes.n) for v in sizes[:new]]
    target += [d if v == -1 else lit(v, shapes.n) for d, v in zip(src, sizes[new:], strict=True)]
    return _expand_to(shapes, src, target, "expand")


def _expand_to(shapes: Shapes, src: list[Dim], target: list[Dim], what: str) -> list[Dim]:
    """``src`` broadcast to ``target`` (``expand`` or ``expand_as``): new leading dims are the
    target's, a dim equal to the target's stays, a size-1 dim takes the target's."""
    new = len(target) - len(src)
    if new < 0:
        raise Unfusable(f"{what} to fewer dims")
    out = list(target[:new])
    for d, t in zip(src, target[new:], strict=True):
        if t is d or (d.literal is not None and d.literal == t.literal):
            out.append(d)
        elif d.all_one():
            if d.literal is None:
                shapes.guard(f"{d.expr} == 1")
            out.append(t)
        elif shapes.equal(d, t):
            out.append(d)
        else:
            raise Unfusable(f"{what} of a dim that is not 1")
    return out


def atom(expr: str) -> str:
    """``expr`` safe to use as an operand of ``*`` (``a // b`` binds like ``*``)."""
    simple = expr.replace("_", "").replace("[", "").replace("]", "").isalnum()
    call = expr.startswith("max(") and expr.endswith(")") and expr.count("(") == 1
    return expr if simple or call else f"({expr})"


def _mul(values: list[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


@dataclass(frozen=True)
class DType:
    """A node's dtype: a literal (``.float()``) or that of replacement input ``index``."""

    literal: torch.dtype | None
    index: int | None
    vals: tuple[torch.dtype, ...]

    def python(self) -> str:
        return str(self.literal) if self.literal is not None else f"in{self.index}.dtype"

    def triton(self) -> str:
        if self.literal is not None:
            return TL_DTYPE[self.literal]
        return f"x{self.index}.dtype.element_ty"


@dataclass
class Shapes:
    """Dims and dtypes of every input and node of one group, plus the guards they need."""

    n: int  # number of variants analysed
    dims: dict[Node, list[Dim]] = field(default_factory=dict)
    dtypes: dict[Node, DType] = field(default_factory=dict)
    guards: list[str] = field(default_factory=list)

    def equal(self, a: Dim, b: Dim) -> bool:
        """Same size in every variant; a guard when the expressions alone do not say so."""
        if a.expr == b.expr:
            return True
        if a.vals != b.vals:
            return False
        if a.literal is None or b.literal is None:
            self.guard(f"{a.expr} == {b.expr}")
        return True

    def guard(self, text: str) -> None:
        if text not in self.guards:
            self.guards.append(text)

    def numel(self, node: Node) -> Dim:
        return prod(self.dims[node], self.n)


def _broadcast(shapes: Shapes, operands: list[list[Dim]]) -> list[Dim]:
    rank = max(len(s) for s in operands)
    out = []
    for i in range(rank):
        cands = [s[len(s) - rank + i] for s in operands if len(s) - rank + i >= 0]
        real = [d for d in cands if d.literal != 1]
        exprs = list(dict.fromkeys(d.expr for d in real))
        fixed = {d.literal for d in real if d.literal is not None}
        if not real:
            out.append(lit(1, shapes.n))
        elif fixed:  # a literal size other than 1: the others are 1 or equal to it
            out.append(lit(fixed.pop(), shapes.n))
        elif len(exprs) == 1:
            out.append(real[0])
        else:
            vals = tuple(max(d.vals[k] for d in real) for k in range(shapes.n))
            out.append(Dim(f"max({', '.join(exprs)})", vals))
    return out


def _reshape(shapes: Shapes, src: list[Dim], op: Op) -> list[Dim]:
    n = shapes.n
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
    known = [lit(v, n) for v in wanted if v != -1]
    if wanted.count(-1) > 1:
        raise Unfusable("reshape with two -1 dims")
    out = []
    for v in wanted:
        if v != -1:
            out.append(lit(v, n))
            continue
        total, rest = prod(src, n), prod(known, n)
        vals = tuple(t // max(r, 1) for t, r in zip(total.vals, rest.vals, strict=True))
        if total.literal is not None and rest.literal is not None:
            out.append(lit(total.literal // max(rest.literal, 1), n))
        elif rest.literal == 1:
            out.append(total)
        else:
            out.append(Dim(f"{atom(total.expr)} // {atom(rest.expr)}", vals))
    return out


def _bound(shapes: Shapes, d: Dim, v: int | None, default: Dim) -> Dim:
    """A slice bound as a dim: clamped into [0, d] the way every variant clamps it."""
    if v is None:
        return default
    if v < 0:
        if not all(x >= -v for x in d.vals):
            raise Unfusable("getitem bound beyond a dim")
        if d.literal is None:
            shapes.guard(f"{d.expr} >= {-v}")
        return (
            lit(d.literal + v, shapes.n)
            if d.literal is not None
            else Dim(f"{d.expr} - {-v}", tuple(x + v for x in d.vals))
        )
    if all(x >= v for x in d.vals):
        if d.literal is None:
            shapes.guard(f"{d.expr} >= {v}")
        return lit(v, shapes.n)
    if all(x <= v for x in d.vals):
        if d.literal is None:
            shapes.guard(f"{d.expr} <= {v}")
        return d
    raise Unfusable("getitem bound inside some variants' dims and beyond others'")


def _getitem(shapes: Shapes, src: list[Dim], items: list) -> list[Dim]:
    out, k = [], 0
    for item in items:
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
            vals = tuple(max(0, b - a) for a, b in zip(start.vals, stop.vals, strict=True))
            out.append(Dim(f"{atom(stop.expr)} - {atom(start.expr)}", vals))
    return out


def _pooled(size: Dim, op: Op, i: int, n: int) -> Dim:
    """A pooled dim's size, as ATen's ``pooling_output_shape`` computes it."""
    k, s = op.attrs["kernel"][i], op.attrs["stride"][i]
    p, d, ceil = op.attrs["padding"][i], op.attrs["dilation"][i], op.attrs["ceil_mode"]
    extra = 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)

    def out(v: int) -> int:
        o = (v + extra) // s + 1
        return o - 1 if ceil and (o - 1) * s >= v + p else o

    vals = tuple(out(v) for v in size.vals)
    if any(v < 1 for v in vals):
        raise Unfusable("max_pool2d's window is larger than its padded input")
    if size.literal is not None:
        return lit(vals[0], n)
    o = f"(({atom(size.expr)} + {extra}) // {s} + 1)"
    return Dim(f"({o} - (({o} - 1) * {s} >= {atom(size.expr)} + {p}))" if ceil else o, vals)


def infer_node(shapes: Shapes, node: Node, op: Op) -> list[Dim]:
    """The node's dims from its operands' (rules of the supported ops)."""
    x = shapes.dims[op.args[0]] if isinstance(op.args[0], Node) else []
    kind = op.kind
    if kind == "pw" and op.name == "const":
        return []
    if kind == "fill":
        return [lit(v, shapes.n) for v in op.attrs["sizes"]]
    if kind == "pw":
        return _broadcast(shapes, [shapes.dims[a] for a in op.args if isinstance(a, Node)])
    if kind == "ln":  # normalized_shape is a literal: the row length becomes a constant
        size = lit(op.attrs["size"], shapes.n)
        if not x or not shapes.equal(x[-1], size):
            raise Unfusable("layer_norm's normalized_shape differs from the input's last dim")
        return x[:-1] + [size]
    if kind == "linear":
        w = shapes.dims[op.args[1]]
        if len(w) != 2 or not x or not shapes.equal(x[-1], w[1]):
            raise Unfusable("linear's weight is not [out, in] over the input's last dim")
        bias = op.args[2]
        if bias is not None and not (
            len(shapes.dims[bias]) == 1 and shapes.equal(shapes.dims[bias][0], w[0])
        ):
            raise Unfusable("linear's bias is not one value per output feature")
        return x[:-1] + [w[0]]
    if kind == "gather" and "dim" in op.attrs:  # index_select: that dim's slices by index
        idx, d = shapes.dims[op.args[1]], op.attrs["dim"]
        if len(idx) != 1:
            raise Unfusable("index_select's index is not one-dimensional")
        return x[:d] + [idx[0]] + x[d + 1 :]
    if kind == "gather":  # embedding: one weight row per index
        if len(x) != 2:
            raise Unfusable("embedding's weight is not [rows, features]")
        return list(shapes.dims[op.args[1]]) + [x[1]]
    if kind == "interp":
        if all(x[-2 + i].vals == (op.attrs["size"][i],) * shapes.n for i in range(2)):
            raise Unfusable("interpolate to the input's own size (eager copies)")
        return x[:-2] + [lit(v, shapes.n) for v in op.attrs["size"]]
    if kind == "maxpool":
        return x[:-2] + [_pooled(x[-2 + i], op, i, shapes.n) for i in range(2)]
    if kind in ("cast", "id", "bn", "gn", "softmax", "normalize", "prelu"):
        return list(x)
    if kind in ("mean", "sum") and "axis" in op.attrs:  # over one other dim
        a = op.attrs["axis"]
        return x[:a] + ([lit(1, shapes.n)] if op.attrs["keepdim"] else []) + x[a + 1 :]
    if kind in ("mean", "sum"):  # over the last ``dims`` dims
        k = op.attrs["dims"]
        return x[:-k] + ([lit(1, shapes.n)] * k if op.attrs["keepdim"] else [])
    if kind == "reshape":
        return _reshape(shapes, x, op)
    if kind == "permute":
        return [x[p] for p in op.attrs["perm"]]
    if kind == "getitem":
        return _getitem(shapes, x, op.attrs["index"])
    if kind == "cat":
        return _cat(shapes, op)
    if kind == "expand" and "like" in op.attrs:
        return _expand_to(shapes, x, shapes.dims[op.attrs["like"]], "expand_as")
    if kind == "expand":
        return _expand(shapes, x, op.attrs["sizes"])
    if kind == "unsqueeze":
        d = op.attrs["dim"]
        return x[:d] + [lit(1, shapes.n)] + x[d:]
    if kind == "squeeze":
        d = op.attrs["dim"]
        if d >= len(x) or not x[d].all_one():
            if d < len(x) and any(v == 1 for v in x[d].vals):
                raise Unfusable("squeeze of a dim that is 1 in some variants only")
            return list(x)
        if x[d].literal is None:
            shapes.guard(f"{x[d].expr} == 1")
        return x[:d] + x[d + 1 :]
    raise Unfusable(f"no shape rule for {op.name}")


def infer_dtype(shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
    """The node's dtype as an expression; mixed operand dtypes become a guard or a reason."""
    if (op.kind == "cast" or op.name == "const") and "dtype" in op.attrs:
        return DType(op.attrs["dtype"], None, actual)
    if op.name == "masked_fill":  # the filled tensor's dtype; the mask is bool
        return shapes.dtypes[op.args[0]]  # type: ignore[index]
    if op.kind == "softmax" and op.attrs.get("dtype") is not None:
        return DType(op.attrs["dtype"], None, actual)
    if op.kind == "cast":
        like = shapes.dtypes[op.attrs["like"]]
        return DType(like.literal, like.index, actual)
    tensors = [shapes.dtypes[a] for a in op.args[:None if op.kind in ("pw", "cat") else 1]
               if isinstance(a, Node)]  # fmt: skip
    # Mixed dtypes promote as eager's do (bfloat16 * float32 is float32): the result takes the
    # dtype of the operand that wins in every variant, a guard saying it wins at run time too.
    promoted = tuple(functools.reduce(torch.promote_types, ds)
                     for ds in zip(*(t.vals for t in tensors), strict=True))  # fmt: skip
    first = next((t for t in tensors if t.vals == promoted), None)
    if first is None:
        raise Unfusable(f"{op.name} of tensors with different dtypes")
    for other in tensors:
        if other.python() == first.python():
            continue
        if other.vals == first.vals:
            shapes.guard(f"{first.python()} == {other.python()}")
        elif first.literal is not torch.float32:  # float32 wins over every float dtype
            shapes.guard(f"torch.promote_types({other.python()}, {first.python()}) == "
                         f"{first.python()}")  # fmt: skip
    return DType(first.literal, first.index, actual)
