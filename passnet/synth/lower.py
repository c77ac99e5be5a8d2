"""Lower a fused group to the kernel IR, one phase at a time.

The kernel iterates over a *domain* D: the shape of the group's last value (of the input of
a final mean/sum). In ``flat`` mode (pointwise only) each program takes BLOCK elements of D
and unravels their index into coordinates; in ``row`` mode (any reduction over the last dim)
each program takes BLOCK_M rows of D with all N = D[-1] columns, so a reduction is one
``tl.sum``/``tl.max`` along axis 1.

Every value is computed *at a map*: the tuple of coordinate expressions, as functions of D's
coordinates, at which the value is needed. Walking back from the outputs, a view changes the
map (a permute reorders it; a reshape ravels it over the view's dims and unravels it over the
source's, keeping common leading/trailing dims as they are), a broadcast drops or zeroes
coordinates, and a reduction asks for its operand along the row. Inputs are then loaded at
``sum(coord * stride)`` with the strides read at run time, so transposed, sliced or
broadcast inputs cost no copy. What each op computes is its registration's
(:meth:`~passnet.synth.registry.OpDef.lower`); the builder holds what they share: the
memoised ``tK = expr`` lets, maps, loads, rounding, and the kernel's parameters.
"""

from __future__ import annotations

from torch.fx import Node

from passnet.synth.indices import INT_RESULTS, index_nodes
from passnet.synth.ir import (
    COL,
    ROW,
    Attr,
    Bound,
    Call,
    Const,
    Expr,
    Int,
    List,
    Load,
    Name,
    call,
    cmp,
    conj,
    wrap,
)
from passnet.synth.op_model import Op
from passnet.synth.shapes import (
    Dim,
    Shapes,
    Unfusable,
    group_rows,
    grouped,
    merge_trailing,
)
from passnet.synth.stmts import Let, Phase, Store

Map = tuple[Expr, ...]
EAGER_CUDA_HELPERS = frozenset(
    {"_stat", "_mix", "_mean", "_cpu_round"}
)  # module helpers taking EAGER_CUDA


class Builder:
    """Builds the kernel IR: per phase, one memoised ``tK = expr`` let per new expression."""

    def __init__(self, nodes: list[Node], ops: dict[Node, Op], inputs: list[Node],
                 outputs: list[Node], shapes: Shapes,
                 writes: dict[Node, int] | None = None) -> None:  # fmt: skip
        self.nodes, self.ops, self.inputs, self.outputs = nodes, ops, inputs, outputs
        self.index = {n: i for i, n in enumerate(inputs)}
        self.shapes = shapes
        # write-backs: node -> the input whose memory eager leaves its value in (an in-place
        # write the caller sees, graph.Group.writes); and where each input is loaded
        self.writes: dict[Node, int] = dict(writes or {})
        self.loads: dict[int, set[tuple[int, Map]]] = {}
        self.ints: dict[str, Expr] = {}  # shared by every phase: kernel parameters
        self.scalars: dict[str, Expr] = {}  # free literals the kernel takes at run time
        self.strides: dict[str, tuple[int, int]] = {}
        self.pointers: set[int] = set()
        self.helpers: set[str] = set()  # module helpers the kernel calls (_dot, _mean, ...)
        classified: dict[Node, Op | str] = dict(ops)
        self.index_nodes = index_nodes(
            nodes, classified, outputs, lambda n: set(shapes.dtypes[n].vals) <= set(INT_RESULTS)
        )
        self.count = 0
        self.start_phase("flat", [], 0)

    def start_phase(self, mode: str, domain: list[Dim], index: int) -> Phase:
        """Forget every value: a phase iterates over its own domain (see kernel.py)."""
        self.mode, self.domain, self.phase = mode, domain, Phase(mode, domain, [], index)
        self.body = self.phase.body
        self.exprs: dict[Expr, Expr] = {}
        self.values: dict[tuple[Node, Map], Expr] = {}
        self.int_values: dict[tuple[Node, Map], Expr] = {}
        self.first_map: dict[Node, Map] = {}
        return self.phase

    # -- names -----------------------------------------------------------------------------
    def name(self, ident: str, *axes: str) -> Name:
        """One of the phase's own names (``offs``, ``mask``, ``BLOCK_M``, ...)."""
        return Name(ident, frozenset(axes), self.phase.index)

    @property
    def pid(self) -> Expr:
        """The program's index within the phase's grid."""
        i = self.phase.index
        return Name("pid") if i == 0 else Name("pid") - Name(f"P{i}")

    def helper(self, fn: str, *args: Expr | int | float) -> Call:
        """A call of one of the module's helpers (``_dot``, ``_mean``, ``_stat``, ``_mix``)."""
        self.helpers.add(fn)
        return call(fn, *args)

    @property
    def eager_cuda(self) -> Name:
        """The constexpr saying whether the kernel follows eager's CUDA arithmetic (the device
        is CUDA): group norm's statistics, a mean's division, bilinear weights."""
        return Name("EAGER_CUDA")

    # -- expressions -----------------------------------------------------------------------
    def let(self, e: Expr) -> Expr:
        if e in self.exprs:
            return self.exprs[e]
        if isinstance(e, Name) or e == Int(0):
            return e
        name = Name(f"t{self.count}", e.axes)
        self.count += 1
        self.exprs[e] = name
        self.body.append(Let(name, e))
        return name

    def mask(self, tokens: Map | list[Expr]) -> Name:
        """The mask a tile indexed by ``tokens`` needs: rows, columns or both."""
        if self.mode == "flat":
            return self.name("mask")
        rows = any(ROW in t.axes for t in tokens)
        cols = any(COL in t.axes for t in tokens)
        return self.name("mask" if rows and cols else "cmask" if cols else "rmask")

    def on_cols(self, e: Expr) -> bool:
        return COL in e.axes

    def on_tile(self, v: Expr) -> Expr:
        """``v`` over the whole [BLOCK_M, BLOCK_N] tile (a value constant along the row, such as
        a per-row input, broadcast), as a reduction along the row needs it."""
        if self.on_cols(v):
            return v
        tile = List((self.name("BLOCK_M"), self.name("BLOCK_N")))
        return self.let(v + call("tl.zeros", tile, Const("tl.float32")))

    def dim(self, d: Dim) -> Expr:
        if d.literal is not None:
            return Int(d.literal)
        for name, e in self.ints.items():
            if e == d.expr:
                return Name(name)
        name = f"n{len(self.ints)}"
        self.ints[name] = d.expr
        return Name(name)

    def constant(self, node: Node, key: object, value: object) -> Expr:
        """A literal of ``node`` (an eps, a scale): in a generic rule, where it is free, the
        kernel parameter that takes the matcher's binding at run time; a scalar input of the
        graph where the call passes one (``number``); else the literal."""
        if isinstance(value, Node):  # a scalar input of the graph: the kernel's argument
            return self.number(value)
        keyword = self.shapes.freed(node, key)
        if keyword is None:
            return wrap(value)  # type: ignore[arg-type]
        self.scalars[keyword] = Bound(keyword)
        return Name(keyword)

    def number(self, value: Node) -> Expr:
        """The input ``value``, a Python number (``Shapes.numbers``), as the kernel's scalar
        argument (the wrapper passes it as a float)."""
        j = self.index[value]
        if j not in self.shapes.numbers:
            raise Unfusable(f"'{value.name}' is read as a number but is no scalar input")
        self.pointers.add(j)
        return self.pointer(j)

    def unravel(self, flat: Expr, dims: list[Dim]) -> list[Expr]:
        out: list[Expr] = []
        top = next((i for i, d in enumerate(dims) if d.literal != 1), len(dims))
        for i in range(len(dims) - 1, -1, -1):
            d = dims[i]
            if d.literal == 1:
                out.append(Int(0))
            elif i == top:
                out.append(flat)
            else:
                out.append(self.let(flat % self.dim(d)))
                flat = self.let(flat // self.dim(d))
        return out[::-1]

    def ravel(self, coords: Map | list[Expr], dims: list[Dim]) -> Expr:
        acc: Expr = Int(0)
        for tok, d in zip(coords, dims, strict=True):
            if d.literal == 1:
                continue
            if acc == Int(0):
                acc = tok
            elif tok == Int(0):
                acc = self.let(acc * self.dim(d))
            else:
                acc = self.let(acc * self.dim(d) + tok)
        return acc

    # -- maps ------------------------------------------------------------------------------
    def reshape(self, m: Map, src: list[Dim], dst: list[Dim]) -> Map:
        """Coordinates in ``dst`` of the element at ``m`` in ``src`` (same numel, row-major)."""
        eq = self.shapes.equal
        p = 0
        while p < min(len(src), len(dst)) and eq(src[p], dst[p]):
            p += 1
        s = 0
        while s < min(len(src), len(dst)) - p and eq(src[-1 - s], dst[-1 - s]):
            s += 1
        mid_src, mid_dst = src[p : len(src) - s], dst[p : len(dst) - s]
        if len(mid_src) == 1 and len(mid_dst) == 1:
            mid = [m[p]]
        elif not mid_dst:
            mid = []
        else:
            mid = self.unravel(self.ravel(m[p : len(m) - s], mid_src), mid_dst)
        return tuple(m[:p]) + tuple(mid) + tuple(m[len(m) - s :])

    def broadcast(self, m: Map, out: list[Dim], operand: Node) -> Map:
        return self.broadcast_dims(m, out, self.shapes.dims[operand])

    def broadcast_dims(self, m: Map, out: list[Dim], dims: list[Dim]) -> Map:
        """The coordinates in ``dims`` (right-aligned to ``out``) of the output's at ``m``:
        leading dims it lacks dropped, its size-1 dims broadcast (at 0, guarded where the
        size is read at run time)."""
        k = len(out) - len(dims)
        res: list[Expr] = []
        for j, d in enumerate(dims):
            if d.all_one() and not out[k + j].all_one():
                if d.literal is None:
                    self.shapes.guard(cmp("==", d.expr, 1))
                res.append(Int(0))
            else:
                res.append(m[k + j])
        return tuple(res)

    def reduced_map(self, node: Node, m: Map) -> Map:
        """Where a mean/sum at ``m`` reads its operand: the kernel's row runs along the trailing
        dims it reduces (several merged into one row, split again by index arithmetic)."""
        op = self.ops[node]
        red = op.reduction
        assert red is not None
        x, k = op.args[0], red.dims
        if any(self.on_cols(t) for t in m):
            raise Unfusable(f"{op.name} '{node.name}' is needed along the row it reduces")
        if red.axis is not None:  # the row walks that dim: cols there, the rest as at m
            a = red.axis
            row = m[:a] + (self.name("cols", COL),) + m[a + (1 if red.keepdim else 0) :]
            self.row_check(row, x, op.name, a)
            return row
        row = (m[:-k] if red.keepdim else m) + (self.name("cols", COL),)
        if k == 1:
            self.row_check(row, x, op.name)
            return row
        src = self.shapes.dims[x]
        merged = merge_trailing(src, k, self.shapes.n)
        if not self.shapes.equal(merged[-1], self.domain[-1]):
            raise Unfusable(f"{op.name} '{node.name}' reduces dims of another size than the row")
        return self.reshape(row, merged, src)

    def ancestors(self, roots: list[Node]) -> set[Node]:
        """``roots`` and the group's nodes they are computed from."""
        seen, todo = set(), list(roots)
        while todo:
            n = todo.pop()
            if n in seen or n not in self.ops:
                continue
            seen.add(n)
            todo += [a for a in self.ops[n].args if isinstance(a, Node)]
        return seen

    def group_check(self, node: Node, op: Op) -> None:
        """A group norm's row: one channel's last dim (a group per channel, [N, C, L]) or a
        whole group (``shapes.group_rows``); the phase's row must be that one."""
        x, g = self.shapes.dims[op.args[0]], op.attrs["groups"]
        if any(v % g for v in x[1].vals):
            raise Unfusable("group_norm's channels are not a multiple of its groups")
        whole = grouped(x, g)
        row = group_rows(x, g, self.shapes.n)[-1] if whole else x[-1]
        if not self.shapes.equal(row, self.domain[-1]):
            raise Unfusable(f"group_norm '{node.name}' needs another row than the kernel's")
        self.shapes.guard(cmp("==", x[1].expr % g, 0) if whole else cmp("==", x[1].expr, g))

    def row_check(self, m: Map, node: Node, what: str, axis: int = -1) -> None:
        """``m`` runs along the kernel's row at ``axis`` (only there), over as many elements."""
        a = axis % len(m)
        if m[a] != self.name("cols", COL) or any(
                self.on_cols(t) for i, t in enumerate(m) if i != a):  # fmt: skip
            raise Unfusable(f"{what} '{node.name}' reduces a dim that is not the kernel's row")
        if not self.shapes.equal(self.shapes.dims[node][a], self.domain[-1]):
            raise Unfusable(f"{what} '{node.name}' reduces a dim of another size than the row")

    # -- values ----------------------------------------------------------------------------
    def pointer(self, j: int) -> Name:
        """Input ``j``'s pointer parameter (``x{j}``)."""
        return Name(f"x{j}")

    def stride(self, j: int, d: int) -> Name:
        """The kernel parameter holding input ``j``'s stride along dim ``d``."""
        name = f"x{j}_s{d}"
        self.strides[name] = (j, d)
        self.pointers.add(j)
        return Name(name)

    def _terms(self, j: int, m: Map) -> list[Expr]:
        """The element offset of input ``j`` at ``m``, through its strides, term by term."""
        self.pointers.add(j)
        return [tok * self.stride(j, d) for d, tok in enumerate(m) if tok != Int(0)]

    def load(self, j: int, m: Map, integer: bool = False) -> Expr:
        """Input ``j`` at ``m``, as float32 (``integer``: as stored, for indices)."""
        terms = self._terms(j, m)
        ptr, other = self.pointer(j), Int(0) if integer else Const("0.0")

        def conv(e: Expr) -> Expr:
            return e if integer else e.to(Const("tl.float32"))

        if not terms:
            return self.let(conv(Load(ptr)))
        off = self.let(conj("+", terms))
        if not any(t.axes for t in m):
            return self.let(conv(Load(ptr + off)))  # one fixed element: x[3]
        return self.let(conv(Load(ptr + off, self.mask(m), other)))

    def round(self, value: Expr, node: Node) -> Expr:
        dt = self.shapes.dtypes[node]
        if all(str(v) == "torch.float32" for v in dt.vals) and (
                dt.index is None or not self.shapes.generic):  # fmt: skip
            return value  # float32 wherever the kernel runs (a generic one: any input dtype)
        if dt.index is not None:
            self.pointers.add(dt.index)
        return self.let(call("_round", value, dt.triton()))

    def value(self, node: Node, m: Map) -> Expr:
        key = (node, m)
        if key not in self.values:
            self.first_map.setdefault(node, m)
            if node in self.index:
                self.loads.setdefault(self.index[node], set()).add((self.phase.index, m))
                self.values[key] = self.load(self.index[node], m)
            elif node in self.index_nodes:  # an integer result (an output): exact, not float
                self.values[key] = self.indices(node, m)
            else:
                op = self.ops[node]
                self.values[key] = op.defn.lower(self, node, op, m)
        return self.values[key]

    def indices(self, node: Node, m: Map) -> Expr:
        """An index node (``passnet.synth.indices``) at ``m``, in integers: an input loaded as
        stored, a view followed to its source, integer arithmetic of indices and literals."""
        key = (node, m)
        if key in self.int_values:
            return self.int_values[key]
        if node in self.index:
            out = self.load(self.index[node], m, integer=True)
        elif node not in self.index_nodes:
            raise Unfusable(f"'{node.name}' is read as indices but is no integer index value")
        elif (src := self.ops[node].defn.source(self, node, self.ops[node], m)) is not None:
            out = self.indices(*src)
        else:
            op = self.ops[node]
            out = op.defn.int_lower(self, node, op, m)
        self.int_values[key] = out
        return out

    def operand(self, a: object, node: Node, m: Map, i: int = 0) -> Expr:
        """Operand ``i`` of ``node`` at ``m``: a tensor's value, or a number (free or not)."""
        if isinstance(a, Node):
            return self.value(a, self.broadcast(m, self.shapes.dims[node], a))
        if self.shapes.freed(node, ("arg", i)) is not None:
            return self.constant(node, ("arg", i), a)
        return Const(repr(float(a)))  # type: ignore[arg-type]

    def param(self, a: object, m: Map) -> Expr | None:
        """A per-channel / per-column parameter (weight, bias, running stats) at ``m``."""
        if a is None:
            return None
        if not isinstance(a, Node) or len(self.shapes.dims[a]) != 1:
            raise Unfusable("a normalisation parameter that is not one-dimensional")
        return self.value(a, m)

    def passable(self, x: object) -> bool:
        """A reshape or copy inside the group that nothing else needs at its own map."""
        op = self.ops.get(x) if isinstance(x, Node) else None
        return (
            op is not None
            and x not in self.outputs
            and isinstance(x, Node)
            and len(x.users) == 1
            and op.defn.folds_into_reshape
        )

    def store(self, i: int, offset: Expr, v: Expr, mask: Name) -> None:
        """Output ``i`` written at ``offset``, converted to its element type."""
        y = Name(f"y{i}")
        self.body.append(Store(y + offset, v.to(Attr(y, "dtype.element_ty")), mask))

    def write_back(self, j: int, m: Map, v: Expr, mask: Name) -> None:
        """``v`` written into input ``j`` at ``m`` (through its strides, as it is loaded),
        converted to its element type: an in-place write the caller sees."""
        terms = self._terms(j, m)
        if not terms:
            raise Unfusable(f"the in-place write into input '{self.inputs[j].name}' is a "
                            "single element")  # fmt: skip
        x = self.pointer(j)
        off = self.let(conj("+", terms))
        self.body.append(Store(x + off, v.to(Attr(x, "dtype.element_ty")), mask))
