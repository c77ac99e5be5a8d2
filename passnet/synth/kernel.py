"""Assemble a group's kernel from phases: one per output domain, all in one launch.

Most groups need one phase: the domain of their last value covers every output. When outputs
live on different domains (a residual sum and the LayerNorm of its first token; a product
and the negated half of one input), each further domain gets a phase of its own: the grid
is the sum of the phases' grids, program ``pid`` runs the phase its range falls in, and a
phase recomputes from the inputs whatever it needs. An output is stored by the first phase
whose map reaches each of its elements exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from torch.fx import Node

from passnet.synth.lower import Builder, Map
from passnet.synth.ops import ROW_OPS
from passnet.synth.shapes import Dim, Shapes, Unfusable


@dataclass
class Phase:
    """One domain: ``flat`` (BLOCK elements a program) or ``row`` (BLOCK_M rows of N)."""

    mode: str
    domain: list[Dim]
    lines: list[str]


@dataclass
class Kernel:
    """What :mod:`passnet.synth.emit` needs to write the kernel and its wrapper."""

    phases: list[Phase]
    pointers: list[int]  # replacement inputs passed as pointers, by index
    ints: dict[str, str]  # kernel int parameter -> wrapper expression
    strides: dict[str, tuple[int, int]]  # kernel stride parameter -> (input, dim)
    inputs: list[Node]
    outputs: list[Node]
    shapes: Shapes
    ops: list[str] = field(default_factory=list)  # op names, for the docstring
    dots: bool = False  # a phase uses tl.dot: BLOCK_M and BLOCK_N are at least 16


def _count(dims: list[Dim], k: int) -> int:
    out = 1
    for d in dims:
        out *= d.vals[k]
    return out


def _domain(b: Builder, node: Node) -> list[Dim]:
    """The domain a value is computed over: a mean/sum's is that of its operand's row."""
    op = b.ops[node]
    return b.shapes.dims[op.args[0]] if op.kind in ("mean", "sum") else b.shapes.dims[node]


def _ancestors(b: Builder, roots: list[Node]) -> set[Node]:
    seen, todo = set(), list(roots)
    while todo:
        n = todo.pop()
        if n in seen or n not in b.ops:
            continue
        seen.add(n)
        op = b.ops[n]
        todo += [a for a in op.args if isinstance(a, Node)]
    return seen


def _covers(b: Builder, node: Node, m: Map) -> bool:
    """Whether storing ``node`` at map ``m`` writes each of its elements once."""
    per_row = b.mode == "row" and not any(map(b.on_cols, m))
    for k in range(b.shapes.n):
        total, dom = _count(b.shapes.dims[node], k), _count(b.domain, k)
        if per_row:
            dom //= max(b.domain[-1].vals[k], 1)
        if total != dom:
            return False
    return True


def _base(b: Builder) -> Map:
    lines = b.lines
    if b.mode == "flat":
        lines.append("offs = PID * BLOCK + tl.arange(0, BLOCK)")
        lines.append("mask = offs < numel")
        return tuple(b.unravel("offs", b.domain))
    lines.append("rows = PID * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]")
    lines.append("cols = tl.arange(0, BLOCK_N)[None, :]")
    lines.append("rmask = rows < n_rows")
    lines.append(f"cmask = cols < {b.dim(b.domain[-1])}")
    lines.append("mask = rmask & cmask")
    return tuple(b.unravel("rows", b.domain[:-1])) + ("cols",)


def _store(b: Builder, i: int, node: Node, m: Map) -> None:
    v = b.value(node, m)
    off = b.ravel(m, b.shapes.dims[node])
    if off == "0":
        raise Unfusable(f"output '{node.name}' is a single element")
    mask = b.mask(m)
    if mask == "cmask":
        raise Unfusable(f"output '{node.name}' does not depend on the row")
    b.lines.append(f"tl.store(y{i} + {off}, {v}.to(y{i}.dtype.element_ty), mask={mask})")


def build(b: Builder) -> Kernel:
    """Phases until every output is stored; raises :class:`Unfusable` with the reason."""
    inside = set(b.nodes)
    sinks = [n for n in b.outputs if not any(u in inside for u in n.users)]
    if not sinks:
        raise Unfusable("no output of the group is its last value")
    order = sinks + [o for o in b.outputs if o not in sinks]
    pending = list(b.outputs)
    phases: list[Phase] = []
    while pending:
        root = next(r for r in order if r in pending)
        dom = _domain(b, root)
        if not dom:
            raise Unfusable(f"output '{root.name}' is a scalar")
        roots = [r for r in order if r in pending and len(_domain(b, r)) == len(dom) and all(
            a.vals == c.vals for a, c in zip(_domain(b, r), dom, strict=True))]  # fmt: skip
        for r in roots:
            all(map(b.shapes.equal, _domain(b, r), dom))  # guards where only values agree
        row = any(b.ops[n].kind in ROW_OPS for n in _ancestors(b, roots))
        b.start_phase("row" if row else "flat", dom)
        base = _base(b)
        for r in roots:
            op = b.ops[r]
            if op.kind in ("mean", "sum"):
                b.value(r, base[:-1] + (("0",) if op.attrs["keepdim"] else ()))
            else:
                b.value(r, base)
        for i, o in enumerate(b.outputs):
            if o in pending and o in b.first_map and _covers(b, o, b.first_map[o]):
                _store(b, i, o, b.first_map[o])
                pending.remove(o)
        if root in pending:
            raise Unfusable(f"output '{root.name}' cannot be written by its own domain")
        phases.append(Phase(b.mode, b.domain, b.lines))
    return Kernel(phases, sorted(b.pointers), b.ints, b.strides, b.inputs, b.outputs,
                  b.shapes, [b.ops[n].name for n in b.nodes], b.dots)  # fmt: skip
