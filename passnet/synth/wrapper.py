"""The replacement wrapper of a synthesised rule, as IR: check the inputs, allocate, launch.

Everything the wrapper works out before launching (rank checks, guards, broadcast sizes,
output sizes, the strides it passes, block sizes and the grid) depends on the inputs'
shapes, strides, dtypes and device type only, so it is a *plan* computed once per input
signature (``passnet.passes.plans.plan_cache``, a dict lookup per call); a call then costs the
key, the lookup, the allocations and the launch. Whether a plan reads only metadata is a walk
over its statements (no :class:`~passnet.synth.ir.Tensor` leaf); its parameters are the
metadata it reads. Kernels whose outputs may be views of their inputs keep the plain form,
every step on every call (the views are made per call). A generic rule's wrapper takes the
free literals the matcher bound after the inputs (``replacement_args`` passes them); a plan
reads those it needs as parameters, like the inputs' metadata. A flat kernel's plan may
first insert size-1 dims into inputs of a lower rank than generated (``rank_pad``).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch.fx import Node

from passnet.synth.alias import alias_lines
from passnet.synth.ir import (
    Attr,
    BinOp,
    Bound,
    Call,
    Dict,
    DtypeOf,
    Expr,
    IfExp,
    Index,
    Int,
    IsCuda,
    Max,
    Name,
    SizeOp,
    Star,
    Stride,
    Tensor,
    Tuple,
    atomic,
    cmp,
    conj,
    method,
    walk,
)
from passnet.synth.kernel import Kernel
from passnet.synth.pattern import default
from passnet.synth.rank_pad import pad_floor, padding, unpadded
from passnet.synth.shapes import MAX_ROW, prod
from passnet.synth.stmts import (
    Assign,
    Check,
    ExprStmt,
    FunctionDef,
    If,
    Launch,
    Raise,
    Return,
    Stmt,
    stmt_exprs,
)


@dataclass(frozen=True)
class Tuning:
    """A launch shape chosen on the device (``passnet.synth.tune``): elements per program of a
    flat phase, the BLOCK_M x BLOCK_N budget and row cap of a row phase, and warps. A tuned
    module uses it on every device; an untuned one picks per device at run time."""

    flat_block: int = 1024
    row_tile: int = 4096
    max_rows: int = 64
    num_warps: int = 4


@dataclass(frozen=True)
class Param:
    """One launch argument: its name (the kernel's parameter, or a launch option such as
    ``enable_fp_fusion``: ``option``), the wrapper's ``value``, and how it is passed:
    ``tensor`` (positional), ``int`` (positional, computed by the plan) or ``keyword``;
    ``constexpr``: a ``tl.constexpr`` parameter."""

    name: Expr
    value: Expr
    role: str
    constexpr: bool = False
    option: bool = False


@dataclass
class Wrapper:
    """The replacement's functions (a plan and the wrapper, or the wrapper alone), whether
    the first is a plan, and per function the broadcast sizes it computes once (``m0 =
    max(...)``: printed as the local)."""

    functions: list[FunctionDef]
    planned: bool
    locals_: list[dict[Expr, str]]


def tuple_of(items: list[Expr]) -> Tuple:
    return Tuple(tuple(items))


def inputs(n_inputs: int, k: Kernel | None = None) -> tuple[str, ...]:
    """The replacement's parameters: its inputs, then (a generic rule's) free literals, each
    defaulting to the pattern's literal as ``replacement_args``' keyword does."""
    free = k.shapes.defaults.items() if k else ()
    return tuple(f"in{j}" for j in range(n_inputs)) + tuple(f"{kw}={default(v)}" for kw, v in free)


def tensor_inputs(k: Kernel) -> list[int]:
    """The inputs that are tensors (by position): all but the Python numbers a kernel takes
    as scalar arguments (``Shapes.numbers``), which have no shape to read."""
    return [j for j in range(len(k.inputs)) if j not in k.shapes.numbers]


def pow2(x: Expr) -> Expr:
    """The smallest power of two >= ``x`` (>= 1), inline: ``triton.next_power_of_2`` and
    ``triton.cdiv`` are Python calls that cost more host time than the arithmetic."""
    return BinOp("<<", Int(1), method(SizeOp("-", (x, Int(1))), "bit_length"))


def _grid(fname: str, k: Kernel, tuning: Tuning | None) -> list[Stmt]:
    """Per phase: its size, block sizes and program count ``g<i>``."""
    out: list[Stmt] = []
    lo = 16 if k.dots else 1  # tl.dot's smallest tile side
    for i, ph in enumerate(k.phases):
        dom, g = ph.domain, Name(f"g{i}")
        if ph.mode == "flat":
            numel, block = Name("numel", scope=i), Name("BLOCK", scope=i)
            out.append(Assign((numel,), prod(dom, k.shapes.n).expr))
            if tuning is not None:
                out.append(Assign((block,), Int(tuning.flat_block)))
            else:
                out.append(Assign((block,), IfExp(Int(1024), IsCuda(),
                                                  Call("min", (pow2(numel), Int(65536))))))  # fmt: skip
            out.append(Assign((g,), (numel + block - 1) // block))
            continue
        n, rows = dom[-1], Name("n_rows", scope=i)
        bn, bm = Name("BLOCK_N", scope=i), Name("BLOCK_M", scope=i)
        out.append(Assign((rows,), prod(dom[:-1], k.shapes.n).expr))
        if n.literal is not None:
            out.append(Assign((bn,), Int(1 << max(n.literal - 1, 0).bit_length())))
        else:
            out.append(Assign((bn,), pow2(n.expr)))
            out.append(If(cmp(">", bn, MAX_ROW),
                          (Raise(f"{fname}: rows longer than {MAX_ROW} elements"),)))  # fmt: skip
        if tuning is not None:
            cap = Call("min", (Int(tuning.max_rows), Int(tuning.row_tile) // bn))
            out.append(Assign((bm,), Call("max", (Int(lo), cap))))
        else:
            gpu = Call("max", (Int(lo), Call("min", (Int(64), Int(4096) // bn))))
            cpu = Call("max", (Int(lo), Call("min", (pow2(rows), Int(65536) // bn))))
            out.append(If(IsCuda(), (Assign((bm,), gpu),), (Assign((bm,), cpu),)))
        out.append(Assign((g,), (rows + bm - 1) // bm))
    return out


def _checks(fname: str, k: Kernel) -> list[Stmt]:
    """The rank check (first), then the guards: statements over ``s<j>``."""
    ranks = [cmp("!=", Call("len", (Name(f"s{j}"),)), len(k.shapes.dims[k.inputs[j]]))
             for j in tensor_inputs(k)]  # fmt: skip
    out: list[Stmt] = [
        If(
            conj("or", ranks),  # type: ignore[arg-type]
            (Raise(f"{fname}: an input of another rank than generated for"),),
        )
    ]
    if k.shapes.guards:
        out.append(Check(tuple(k.shapes.guards), f"{fname}: shapes outside those generated for"))
    return out


def _size(k: Kernel, node: Node) -> Tuple:
    """An output's size tuple, over ``s<j>``."""
    return tuple_of([d.expr for d in k.shapes.dims[node]])


def _alloc(i: int, k: Kernel, size: Expr) -> Stmt:
    """Output ``i`` allocated: on ``in0``'s device, in its dtype (an input's: that input's
    ``new_empty``, which takes its dtype and device)."""
    dtype = k.shapes.dtypes[k.outputs[i]]
    if dtype.literal is None:
        assert dtype.index is not None  # a dtype is a literal or an input's
        return Assign((Name(f"y{i}"),), method(Tensor(dtype.index), "new_empty", size))
    return Assign((Name(f"y{i}"),), method(Tensor(0), "new_empty", size, dtype=dtype.python()))


def _own(k: Kernel) -> list[int]:
    """The outputs the wrapper allocates: all but those that are an input's memory (an
    in-place write, returned as that input, as eager returns it)."""
    return [i for i in range(len(k.outputs)) if k.buffer(i) is None]


def _returns(k: Kernel) -> Stmt:
    outs: list[Expr] = [Name(f"y{i}") if (j := k.buffer(i)) is None else Tensor(j)
                        for i in range(len(k.outputs))]  # fmt: skip
    return Return(outs[0] if len(outs) == 1 else tuple_of(outs))


def _total(k: Kernel) -> Expr:
    return conj("+", [Name(f"g{i}") for i in range(len(k.phases))])


def hoist(body: list[Stmt], start: int) -> tuple[list[Stmt], dict[Expr, str]]:
    """Give each distinct broadcast size over plain terms in ``body[start:]`` a local computed
    once (``m0 = max(...)``), inserted at ``start``: the wrapper runs on every call."""
    found: dict[Expr, str] = {}
    for s in body[start:]:
        for e in stmt_exprs(s):
            for x in walk(e):
                if isinstance(x, Max) and atomic(x) and x not in found:
                    found[x] = f"m{len(found)}"
    defs: list[Stmt] = [Assign((Name(v),), Call("max", x.args)) for x, v in found.items()]  # type: ignore[attr-defined]
    return body[:start] + defs + body[start:], found


def _plain(fname: str, kname: str, k: Kernel, n_inputs: int, params: list[Param],
           tuning: Tuning | None, wrap: bool) -> Wrapper:  # fmt: skip
    """Everything on every call: the form for kernels whose outputs may be views of their
    inputs (those are made per call, from the tensors themselves)."""
    body: list[Stmt] = [
        Assign((Name(f"s{j}"),), Attr(Tensor(j), "shape")) for j in tensor_inputs(k)
    ]
    after_ranks = len(body) + 1
    body += _checks(fname, k)
    if k.aliases:
        body += alias_lines(k.aliases)
    strided = sorted({j for j, _ in k.strides.values()})
    body += [Assign((Name(f"t{j}"),), method(Tensor(j), "stride")) for j in strided]
    body += [_alloc(i, k, _size(k, k.outputs[i])) for i in _own(k)]
    body += _grid(fname, k, tuning)
    args: list[Expr | tuple[Expr, Expr]] = [
        (p.name, p.value) if p.role == "keyword" else p.value for p in params
    ]
    if tuning is not None:
        args.append((Name("num_warps"), Int(tuning.num_warps)))
    grid = _total(k)
    body.append(If(cmp(">", grid, 0), (Launch(kname, Tuple((grid,)), tuple(args)),)))
    body.append(_returns(k))
    body, found = hoist(body, after_ranks)
    deco = ("torch.fx.wrap",) if wrap else ()
    return Wrapper([FunctionDef(fname, inputs(n_inputs, k), tuple(body), deco)], False, [found])


def _hashable(k: Kernel, keyword: str) -> Expr:
    """A free literal as a plan's key: a list (``reshape(x, [-1, 8, 9])``'s shape) as a tuple."""
    lists = any(isinstance(v, list) for v in k.shapes.bound[keyword])
    return Call("tuple", (Name(keyword),)) if lists else Name(keyword)


def _planned(fname: str, kname: str, k: Kernel, n_inputs: int, params: list[Param],
             tuning: Tuning | None, wrap: bool) -> Wrapper | None:  # fmt: skip
    """A plan function memoised by input signature and the wrapper that looks it up (module
    docstring); None when the plan would read anything but metadata."""
    keywords: list[tuple[Expr | str, Expr]] = [(p.name, p.value) for p in params
                                               if p.role == "keyword"]  # fmt: skip
    if tuning is not None:
        keywords.append(("num_warps", Int(tuning.num_warps)))
    ints = [p.value for p in params if p.role == "int"]
    grid = _total(k)
    body = _checks(fname, k) + _grid(fname, k, tuning)
    shaped = tensor_inputs(k)  # the inputs with a shape (not Python numbers)
    floor = pad_floor(k, shaped)  # lower ranks served by size-1 dims (rank_pad)
    sizes = [_size(k, k.outputs[i]) for i in _own(k)]
    body.append(
        Return(
            tuple_of(
                [
                    *(sizes if floor is None else [unpadded(s) for s in sizes]),
                    Tuple((grid,)),
                    cmp(">", grid, 0),
                    tuple_of(ints),
                    Dict(tuple(keywords)),
                ]
            )
        )
    )
    body, found = hoist(body, 1)  # after the rank check
    leaves = [x for s in body for e in stmt_exprs(s) for x in walk(e)]
    if any(isinstance(x, Tensor) for x in leaves):
        return None
    used: list[tuple[str, Expr]] = [(f"s{j}", Attr(Tensor(j), "shape")) for j in shaped]
    strided = {
        j for j in range(n_inputs) if any(isinstance(x, Stride) and x.j == j for x in leaves)
    }
    used += [(f"t{j}", method(Tensor(j), "stride")) for j in sorted(strided)]
    if floor is not None:
        body = padding(k, shaped, floor, strided) + body
    used += [(f"d{j}", DtypeOf(j)) for j in range(n_inputs) if DtypeOf(j) in leaves]
    used += [("cuda", IsCuda())] if IsCuda() in leaves else []
    used += [(kw, _hashable(k, kw)) for kw in k.shapes.bound
             if any(isinstance(x, Bound) and x.name == kw for x in leaves)]  # fmt: skip
    plan = f"_{fname}_plan"
    outs = [Name(f"o{i}") for i in _own(k)]
    targets = (*outs, Name("grid"), Name("launch"), Name("ints"), Name("consts"))
    tensors = [p.value for p in params if p.role == "tensor"]
    call = Call(Index(Name(kname), Name("grid")),
                (*tensors, Star("*", Name("ints")), Star("**", Name("consts"))))  # fmt: skip
    wrapper: list[Stmt] = [Assign(targets, Index(Name(plan), tuple_of([e for _, e in used])))]
    wrapper += [_alloc(i, k, o) for i, o in zip(_own(k), outs, strict=True)]
    wrapper += [If(Name("launch"), (ExprStmt(call),)), _returns(k)]
    deco = ("torch.fx.wrap",) if wrap else ()
    functions = [FunctionDef(plan, tuple(p for p, _ in used), tuple(body), ("plan_cache",)),
                 FunctionDef(fname, inputs(n_inputs, k), tuple(wrapper), deco)]  # fmt: skip
    return Wrapper(functions, True, [found, {}])


def wrapper(fname: str, kname: str, k: Kernel, n_inputs: int, params: list[Param],
            tuning: Tuning | None, wrap: bool = True) -> Wrapper:  # fmt: skip
    """The replacement ``fname`` launching ``kname`` with ``params``; ``wrap``: decorated with
    ``torch.fx.wrap`` (a rule's replacement, not one kernel's wrapper behind a rank dispatch)."""
    planned = None if k.aliases else _planned(fname, kname, k, n_inputs, params, tuning, wrap)
    return planned or _plain(fname, kname, k, n_inputs, params, tuning, wrap)
