"""The synthesizer's IR: the expressions a kernel computes (values, loads with their index
expressions, reductions) and its wrapper evaluates, between the FX graph and the text of the
rule module; the statements and phases that hold them are in :mod:`passnet.synth.stmts`.

One expression language serves both sides: the Triton kernel and the Python wrapper that
checks shapes and launches it. Leaves are names (a kernel's temporaries carry the axes they
vary along: the phase's rows, its columns, or neither), literals, and the wrapper's reads of
its inputs' metadata (``s0[2]``, ``t0[2]``, ``in0.dtype``, ``in0.is_cuda``); inner nodes are
operators, calls, attribute reads and subscripts. Expressions are frozen dataclasses: equal
trees are equal values, so a lowering memoises an expression by its tree, and a fact such as
"the plan reads only metadata" or "the kernel calls ``_dot``" is a walk over the tree, never a
search of generated text. Python operators on expressions build trees (``a * b + c``), so
templates read like the code they emit; :mod:`passnet.synth.printer` turns trees into text.

Sizes (:class:`SizeOp`, :class:`Max`) are the shape rules' arithmetic: a size made of other
sizes groups each compound operand in parentheses (``(s0[0] * s0[1]) // 16``), and a
broadcast size ``max(a, b)`` becomes a local of the wrapper, computed once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields

ROW, COL = "row", "col"
NO_AXES: frozenset[str] = frozenset()


class Expr:
    """Base of every expression node; Python operators build :class:`BinOp` trees."""

    def __add__(self, o: Operand) -> BinOp:
        return BinOp("+", self, wrap(o))

    def __radd__(self, o: Operand) -> BinOp:
        return BinOp("+", wrap(o), self)

    def __sub__(self, o: Operand) -> BinOp:
        return BinOp("-", self, wrap(o))

    def __rsub__(self, o: Operand) -> BinOp:
        return BinOp("-", wrap(o), self)

    def __mul__(self, o: Operand) -> BinOp:
        return BinOp("*", self, wrap(o))

    def __rmul__(self, o: Operand) -> BinOp:
        return BinOp("*", wrap(o), self)

    def __truediv__(self, o: Operand) -> BinOp:
        return BinOp("/", self, wrap(o))

    def __rtruediv__(self, o: Operand) -> BinOp:
        return BinOp("/", wrap(o), self)

    def __floordiv__(self, o: Operand) -> BinOp:
        return BinOp("//", self, wrap(o))

    def __rfloordiv__(self, o: Operand) -> BinOp:
        return BinOp("//", wrap(o), self)

    def __mod__(self, o: Operand) -> BinOp:
        return BinOp("%", self, wrap(o))

    def __and__(self, o: Operand) -> BinOp:
        return BinOp("&", self, wrap(o))

    def __neg__(self) -> Unary:
        return Unary("-", self)

    def to(self, dtype: Expr) -> Method:
        """``self.to(dtype)``: a conversion (Triton or torch)."""
        return Method(self, "to", (dtype,))

    def children(self) -> tuple[Expr, ...]:
        """Sub-expressions in the order the printer writes them."""
        out: list[Expr] = []
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            if isinstance(v, Expr):
                out.append(v)
            elif isinstance(v, tuple):
                out += [x for x in v if isinstance(x, Expr)]
                out += [x[1] for x in v if isinstance(x, tuple) and isinstance(x[1], Expr)]
        return tuple(out)

    @property
    def axes(self) -> frozenset[str]:
        """The kernel axes (rows, columns) the value varies along: its names' axes."""
        return frozenset().union(*(c.axes for c in self.children()))


Operand = Expr | int | float


def wrap(v: Operand) -> Expr:
    """A Python number as a literal node (floats as ``repr`` writes them)."""
    if isinstance(v, Expr):
        return v
    if isinstance(v, bool):
        return Const(repr(v))
    if isinstance(v, int):
        return Int(v)
    return Const(float_text(v))


def float_text(v: float) -> str:
    """Python source for a float that evaluates back to it (infinities too)."""
    if v != v:
        return "float('nan')"
    if v in (float("inf"), float("-inf")):
        return "float('inf')" if v > 0 else "float('-inf')"
    return repr(v)


# -- leaves ----------------------------------------------------------------------------------
class Leaf(Expr):
    def children(self) -> tuple[Expr, ...]:
        return ()


@dataclass(frozen=True)
class Name(Leaf):
    """A variable. ``axes``: what a kernel value varies along; ``scope``: the phase that owns
    it (``offs``, ``mask``, ``BLOCK_M``, ...), written ``offs_1`` in a kernel of several
    phases and ``offs`` in a kernel of one."""

    ident: str
    axes_: frozenset[str] = NO_AXES
    scope: int | None = None

    @property
    def axes(self) -> frozenset[str]:
        return self.axes_


@dataclass(frozen=True)
class Const(Leaf):
    """Source text that stands for itself: a float literal, ``tl.float16``, ``True``."""

    text: str


@dataclass(frozen=True)
class Int(Leaf):
    """An integer literal (a size, a coordinate, an index)."""

    value: int


@dataclass(frozen=True)
class Size(Leaf):
    """Wrapper: input ``j``'s size along dim ``d`` (``s{j}[{d}]``)."""

    j: int
    d: int


@dataclass(frozen=True)
class Stride(Leaf):
    """Wrapper: input ``j``'s stride along dim ``d`` (``t{j}[{d}]``)."""

    j: int
    d: int


@dataclass(frozen=True)
class DtypeOf(Leaf):
    """Wrapper: input ``j``'s dtype (``in{j}.dtype``; ``d{j}`` inside a plan)."""

    j: int


@dataclass(frozen=True)
class IsCuda(Leaf):
    """Wrapper: whether the inputs are on a CUDA device (``in0.is_cuda``; ``cuda`` in a plan)."""


@dataclass(frozen=True)
class Bound(Leaf):
    """Wrapper: the free literal ``name`` the matcher bound (a parameter of the replacement,
    ``docs/passes.md#free-literals``), or its item ``i`` (``normalized_shape[0]``)."""

    name: str
    i: int | None = None


@dataclass(frozen=True)
class Tensor(Leaf):
    """Wrapper: input ``j`` itself (``in{j}``): what a plan must never read."""

    j: int


# -- inner nodes -----------------------------------------------------------------------------
@dataclass(frozen=True)
class BinOp(Expr):
    """``left op right``; the printer adds the parentheses precedence needs."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # "-" or "not"
    operand: Expr


@dataclass(frozen=True)
class Call(Expr):
    """``fn(args, name=value, ...)``; ``fn`` a dotted name or an expression."""

    fn: str | Expr
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()

    def children(self) -> tuple[Expr, ...]:
        head = (self.fn,) if isinstance(self.fn, Expr) else ()
        return head + self.args + tuple(v for _, v in self.kwargs)


@dataclass(frozen=True)
class Method(Expr):
    """``obj.name(args, ...)``."""

    obj: Expr
    name: str
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True)
class Attr(Expr):
    """``obj.name`` (``name`` may be dotted: ``x0.dtype.element_ty``)."""

    obj: Expr
    name: str


@dataclass(frozen=True)
class Index(Expr):
    """``obj[key]``: ``key`` an expression or fixed text (``:, None``)."""

    obj: Expr
    key: Expr | str

    def children(self) -> tuple[Expr, ...]:
        return (self.obj,) + ((self.key,) if isinstance(self.key, Expr) else ())


@dataclass(frozen=True)
class Tuple(Expr):
    """``(a, b)``, ``(a,)``; ``trailing``: ``(a, b,)`` (a view's sizes in the alias path)."""

    items: tuple[Expr, ...]
    trailing: bool = False


@dataclass(frozen=True)
class List(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Dict(Expr):
    """``{"key": value, ...}``: keys printed as strings (a name's text, or a string)."""

    items: tuple[tuple[Expr | str, Expr], ...]


@dataclass(frozen=True)
class IfExp(Expr):
    body: Expr
    test: Expr
    orelse: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.body, self.test, self.orelse)


@dataclass(frozen=True)
class Paren(Expr):
    """Parentheses the generator writes on purpose (a pooled size, a stride argument)."""

    inner: Expr


@dataclass(frozen=True)
class Star(Expr):
    """``*value`` or ``**value`` in a call."""

    stars: str
    value: Expr


@dataclass(frozen=True)
class SizeOp(Expr):
    """Size arithmetic ``a op b op ...`` (``*``, ``+``, ``//``, ``-``): each compound operand
    in parentheses (:func:`atomic`), the way the shape rules write sizes."""

    op: str
    terms: tuple[Expr, ...]


@dataclass(frozen=True)
class Max(Expr):
    """A broadcast size ``max(a, b, ...)``; the wrapper computes each distinct one once."""

    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Load(Expr):
    """``tl.load(address, mask=mask, other=other)``."""

    address: Expr
    mask: Expr | None = None
    other: Expr | None = None


@dataclass(frozen=True)
class Reduce(Expr):
    """``tl.<fn>(value, axis=1)[:, None]``: a reduction along the row, kept as a column."""

    fn: str  # "sum" or "max"
    value: Expr


def call(fn: str | Expr, *args: Operand, **kwargs: Operand) -> Call:
    return Call(fn, tuple(wrap(a) for a in args), tuple((k, wrap(v)) for k, v in kwargs.items()))


def method(obj: Expr, name: str, *args: Operand, **kwargs: Operand) -> Method:
    return Method(obj, name, tuple(wrap(a) for a in args),
                  tuple((k, wrap(v)) for k, v in kwargs.items()))  # fmt: skip


def cmp(op: str, a: Operand, b: Operand) -> BinOp:
    """A comparison (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``): ``==`` on nodes compares trees."""
    return BinOp(op, wrap(a), wrap(b))


def where(c: Expr, a: Operand, b: Operand) -> Call:
    return call("tl.where", c, a, b)


def conj(op: str, items: list[Expr]) -> Expr:
    """``items[0] op items[1] op ...`` left to right (``and``, ``or``, ``+``)."""
    out = items[0]
    for x in items[1:]:
        out = BinOp(op, out, x)
    return out


# -- size arithmetic -------------------------------------------------------------------------
def atomic(e: Expr) -> bool:
    """Whether a size reads as one operand without parentheses: a name, a non-negative
    literal, an input's size, or a ``max`` over plain terms."""
    if isinstance(e, (Name, Size, Stride, Bound)):
        return True
    if isinstance(e, Int):
        return e.value >= 0
    return isinstance(e, Max) and all(paren_free(a) for a in e.args)


def paren_free(e: Expr) -> bool:
    """Whether ``e`` is written without any parentheses (a call has them)."""
    if isinstance(e, (Name, Size, Stride, Bound, Int, Const)):
        return True
    if isinstance(e, SizeOp):
        return all(atomic(t) and paren_free(t) for t in e.terms)
    return False


def sizeop(op: str, terms: list[Expr]) -> Expr:
    """``terms`` joined by ``op`` as a size; one term is itself (grouped when compound)."""
    if len(terms) == 1:
        return terms[0] if atomic(terms[0]) else Paren(terms[0])
    return SizeOp(op, tuple(terms))


def walk(e: Expr) -> Iterator[Expr]:
    """``e`` and its sub-expressions, pre-order, in the order the printer writes them."""
    yield e
    for c in e.children():
        yield from walk(c)
