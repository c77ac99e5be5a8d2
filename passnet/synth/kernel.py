"""Schedule a group's kernel into phases: one per output domain, all in one launch.

Most groups need one phase: the domain of their last value covers every output. When outputs
live on different domains (a residual sum and the LayerNorm of its first token; a product
and the negated half of one input), each further domain gets a phase of its own: the grid
is the sum of the phases' grids, program ``pid`` runs the phase its range falls in, and a
phase recomputes from the inputs whatever it needs. An output is stored by the first phase
whose map reaches each of its elements exactly once. The schedule reads what it needs of
each op from its registration: whether it needs row tiles, what it reduces
(:class:`~passnet.synth.op_model.Reduction`), how a layout move maps coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from torch.fx import Node

from passnet.synth.alias import Step, input_chains
from passnet.synth.ir import COL, ROW, Expr, Index, Int, call, cmp
from passnet.synth.lower import EAGER_CUDA_HELPERS, Builder, Map
from passnet.synth.shapes import (
    MAX_ROW,
    Dim,
    Shapes,
    Unfusable,
    group_rows,
    grouped,
    merge_trailing,
)
from passnet.synth.stmts import Let, Phase


@dataclass
class Kernel:
    """One kernel in IR, and what :mod:`passnet.synth.emit` needs to write it and its wrapper."""

    phases: list[Phase]
    pointers: list[int]  # replacement inputs passed as pointers, by index
    ints: dict[str, Expr]  # kernel int parameter -> wrapper expression
    strides: dict[str, tuple[int, int]]  # kernel stride parameter -> (input, dim)
    inputs: list[Node]
    outputs: list[Node]
    shapes: Shapes
    ops: list[str] = field(default_factory=list)  # op names, for the docstring
    helpers: set[str] = field(default_factory=set)  # module helpers it calls (_dot, _mean, ...)
    aliases: list[tuple[int, list[Step]]] | None = None  # outputs as views of inputs (alias.py)
    scalars: dict[str, Expr] = field(default_factory=dict)  # free literals taken at run time
    # in-place writes the caller sees: node -> the input it is stored into; an output among
    # them is that input itself (the wrapper returns it), the others are not returned
    writes: dict[Node, int] = field(default_factory=dict)

    def buffer(self, i: int) -> int | None:
        """The input whose memory output ``i`` is (an in-place write), None for its own."""
        return self.writes.get(self.outputs[i])

    @property
    def dots(self) -> bool:
        """A phase uses ``tl.dot`` (``_dot``): BLOCK_M and BLOCK_N are at least 16."""
        return "_dot" in self.helpers

    @property
    def eager_cuda(self) -> bool:
        """The kernel takes ``EAGER_CUDA``: it follows eager's CUDA arithmetic there."""
        return bool(self.helpers & EAGER_CUDA_HELPERS)


def _count(dims: list[Dim], k: int) -> int:
    out = 1
    for d in dims:
        out *= d.vals[k]
    return out


def _axis_op(b: Builder, node: Node) -> Node | None:
    """The softmax, mean or sum over a dim other than the last that ``node`` is, or that it
    is computed from elementwise with that op's own dims (masked mean pooling's ``sum / count``
    after two sums over the sequence): its phase walks that dim as the row."""
    above = b.ancestors([node])
    for n in [node, *(n for n in b.nodes if n in above)]:  # in graph order: deterministic
        op = b.ops.get(n)
        red = op.reduction if op is not None else None
        if red is not None and red.axis is not None and [d.vals for d in b.shapes.dims[n]] == [
                d.vals for d in b.shapes.dims[node]]:  # fmt: skip
            return n
    return None


_MIXED = -1  # ``_row_axes``: a row op reached through an op that moves its row unknowably


def _row_axes(b: Builder, node: Node, seen: dict[Node, set[int]]) -> set[int]:
    """The dims of ``node`` along which the row ops it is computed from run (a layer norm,
    softmax or normalize over one dim: one result per element of its row), followed through
    permutes and elementwise ops (``OpDef.elementwise``, a broadcast adding leading dims);
    ``_MIXED`` where another op stands between (a reshape, a mean)."""
    if node in seen:
        return seen[node]
    op = b.ops.get(node)
    out: set[int] = set()
    if op is not None:
        rank, red = len(b.shapes.dims[node]), op.reduction
        below = [(a, _row_axes(b, a, seen)) for a in op.args if isinstance(a, Node)]
        if red is not None and not red.collapses and red.groups is None:
            out = {red.axis if red.axis is not None else rank - 1}
        elif op.defn.moves_layout and "perm" in op.attrs:
            out = {_MIXED if a == _MIXED else op.attrs["perm"].index(a) for a in below[0][1]}
        elif op.defn.elementwise and red is None:
            out = {_MIXED if a == _MIXED else a + rank - len(b.shapes.dims[x])
                   for x, axes in below for a in axes}  # fmt: skip
        elif any(axes for _, axes in below) or red is not None:
            out = {_MIXED}
    seen[node] = out
    return out


def _row_axis(b: Builder, node: Node) -> int | None:
    """The dim of ``node`` a phase computing it must walk as its row, when that is not its
    last: the one dim a row op it is computed from runs along, moved there by a permute (a
    LayerNorm over channels-last, permuted to channels-first). None where the row is the
    last dim, or where the row ops run along several dims or through other ops."""
    axes = _row_axes(b, node, {})
    if len(axes) != 1 or _MIXED in axes:
        return None
    a = axes.pop()
    return a if a != len(b.shapes.dims[node]) - 1 else None


def _domain(b: Builder, node: Node) -> list[Dim]:
    """The domain a value is computed over: a mean/sum's is that of its operand's row, the
    trailing dims it reduces merged into one; over another dim (``_axis_op``), that dim moved
    last; where a row op's row lies on another dim of the value (``_row_axis``), that dim
    moved last."""
    if (ax := _axis_op(b, node)) is not None:
        red = b.ops[ax].reduction
        assert red is not None and red.axis is not None  # _axis_op found one over an axis
        a, src = red.axis, b.shapes.dims[b.ops[ax].args[0]]
        return src[:a] + src[a + 1 :] + [src[a]]
    if (row := _row_axis(b, node)) is not None:
        dims = b.shapes.dims[node]
        return dims[:row] + dims[row + 1 :] + [dims[row]]
    if (c := _collapse_op(b, node)) is None:
        return b.shapes.dims[node]
    return b.ops[c].defn.row_domain(b.shapes, c, b.ops[c])


def _collapse_op(b: Builder, node: Node) -> Node | None:
    """The mean, sum or matmul over the trailing dims that ``node`` is, or that it is computed
    from elementwise with that op's own dims (an epilogue: ``matmul * scale + bias``): its
    phase walks that op's row."""
    above = b.ancestors([node])
    for n in [node, *(n for n in b.nodes if n in above)]:  # in graph order: deterministic
        red = b.ops[n].reduction
        if red is not None and red.collapses and red.axis is None and [
                d.vals for d in b.shapes.dims[n]] == [d.vals for d in b.shapes.dims[node]]:  # fmt: skip
            return n
    return None


def _axis_map(b: Builder, ax: Node, base: Map) -> Map:
    """Coordinates of ``ax``'s result (and of values computed elementwise from it) in a phase
    over its moved domain: the row's ``cols`` back at the axis for a softmax or a normalize,
    the axis dropped (or 0, keepdim) for a mean or sum."""
    red, coords = b.ops[ax].reduction, base[:-1]
    a = red.axis  # type: ignore[union-attr]
    if not red.collapses:  # type: ignore[union-attr]
        return coords[:a] + (base[-1],) + coords[a:]
    return coords[:a] + ((Int(0),) if red.keepdim else ()) + coords[a:]  # type: ignore[union-attr]


def _merged_row(b: Builder, roots: list[Node], dom: list[Dim]) -> int:
    """How many trailing dims of ``dom`` the phase's row merges: those a mean or sum among the
    roots' ancestors reduces together, when they are ``dom``'s own trailing dims (an output
    computed from a reduction over (H, W) walks H * W as its row); 1 otherwise."""
    ks = set()
    for n in b.ancestors(roots):
        op = b.ops[n]
        red = op.reduction
        if red is None or not red.collapses or (k := red.dims) == 1 or len(dom) < k:
            continue
        if all(map(b.shapes.equal, b.shapes.dims[op.args[0]][-k:], dom[-k:])):
            ks.add(k)
    if len(ks) > 1:
        raise Unfusable("reductions over different numbers of trailing dims in one phase")
    return ks.pop() if ks else 1


def _grouped_rows(b: Builder, roots: list[Node], dom: list[Dim]) -> list[Dim] | None:
    """The phase domain [N, G, C / G * S] when the roots come from a group norm that walks
    whole groups as its row (``shapes.grouped``) over ``dom``; None otherwise."""
    found = set()
    for n in b.ancestors(roots):
        op = b.ops[n]
        red = op.reduction
        g = red.groups if red is not None else None
        x = b.shapes.dims[op.args[0]] if g is not None else None
        if x is not None and grouped(x, g):  # type: ignore[arg-type]
            if [d.vals for d in x] != [d.vals for d in dom]:
                raise Unfusable("a group norm's output read on another domain")
            found.add(g)
    if len(found) > 1:
        raise Unfusable("group norms with different group counts in one phase")
    return group_rows(dom, found.pop(), b.shapes.n) if found else None  # type: ignore[arg-type]


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


def _own_place(b: Builder, node: Node, full: list[Dim], ident: Map) -> bool:
    """Whether ``node``'s first map stores each element at its own coordinates: a value of the
    phase's own shape must have been computed at the phase's own map. One read only through a
    same-size window (a 3x3 stride-1 max-pool's first tap) covers as many elements, shifted."""
    return not _same_sizes(b, node, full) or b.first_map[node] == ident


def _same_sizes(b: Builder, node: Node, full: list[Dim]) -> bool:
    """Whether ``node``'s dims have the sizes of ``full``, dim by dim, in every variant."""
    return [d.vals for d in b.shapes.dims[node]] == [d.vals for d in full]


def _base(b: Builder) -> Map:
    """The phase's index variables and masks; the coordinates of its domain's elements."""
    let = b.body.append
    if b.mode == "flat":
        offs, block = b.name("offs", ROW), b.name("BLOCK")
        let(Let(offs, b.pid * block + call("tl.arange", 0, block)))
        let(Let(b.name("mask"), cmp("<", offs, b.name("numel"))))
        return tuple(b.unravel(offs, b.domain))
    rows, cols = b.name("rows", ROW), b.name("cols", COL)
    block_m = b.name("BLOCK_M")
    let(Let(rows, b.pid * block_m + Index(call("tl.arange", 0, block_m), ":, None")))
    let(Let(cols, Index(call("tl.arange", 0, b.name("BLOCK_N")), "None, :")))
    let(Let(b.name("rmask"), cmp("<", rows, b.name("n_rows"))))
    let(Let(b.name("cmask"), cmp("<", cols, b.dim(b.domain[-1]))))
    let(Let(b.name("mask"), b.name("rmask") & b.name("cmask")))
    return tuple(b.unravel(rows, b.domain[:-1])) + (cols,)


def _store(b: Builder, i: int, node: Node, m: Map) -> None:
    v = b.value(node, m)
    off = b.ravel(m, b.shapes.dims[node])
    if off == Int(0):
        raise Unfusable(f"output '{node.name}' is a single element")
    mask = b.mask(m)
    if mask.ident == "cmask":
        raise Unfusable(f"output '{node.name}' does not depend on the row")
    b.store(i, off, v, mask)


def _on(b: Builder, node: Node, full: list[Dim]) -> bool:
    """Whether ``node``'s shape is ``full``, the shape a phase computes its roots over (then
    the phase reaches each of its elements once, at the phase's own coordinates)."""
    if not _same_sizes(b, node, full):
        return False
    return all(map(b.shapes.equal, b.shapes.dims[node], full))  # guards where only values agree


def _write_back(b: Builder, node: Node, m: Map) -> None:
    """The value eager leaves in an input's memory (``node``, the end of an in-place chain
    on that input) stored there, at the phase's own coordinates ``m`` of its elements."""
    v = b.value(node, m)
    mask = b.mask(m)
    if mask.ident == "cmask":
        raise Unfusable(f"the in-place write '{node.name}' does not depend on the row")
    b.write_back(b.writes[node], m, v, mask)


def _check_write(b: Builder, node: Node, j: int, at: tuple[int, Map]) -> None:
    """An input written back may be read by another program after its write landed (a
    pool's overlapping windows, another phase, a row of a reduction): harmless where the
    chain of in-place ops is idempotent (relu, relu6, hardtanh, clamp: f(f(x)) = f(x)), so
    a program that reads the written value computes what it would from the old one; any
    other chain must read the input nowhere but where it is written, in that program."""
    n, chain = node, []
    while n is not b.inputs[j]:
        op = b.ops[n]
        chain.append(op)
        n = op.args[0]
    if all(op.defn.idempotent for op in chain) or b.loads.get(j, set()) == {at}:
        return
    raise Unfusable(
        f"'{node.name}' ({', '.join(op.name for op in reversed(chain))}) writes in place into "
        f"the group's input '{b.inputs[j].name}', which the kernel also reads elsewhere, "
        "where another program may already have written it; only idempotent activations "
        "(relu, relu6, hardtanh, clamp) are written back there"
    )


def view_chain(b: Builder, node: Node) -> tuple[Node, list[Node]] | None:
    """``node`` as reshapes, permutes and copies of a value the group computes: (that value,
    the chain's nodes from it to ``node``); None when ``node`` is not such a chain."""
    chain, n = [], node
    while isinstance(n, Node) and n in b.ops:
        op = b.ops[n]
        if not op.defn.moves_layout:
            break
        chain.append(n)
        n = op.args[0]
    if not chain or not isinstance(n, Node) or n not in b.ops:
        return None
    return n, chain[::-1]


def _forward(b: Builder, base: Node, chain: list[Node], m: Map) -> Map:
    """Coordinates in the chain's last value of the element at ``m`` of ``base``."""
    src = b.shapes.dims[base]
    for n in chain:
        op, dst = b.ops[n], b.shapes.dims[n]
        m = op.defn.forward(b, op, m, src, dst)
        src = dst
    return m


def _store_views(b: Builder, views: dict[Node, tuple[Node, list[Node]]], pending: list) -> None:
    """Store each pending output that is a view chain of a value this phase computed, at the
    coordinates the chain moves that value's elements to (a scatter through the views)."""
    for i, o in enumerate(b.outputs):
        if o not in pending or o not in views:
            continue
        base, chain = views[o]
        m = b.first_map.get(base)
        if m is None or not _covers(b, base, m):
            continue
        off = b.ravel(_forward(b, base, chain, m), b.shapes.dims[o])
        mask = b.mask(m)
        if off == Int(0) or mask.ident == "cmask":
            continue
        b.store(i, off, b.value(base, m), mask)
        pending.remove(o)


def build(b: Builder, store_views: bool = False) -> Kernel:
    """Phases until every output is stored; raises :class:`Unfusable` with the reason.
    ``store_views``: an output that is a view chain of another value of the group (a linear's
    result stored a second time, permuted) is written by that value's phase, through the
    chain, instead of by a phase over its own domain."""
    inside = set(b.nodes)
    sinks = [n for n in b.outputs if not any(u in inside for u in n.users)]
    if not sinks:
        raise Unfusable("no output of the group is its last value")
    extra = [w for w in b.writes if w not in b.outputs]  # written back, not returned
    order = sinks + [o for o in b.outputs if o not in sinks] + extra
    views = {o: c for o in b.outputs if store_views and (c := view_chain(b, o)) is not None
             and o not in b.writes}  # fmt: skip
    pending = list(b.outputs) + extra
    stored: dict[Node, tuple[int, Map]] = {}  # write-backs: the phase and map they store at
    phases: list[Phase] = []
    while pending:
        root = next(r for r in order if r in pending)
        root = views[root][0] if root in views else root
        dom = _domain(b, root)
        if not dom:
            raise Unfusable(f"output '{root.name}' is a scalar")
        roots = [r for r in order if r in pending and r not in views and len(_domain(b, r)) ==
                 len(dom) and all(a.vals == c.vals for a, c in zip(_domain(b, r), dom,
                                                                   strict=True))]  # fmt: skip
        roots = roots if root in roots else [root, *roots]
        for r in roots:
            all(map(b.shapes.equal, _domain(b, r), dom))  # guards where only values agree
        row = any(b.ops[n].defn.needs_row for n in b.ancestors(roots))
        full = dom
        k = _merged_row(b, roots, dom) if row else 1
        dom = merge_trailing(dom, k, b.shapes.n)
        if row and (groups := _grouped_rows(b, roots, full)) is not None:
            if k != 1:
                raise Unfusable("a group norm and a reduction over trailing dims in one phase")
            dom = groups
        if row and max(dom[-1].vals) > MAX_ROW:  # the wrapper would refuse it at run time
            raise Unfusable(f"rows longer than {MAX_ROW} elements ({max(dom[-1].vals)})")
        phase = b.start_phase("row" if row else "flat", dom, len(phases))
        base = _base(b)
        for r in roots:
            if (ax := _axis_op(b, r)) is not None:
                b.value(r, _axis_map(b, ax, base))
            elif (moved := _row_axis(b, r)) is not None:  # the row back at its own dim
                b.value(r, base[:moved] + base[-1:] + base[moved:-1])
            elif (reducer := _collapse_op(b, r)) is not None and (red := b.ops[reducer].reduction):
                keep = (Int(0),) * red.dims if red.keepdim else ()
                b.value(r, base[:-1] + keep)
            else:
                b.value(r, base if dom == full else b.reshape(base, dom, full))
        ident = base if dom == full else b.reshape(base, dom, full)  # the phase's own map
        for w in [w for w in b.writes if w in pending and _on(b, w, full)]:
            _write_back(b, w, ident)
            stored[w] = (phase.index, ident)
            pending.remove(w)
        for i, o in enumerate(b.outputs):
            if o in pending and o not in views and o not in b.writes and o in b.first_map and (
                    _covers(b, o, b.first_map[o])) and _own_place(b, o, full, ident):  # fmt: skip
                _store(b, i, o, b.first_map[o])
                pending.remove(o)
        _store_views(b, views, pending)
        if root in pending or any(o in pending and views[o][0] is root for o in views):
            raise Unfusable(f"output '{root.name}' cannot be written by its own domain")
        phases.append(phase)
    for w, j in b.writes.items():
        _check_write(b, w, j, stored[w])
    return Kernel(phases, sorted(b.pointers), b.ints, b.strides, b.inputs, b.outputs,
                  b.shapes, [b.ops[n].name for n in b.nodes], set(b.helpers),
                  input_chains(b), dict(b.scalars), dict(b.writes))  # fmt: skip
