"""The one printer: IR (:mod:`passnet.synth.ir`) to the Python and Triton text of a rule module.

Parentheses come from the tree: an operand is wrapped where Python's precedence needs it,
or where the generator asked for it (:class:`~passnet.synth.ir.Paren`), and a size's compound
operands are grouped (:func:`~passnet.synth.ir.atomic`). Names are resolved here: a phase's
names carry their phase (``offs`` of phase 1 is ``offs_1`` when the kernel has several
phases), a plan reads its inputs' dtypes and device as parameters (``d0``, ``cuda``), and a
wrapper's broadcast sizes print as the locals computed once (``m0``). Nothing is written and
then rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from passnet.synth.ir import (
    Attr,
    BinOp,
    Bound,
    Call,
    Const,
    Dict,
    DtypeOf,
    Expr,
    IfExp,
    Index,
    Int,
    IsCuda,
    List,
    Load,
    Max,
    Method,
    Name,
    Paren,
    Reduce,
    Size,
    SizeOp,
    Star,
    Stride,
    Tensor,
    Tuple,
    Unary,
    atomic,
)
from passnet.synth.stmts import (
    Assign,
    Check,
    ExprStmt,
    FunctionDef,
    If,
    Launch,
    Let,
    Raise,
    Return,
    Stmt,
    Store,
)

PREC = {"if": 1, "or": 2, "and": 3, "not": 4, "<": 5, "<=": 5, ">": 5, ">=": 5, "==": 5, "in": 5,
        "!=": 5, "|": 6, "^": 7, "&": 8, "<<": 9, ">>": 9, "+": 10, "-": 10, "*": 11, "/": 11,
        "//": 11, "%": 11, "neg": 12, "**": 13}  # fmt: skip
_COMPARE = {"<", "<=", ">", ">=", "==", "!=", "in"}
_ASSOCIATIVE = {"&", "|", "and", "or"}  # a right operand of the same operator needs no parens
PRIMARY = 16


@dataclass
class Context:
    """How names resolve: ``phases`` of the kernel (scoped names), ``plan`` (metadata read as
    the plan's parameters), ``subst`` (expressions a local stands for)."""

    phases: int = 1
    plan: bool = False
    subst: dict[Expr, str] = field(default_factory=dict)


def prec(e: Expr) -> int:
    if isinstance(e, BinOp):
        return PREC[e.op]
    if isinstance(e, SizeOp):
        return PREC[e.op]
    if isinstance(e, Unary):
        return PREC["neg"] if e.op == "-" else PREC["not"]
    if isinstance(e, IfExp):
        return PREC["if"]
    return PRIMARY


def expr(e: Expr, ctx: Context | None = None) -> str:
    """``e`` as Python source."""
    ctx = ctx or Context()
    if ctx.subst and e in ctx.subst:
        return ctx.subst[e]
    if isinstance(e, Name):
        return e.ident if e.scope is None or ctx.phases <= 1 else f"{e.ident}_{e.scope}"
    if isinstance(e, Const):
        return e.text
    if isinstance(e, Int):
        return str(e.value)
    if isinstance(e, Size):
        return f"s{e.j}[{e.d}]"
    if isinstance(e, Stride):
        return f"t{e.j}[{e.d}]"
    if isinstance(e, Bound):
        return e.name if e.i is None else f"{e.name}[{e.i}]"
    if isinstance(e, DtypeOf):
        return f"d{e.j}" if ctx.plan else f"in{e.j}.dtype"
    if isinstance(e, IsCuda):
        return "cuda" if ctx.plan else "in0.is_cuda"
    if isinstance(e, Tensor):
        return f"in{e.j}"
    if isinstance(e, BinOp):
        return _binop(e, ctx)
    if isinstance(e, Unary):
        inner = _wrapped(e.operand, prec(e) > prec(e.operand), ctx)
        return f"-{inner}" if e.op == "-" else f"not {inner}"
    if isinstance(e, (Call, Method)):
        head = _callee(e, ctx)
        parts = [expr(a, ctx) for a in e.args] + [f"{k}={expr(v, ctx)}" for k, v in e.kwargs]
        return f"{head}({', '.join(parts)})"
    if isinstance(e, Attr):
        return f"{_wrapped(e.obj, prec(e.obj) < PRIMARY, ctx)}.{e.name}"
    if isinstance(e, Index):  # a tuple key bare: plan[in0.shape, in1.shape]
        key = e.key if isinstance(e.key, str) else expr(e.key, ctx)
        if isinstance(e.key, Tuple):
            key = ", ".join(expr(x, ctx) for x in e.key.items) + (
                "," if len(e.key.items) == 1 else ""
            )
        return f"{_wrapped(e.obj, prec(e.obj) < PRIMARY, ctx)}[{key}]"
    if isinstance(e, Tuple):
        items = [expr(x, ctx) for x in e.items]
        if len(items) == 1 or (e.trailing and items):
            return "(" + ", ".join(items) + ",)"
        return "(" + ", ".join(items) + ")"
    if isinstance(e, List):
        return "[" + ", ".join(expr(x, ctx) for x in e.items) + "]"
    if isinstance(e, Dict):
        return "{" + ", ".join(f'"{_key(k, ctx)}": {expr(v, ctx)}' for k, v in e.items) + "}"
    if isinstance(e, IfExp):
        return (f"{_wrapped(e.body, prec(e.body) <= PREC['if'], ctx)} if "
                f"{_wrapped(e.test, prec(e.test) <= PREC['if'], ctx)} else "
                f"{expr(e.orelse, ctx)}")  # fmt: skip
    if isinstance(e, Paren):
        return f"({expr(e.inner, ctx)})"
    if isinstance(e, Star):
        return f"{e.stars}{expr(e.value, ctx)}"
    if isinstance(e, SizeOp):
        return f" {e.op} ".join(_wrapped(t, not atomic(t), ctx) for t in e.terms)
    if isinstance(e, Max):
        return f"max({', '.join(expr(a, ctx) for a in e.args)})"
    if isinstance(e, Load):
        extra = "" if e.mask is None else f", mask={expr(e.mask, ctx)}"
        extra += "" if e.other is None else f", other={expr(e.other, ctx)}"
        return f"tl.load({expr(e.address, ctx)}{extra})"
    if isinstance(e, Reduce):
        return f"tl.{e.fn}({expr(e.value, ctx)}, axis=1)[:, None]"
    raise TypeError(f"no printing rule for {type(e).__name__}")


def _key(k: Expr | str, ctx: Context) -> str:
    return k if isinstance(k, str) else expr(k, ctx)


def _callee(e: Call | Method, ctx: Context) -> str:
    if isinstance(e, Method):
        return f"{_wrapped(e.obj, prec(e.obj) < PRIMARY, ctx)}.{e.name}"
    return e.fn if isinstance(e.fn, str) else _wrapped(e.fn, prec(e.fn) < PRIMARY, ctx)


def _wrapped(e: Expr, parens: bool, ctx: Context) -> str:
    text = expr(e, ctx)
    return f"({text})" if parens else text


def _binop(e: BinOp, ctx: Context) -> str:
    p, lp, rp = PREC[e.op], prec(e.left), prec(e.right)
    left = lp < p or (lp == p and e.op in _COMPARE)
    right = rp < p or (rp == p and e.op not in _ASSOCIATIVE)
    return f"{_wrapped(e.left, left, ctx)} {e.op} {_wrapped(e.right, right, ctx)}"


# -- statements ------------------------------------------------------------------------------
def stmts(body: list[Stmt] | tuple[Stmt, ...], ctx: Context, depth: int = 1) -> list[str]:
    """The statements as lines, indented four spaces per ``depth``."""
    out: list[str] = []
    pad = "    " * depth
    for s in body:
        if isinstance(s, Let):
            out.append(f"{pad}{expr(s.target, ctx)} = {expr(s.value, ctx)}")
        elif isinstance(s, Store):
            out.append(f"{pad}tl.store({expr(s.address, ctx)}, {expr(s.value, ctx)}, "
                       f"mask={expr(s.mask, ctx)})")  # fmt: skip
        elif isinstance(s, Assign):
            targets = ", ".join(expr(t, ctx) for t in s.targets)
            out.append(f"{pad}{targets} = {expr(s.value, ctx)}")
        elif isinstance(s, If):
            out.append(f"{pad}if {expr(s.test, ctx)}:")
            out += stmts(s.body, ctx, depth + 1)
            if s.orelse:
                out.append(f"{pad}else:")
                out += stmts(s.orelse, ctx, depth + 1)
        elif isinstance(s, Raise):
            out.append(f'{pad}raise ValueError("{s.message}")')
        elif isinstance(s, Check):
            joined = f"\n{pad}        and ".join(expr(g, ctx) for g in s.guards)
            out.append(f"{pad}if not ({joined}):")
            out.append(f'{pad}    raise ValueError("{s.message}")')
        elif isinstance(s, Return):
            out.append(f"{pad}return {expr(s.value, ctx)}")
        elif isinstance(s, ExprStmt):
            out.append(f"{pad}{expr(s.value, ctx)}")
        elif isinstance(s, Launch):
            out.append(f"{pad}{s.kernel}[{expr(s.grid, ctx)}](")
            for a in s.args:
                text = (
                    f"{expr(a[0], ctx)}={expr(a[1], ctx)}" if isinstance(a, tuple) else expr(a, ctx)
                )
                out.append(f"{pad}    {text},")
            out.append(f"{pad})")
        else:
            raise TypeError(f"no printing rule for {type(s).__name__}")
    return out


def function(f: FunctionDef, ctx: Context) -> str:
    """A wrapper-side function: decorators, ``def``, body."""
    head = [f"@{d}" for d in f.decorators] + [f"def {f.name}({', '.join(f.params)}):"]
    return "\n".join(head + stmts(f.body, ctx)) + "\n"


def kernel(name: str, params: list, phases: list) -> str:
    """The ``@cached @triton.jit`` kernel: its parameters (``wrapper.Param``: launch options
    are no parameters), then each phase's statements, under ``if pid < P1`` ... when several
    phases share the launch."""
    ctx = Context(phases=len(phases))
    sig = [expr(p.name, ctx) + (": tl.constexpr" if p.constexpr else "")
           for p in params if not p.option]  # fmt: skip
    body = ["    pid = tl.program_id(0)"]
    for i, ph in enumerate(phases):
        if len(phases) == 1:
            body += stmts(ph.body, ctx, 1)
            continue
        last = i == len(phases) - 1
        body.append(
            "    " + ("else:" if last else "if pid < P1:" if i == 0 else f"elif pid < P{i + 1}:")
        )
        body += stmts(ph.body, ctx, 2)
    head = f"@cached\n@triton.jit\ndef {name}(\n" + "".join(f"    {p},\n" for p in sig)
    return head + "):\n" + "".join(f"{line}\n" for line in body)


def body_text(phases: list) -> str:
    """Every phase's statements, unindented, one a line: a kernel's body for reading."""
    ctx = Context(phases=len(phases))
    return "\n".join(line for ph in phases for line in stmts(ph.body, ctx, 0))
