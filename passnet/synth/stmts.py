"""Statements of the IR (:mod:`passnet.synth.ir`): a kernel phase's lets and stores, and the
wrapper's assignments, checks, branches and launch; :class:`Phase` is one domain of a kernel.
:func:`stmt_exprs` walks a statement's expressions in the order the printer writes them, so
a fact about generated code (which metadata a plan reads, which broadcast sizes a wrapper
computes) is read off the IR.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from passnet.synth.ir import Expr, Name


@dataclass(frozen=True)
class Let:
    """Kernel: ``target = value``."""

    target: Name
    value: Expr


@dataclass(frozen=True)
class Store:
    """Kernel: ``tl.store(address, value, mask=mask)``."""

    address: Expr
    value: Expr
    mask: Expr


@dataclass(frozen=True)
class Assign:
    """Wrapper: ``a, b = value``."""

    targets: tuple[Expr, ...]
    value: Expr


@dataclass(frozen=True)
class If:
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()


@dataclass(frozen=True)
class Raise:
    """``raise ValueError("message")``."""

    message: str


@dataclass(frozen=True)
class Check:
    """``if not (g1 and g2 ...): raise ValueError(message)``, one guard a line."""

    guards: tuple[Expr, ...]
    message: str


@dataclass(frozen=True)
class Return:
    value: Expr


@dataclass(frozen=True)
class ExprStmt:
    value: Expr


@dataclass(frozen=True)
class Launch:
    """``kernel[grid](args...)``, one argument a line; ``(name, value)`` for keywords."""

    kernel: str
    grid: Expr
    args: tuple[Expr | tuple[Expr, Expr], ...]


@dataclass(frozen=True)
class FunctionDef:
    name: str
    params: tuple[str, ...]
    body: tuple[Stmt, ...]
    decorators: tuple[str, ...] = ()


Stmt = Let | Store | Assign | If | Raise | Check | Return | ExprStmt | Launch


def stmt_exprs(s: Stmt) -> Iterator[Expr]:
    """A statement's expressions in the order the printer writes them (nested bodies too)."""
    if isinstance(s, Let):
        yield s.target
        yield s.value
    elif isinstance(s, Store):
        yield from (s.address, s.value, s.mask)
    elif isinstance(s, Assign):
        yield from s.targets
        yield s.value
    elif isinstance(s, If):
        yield s.test
        for b in (*s.body, *s.orelse):
            yield from stmt_exprs(b)
    elif isinstance(s, Check):
        yield from s.guards
    elif isinstance(s, (Return, ExprStmt)):
        yield s.value
    elif isinstance(s, Launch):
        yield s.grid
        for a in s.args:
            yield a[1] if isinstance(a, tuple) else a


@dataclass
class Phase:
    """One domain of a kernel: ``flat`` (BLOCK elements a program) or ``row`` (BLOCK_M rows of
    N columns), its statements, and its index in the kernel (its names' scope)."""

    mode: str
    domain: list  # list[shapes.Dim]
    body: list[Let | Store] = field(default_factory=list)
    index: int = 0
