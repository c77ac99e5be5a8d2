"""Symbolic shapes and dtypes of a fused group, valid for every variant that shares its pattern.

A dim is an expression over the replacement's input shapes (``s0[2]``, ``128``,
``(s1[0] * s1[1]) // 16``: an :mod:`~passnet.synth.ir` tree) plus its value in each analysed
variant. The wrapper evaluates the expressions at run time, so no shape is baked in that the
pattern's literals do not fix. Where the kernel relies on two dims being equal (a reshape
keeping its last dim, a size-1 dim that broadcasts) and only the recorded variants say so, the
fact becomes a *guard*: the wrapper checks it and raises instead of computing garbage on a
shape nobody analysed. Each op's own shape and dtype rules live with its registration
(:mod:`passnet.synth.registry`); the arithmetic they share is here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import torch
from torch.fx import Node

from passnet.synth.ir import (
    BinOp,
    Bound,
    Call,
    Const,
    DtypeOf,
    Expr,
    Int,
    Max,
    Name,
    SizeOp,
    atomic,
    cmp,
    sizeop,
)

TL_DTYPE = {torch.float32: "tl.float32", torch.float16: "tl.float16",
            torch.bfloat16: "tl.bfloat16", torch.int64: "tl.int64",
            torch.int32: "tl.int32"}  # fmt: skip
MAX_ROW = 32768  # the longest row a row-mode kernel loads into one tile


class Unfusable(Exception):
    """The group cannot become one kernel; the message is the reason shown to the user."""


@dataclass(frozen=True)
class Dim:
    """One size: ``expr`` over the wrapper's ``s{j}`` shape tuples, ``vals`` per variant."""

    expr: Expr
    vals: tuple[int, ...]

    @property
    def literal(self) -> int | None:
        e = self.expr
        return e.value if isinstance(e, Int) and e.value >= 0 else None

    def all_one(self) -> bool:
        return all(v == 1 for v in self.vals)


def lit(value: int, n: int) -> Dim:
    return Dim(Int(value), (value,) * n)


def prod(dims: list[Dim], n: int) -> Dim:
    """Product with literals folded (``s0[0] * s0[1] * 64``)."""
    const, terms = 1, []
    for d in dims:
        if d.literal is not None:
            const *= d.literal
        else:
            terms.append(d.expr)
    vals = tuple(_mul([d.vals[k] for d in dims]) for k in range(n))
    if not terms:
        return lit(const, n)
    if const != 1:
        terms.append(Int(const))
    return Dim(sizeop("*", terms), vals)


def total(dims: list[Dim], n: int) -> Dim:
    """Sum with literals folded (``s0[3] + s1[3] + 8``): a concatenation's size or offset."""
    const = sum(d.literal for d in dims if d.literal is not None)
    terms = [d.expr for d in dims if d.literal is None]
    vals = tuple(sum(d.vals[k] for d in dims) for k in range(n))
    if not terms:
        return lit(const, n)
    return Dim(sizeop("+", terms + ([Int(const)] if const else [])), vals)


def ratio(a: Dim, b: Dim | int, vals: tuple[int, ...]) -> Dim:
    """``a // b`` as a size (a reshape's -1, a group's row)."""
    right = Int(b) if isinstance(b, int) else b.expr
    return Dim(SizeOp("//", (a.expr, right)), vals)


def minus(a: Expr, v: int) -> Expr:
    """``a - v``: a size's left operand as it is (``s0[1] + s1[1] - 1``), the same node as a
    difference of sizes where ``a`` is one operand already."""
    return SizeOp("-", (a, Int(v))) if atomic(a) else BinOp("-", a, Int(v))


def broadcast_max(exprs: list[Expr]) -> Expr:
    return Max(tuple(exprs))


def grouped(dims: list[Dim], groups: int) -> bool:
    """Whether a group norm over ``dims`` walks whole groups as its row ([N, G, C / G * S]),
    not one channel's last dim ([N, C, L] with a group per channel, the plain row)."""
    return len(dims) != 3 or any(v != groups for v in dims[1].vals)


def group_rows(dims: list[Dim], groups: int, n: int) -> list[Dim]:
    """[N, C, *S] as [N, G, C / G * prod(S)]: the row of a group norm with ``groups`` groups
    (a contiguous reshape: each group's channels and positions are one run of elements)."""
    rest = prod(dims[1:], n)
    return [dims[0], lit(groups, n), ratio(rest, groups, tuple(v // groups for v in rest.vals))]


def merge_trailing(dims: list[Dim], k: int, n: int) -> list[Dim]:
    """``dims`` with its last ``k`` merged into one (their product): the row a reduction over
    the trailing dims walks."""
    return list(dims) if k == 1 else dims[:-k] + [prod(dims[-k:], n)]


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

    def python(self) -> Expr:
        """The dtype in the wrapper (``torch.float32``, ``in0.dtype``)."""
        return Const(str(self.literal)) if self.literal is not None else DtypeOf(self.index)  # type: ignore[arg-type]

    def triton(self) -> Expr:
        """The dtype in the kernel (``tl.float32``, ``x0.dtype.element_ty``)."""
        if self.literal is not None:
            return Const(TL_DTYPE[self.literal])
        from passnet.synth.ir import Attr

        return Attr(Name(f"x{self.index}"), "dtype.element_ty")


@dataclass
class Shapes:
    """Dims and dtypes of every input and node of one group, plus the guards they need.
    ``generic``: the kernel serves any float dtype of its inputs, not just the analysed ones
    (it rounds wherever a result takes an input's dtype); ``free``: per node, the literals a generic rule leaves free (what the op's rules read
    them as -> the keyword, ``passnet.synth.free``); ``bound``: each keyword's value in every
    variant analysed; ``numbers``: the inputs (by position) that are Python numbers, not
    tensors: a scalar argument the graph takes as an input (an eps read with ``.item()``),
    passed to the kernel as a float (``Builder.constant``)."""

    n: int  # number of variants analysed
    generic: bool = False  # a generic rule: free literals, and any float dtype (``round``)
    dims: dict[Node, list[Dim]] = field(default_factory=dict)
    dtypes: dict[Node, DType] = field(default_factory=dict)
    guards: list[Expr] = field(default_factory=list)
    free: dict[Node, dict[object, str]] = field(default_factory=dict)
    bound: dict[str, tuple] = field(default_factory=dict)
    defaults: dict[str, object] = field(default_factory=dict)  # keyword -> the pattern's literal
    numbers: set[int] = field(default_factory=set)  # inputs that are Python numbers (``.item()``)

    def freed(self, node: Node, key: object) -> str | None:
        """The keyword of ``node``'s free literal ``key``, or None where it is a literal."""
        return self.free.get(node, {}).get(key)

    def bound_dim(self, keyword: str, i: int | None = None) -> Dim:
        """A size the matcher binds: free literal ``keyword`` (its item ``i``)."""
        vals = tuple(v if i is None else v[i] for v in self.bound[keyword])
        return Dim(Bound(keyword, i), vals)

    def equal(self, a: Dim, b: Dim) -> bool:
        """Same size in every variant; a guard when the expressions alone do not say so."""
        if a.expr == b.expr:
            return True
        if a.vals != b.vals:
            return False
        if a.literal is None or b.literal is None:
            self.guard(cmp("==", a.expr, b.expr))
        return True

    def guard(self, fact: Expr) -> None:
        if fact not in self.guards:
            self.guards.append(fact)

    def numel(self, node: Node) -> Dim:
        return prod(self.dims[node], self.n)


def broadcast(shapes: Shapes, operands: list[list[Dim]]) -> list[Dim]:
    """The broadcast of ``operands``' shapes: a dim that is a literal other than 1 in one of
    them is that literal; one expression is itself; several are their ``max``."""
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
            out.append(Dim(broadcast_max(exprs), vals))
    return out


def expand_to(shapes: Shapes, src: list[Dim], target: list[Dim], what: str) -> list[Dim]:
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
                shapes.guard(cmp("==", d.expr, 1))
            out.append(t)
        elif shapes.equal(d, t):
            out.append(d)
        else:
            raise Unfusable(f"{what} of a dim that is not 1")
    return out


def promote(
    shapes: Shapes, name: str, tensors: list[DType], actual: tuple[torch.dtype, ...]
) -> DType:
    """Mixed operand dtypes promote as eager's do (bfloat16 * float32 is float32): the result
    takes the dtype of the operand that wins in every variant, a guard saying it wins at run
    time too; no such operand is a reason."""
    promoted = tuple(functools.reduce(torch.promote_types, ds)
                     for ds in zip(*(t.vals for t in tensors), strict=True))  # fmt: skip
    first = next((t for t in tensors if t.vals == promoted), None)
    if first is None:
        raise Unfusable(f"{name} of tensors with different dtypes")
    for other in tensors:
        if other.python() == first.python():
            continue
        if other.vals == first.vals:
            shapes.guard(cmp("==", first.python(), other.python()))
        elif set(other.vals) == {torch.bool}:  # a bool (a flag) loses to every other dtype
            if other.literal is None:
                shapes.guard(cmp("==", other.python(), Const("torch.bool")))
        elif first.literal is not torch.float32:  # float32 wins over every float dtype
            shapes.guard(cmp("==", Call("torch.promote_types", (other.python(), first.python())),
                             first.python()))  # fmt: skip
    return DType(first.literal, first.index, actual)
