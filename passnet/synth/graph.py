"""Trace a task's variants and choose, in each, the run of ops that becomes one kernel.

A variant is traced with the matcher's own tracer (``passnet.passes.matcher.to_fx``) and its
shapes and dtypes recorded by running it once on materialised inputs (``ShapeProp``). Every
compute node is classified (:func:`passnet.synth.ops.classify`); candidate groups are runs of
consecutive supported nodes in graph order, so an unsupported leading op (conv2d, linear,
attention) stays outside and its result becomes a pattern input, and an unsupported tail
(pooling, argmax) reads the group's output. Trailing pure views stay outside too: eager runs
them as views anyway, and so do views of inputs that only leave the group. The largest
candidate (most kernels eager would launch) that lowers to one kernel wins; the ops left are
searched again for the next group (``select_all``), each group a rule of the pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import torch
from torch.fx import GraphModule, Node
from torch.fx.node import map_aggregate
from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata

from passnet.dataset.task import Variant
from passnet.graph.aliasing import shared_write
from passnet.graph.sample import load_module, load_sample, materialize
from passnet.passes.matcher import to_fx
from passnet.synth.alias import shared_outputs
from passnet.synth.bools import bool_reads, carries_bool
from passnet.synth.indices import INT_RESULTS, index_nodes, reads_as_index
from passnet.synth.ir import BinOp, Const, DtypeOf, Size, Tuple
from passnet.synth.kernel import Kernel, build
from passnet.synth.lower import Builder
from passnet.synth.op_model import scalar_input
from passnet.synth.ops import FLOATS, INTEGERS, Op, classify
from passnet.synth.pattern import pattern_source
from passnet.synth.shapes import Dim, DType, Shapes, Unfusable

if TYPE_CHECKING:
    from passnet.synth.free import Free


@dataclass
class Traced:
    """One variant's FX graph with shapes recorded and every compute node classified."""

    variant: Variant | None  # None for a module traced in process (tests)
    gm: GraphModule
    ops: dict[Node, Op | str]

    @cached_property
    def position(self) -> dict[Node, int]:
        """Each node's place in graph order."""
        return {n: i for i, n in enumerate(self.gm.graph.nodes)}


@dataclass
class Group:
    """Consecutive supported nodes of one variant, with the values they read and export;
    ``bound``: a generic rule's free literals as the matcher bound them here (keyword ->
    the graph's value; empty for a chosen group); ``writes``: in-place writes the caller
    sees, an input -> the group's node whose value eager leaves in that input's memory (the
    end of the chain of in-place ops on it, ``_write_back``): the kernel stores it there too."""

    traced: Traced
    nodes: list[Node]
    inputs: list[Node]
    outputs: list[Node]
    bound: dict[str, Any] = field(default_factory=dict)
    writes: dict[Node, Node] = field(default_factory=dict)

    @property
    def ops(self) -> dict[Node, Op]:
        """Each node's op; a node that reads a written input after the write (Dynamo's
        ``relu(x, inplace=True)`` then ``max_pool2d(x)``) reads the written value instead."""
        ops: dict[Node, Op] = {n: self.traced.ops[n] for n in self.nodes}  # type: ignore[misc]
        for x, end in self.writes.items():
            for n in self.nodes:
                op = ops[n]
                if x in op.args and not _writes_into(op, x):
                    ops[n] = replace(op, args=[end if a is x else a for a in op.args])
        return ops

    @property
    def source(self) -> str:
        return pattern_source(self.nodes, self.inputs, self.outputs)


def _meta(node: object) -> TensorMetadata | None:
    meta = node.meta.get("tensor_meta") if isinstance(node, Node) else None
    return meta if isinstance(meta, TensorMetadata) else None


def _metas(nodes: list[Node], why: str = "") -> list[TensorMetadata]:
    """The recorded tensor metadata of one node in every variant (Unfusable without)."""
    metas = [_meta(node) for node in nodes]
    found = [m for m in metas if m is not None]
    if len(found) != len(metas):
        raise Unfusable(why or f"'{nodes[0].name}' has no recorded tensor shape")
    return found


def _holds_int_result(node: Node) -> bool:
    meta = _meta(node)
    return meta is not None and meta.dtype in INT_RESULTS


def rank_of(node: object) -> int:
    meta = _meta(node)
    return len(meta.shape) if meta is not None else -1


def trace_graph(
    module: torch.nn.Module, args: list, variant: Variant | None = None, *, noop_copies: bool = True
) -> Traced:
    """``module`` as the matcher sees it, shapes and dtypes propagated on ``args``.
    ``noop_copies``: a ``contiguous()`` of a tensor whose layout is contiguous counts as no
    eager kernel (``attrs["noop"]``); False counts it as a copy, as the ``correct`` keep rule
    wants (a copy kernel eager does not need is still a correct, slower pass)."""
    gm = to_fx(module)
    with torch.no_grad():
        ShapeProp(gm).propagate(*args)
    ops = {n: classify(n, rank_of) for n in gm.graph.nodes
           if n.op in ("call_function", "call_method", "call_module")}  # fmt: skip
    for node, op in ops.items():
        if isinstance(op, Op) and op.defn.may_copy and _copies(node):
            op.attrs["copy"] = True
        if (noop_copies and isinstance(op, Op) and node.target == "contiguous"
                and _contiguous(node.args[0])):  # fmt: skip
            op.attrs["noop"] = True
    return Traced(variant, gm, ops)


def _contiguous(node: object) -> bool:
    """Whether the value's recorded layout is contiguous (``contiguous()`` then copies nothing)."""
    meta = _meta(node)
    if meta is None:
        return False
    probe = torch.empty_strided(tuple(meta.shape), tuple(meta.stride), device="meta")
    return probe.is_contiguous()


def _copies(node: Node) -> bool:
    """Whether eager's reshape copies: its input's recorded layout cannot be viewed as the
    result's shape (an expanded tensor reshaped, as grouped-query attention's repeat_kv)."""
    src, out = _meta(node.args[0]), _meta(node)
    if src is None or out is None or node.target == "view":
        return False
    probe = torch.empty_strided(tuple(src.shape), tuple(src.stride), device="meta")
    try:
        probe.view(tuple(out.shape))
    except RuntimeError:
        return True
    return False


def trace_variant(variant: Variant, *, noop_copies: bool = True) -> Traced:
    """The variant's graph, shapes propagated on its seed-0 inputs (``trace_graph``)."""
    sample = load_sample(variant.path)
    return trace_graph(load_module(sample), materialize(sample, seed=0), variant,
                       noop_copies=noop_copies)  # fmt: skip


def _reads(node: Node) -> list[Node]:
    found: list[Node] = []
    map_aggregate((node.args, node.kwargs), lambda v: found.append(v) if isinstance(v, Node)
                  else None)  # fmt: skip
    return found


def make_group(traced: Traced, nodes: list[Node]) -> Group | str:
    """The group of ``nodes`` with its inputs and outputs, or why it is no candidate."""
    inside = set(nodes)
    # A value nothing reads (the graph computes and drops it; eager runs it anyway) is an
    # output too: the kernel writes it, so the pattern covers it and the pass stays exact.
    outputs = [n for n in nodes if not n.users or any(u not in inside for u in n.users)]
    live, todo = set(outputs), list(outputs)
    while todo:
        for a in _reads(todo.pop()):
            if a in inside and a not in live:
                live.add(a)
                todo.append(a)
    if live != inside:
        return "part of it is never used"
    if split := next((o for o in outputs if _split(traced.ops, o)), None):
        return f"a piece of the split '{split.name}' is computed outside the group"
    if (shared := shared_outputs(outputs, inside, traced.ops)) is not None:
        return shared
    writes: dict[Node, Node] = {}
    for n in nodes:  # an in-place activation: a private write, or one written back
        op = traced.ops[n]
        if isinstance(op, Op) and op.attrs.get("inplace"):
            why = _shared_write(traced, n, nodes)
            if isinstance(why, str):
                return why
            if why is not None:
                writes[why[0]] = why[1]
    seen, todo = set(), [u for o in outputs for u in o.users if u not in inside]
    while todo:  # convex: no path leaves the group and comes back
        node = todo.pop()
        if node in inside:
            return f"'{node.name}' depends on a value computed outside the group"
        if node not in seen:
            seen.add(node)
            todo.extend(node.users)
    inputs = list(dict.fromkeys(a for n in nodes for a in _reads(n) if a not in inside))
    idx = index_nodes(nodes, traced.ops, outputs, _holds_int_result)
    for a in inputs:
        meta = _meta(a)
        if meta is None and scalar_input(a):  # a scalar argument (no op reads it as a tensor)
            continue
        if meta is None:
            return f"it reads the non-tensor value '{a.name}'"

        def exact(u: Node, v: Node) -> bool:  # reads v as stored, as a flag or as a float
            return _reads_as_flag_or_float(traced, u, v) or u in idx or reads_as_index(
                u, v, traced.ops)  # fmt: skip

        if meta.dtype not in FLOATS and not (
            (meta.dtype in INTEGERS and all(exact(u, a) for u in a.users if u in inside))
            or (meta.dtype is torch.bool and bool_reads(traced.ops, a, inside, exact))
        ):
            return f"it reads '{a.name}' of dtype {meta.dtype}"
    return Group(traced, nodes, inputs, outputs, writes=writes)


def _reads_as_flag_or_float(traced: Traced, user: Node, a: Node) -> bool:
    """Whether ``user`` reads the integer or bool tensor ``a`` only in ways a float kernel
    reproduces exactly: a cast to a float dtype (eager's own conversion) or to bool, or as
    masked_fill's mask (zero or not)."""
    op = traced.ops.get(user)
    return isinstance(op, Op) and op.defn.reads_exactly(op, a)


def _writes_into(op: Op | str | None, x: Node) -> bool:
    """Whether ``op`` is an in-place op writing into ``x`` itself."""
    return isinstance(op, Op) and bool(op.attrs.get("inplace")) and op.args[0] is x


def _shared_write(traced: Traced, node: Node, nodes: list[Node]) -> str | tuple[Node, Node] | None:
    """What becomes of the write of the in-place ``node``: None when the memory it writes is
    private to the group (made inside it, through views and in-place ops back to the op that
    allocated it, and read by nothing else), so it is computed out of place; (the input,
    the node whose value ends in it) when that memory is a group's input the kernel can write
    back (``_write_back``); else why the group is refused."""
    inside = set(nodes)

    def link(v: Node) -> Node | Literal["fresh"] | None:
        op = traced.ops[v]  # an Op: ``grouped`` let only those in
        assert isinstance(op, Op)
        return op.args[0] if op.view or op.attrs.get("inplace") else "fresh"

    def grouped(v: Node) -> bool:  # a node the group computes with an op model
        return v in inside and isinstance(traced.ops.get(v), Op)

    op = traced.ops[node]
    assert isinstance(op, Op)  # the in-place node has an op model
    why = shared_write(node, op.args[0], grouped, link)
    if why is None:
        return None
    if why.kind == "read":
        other = why.other.name if why.other is not None else "another node"
        return (f"'{node.name}' writes in place into '{why.node.name}', which '{other}' reads "
                "too (the kernel computes the write out of place: that read would miss it)")  # fmt: skip
    name = getattr(why.node, "name", why.node)
    if why.kind != "input":
        return f"'{node.name}' writes in place into the group's input '{name}'"
    v = op.args[0]
    while v is not why.node:  # back to the input through in-place ops only
        vop = traced.ops[v]
        assert isinstance(vop, Op)
        if not vop.attrs.get("inplace"):
            return (f"'{node.name}' writes in place into the group's input '{name}' through "
                    f"the view '{v.name}'")  # fmt: skip
        v = vop.args[0]
    return _write_back(traced, why.node, nodes)


def _write_back(traced: Traced, x: Node, nodes: list[Node]) -> str | tuple[Node, Node]:
    """(``x``, the node whose value eager leaves in ``x``'s memory) for the group ``nodes``
    that writes into its input ``x`` in place, where the kernel can do the same: write that
    value into ``x`` too, and give the group's nodes that read ``x`` after the write that
    value (``Group.ops``). Why not, where a read of ``x`` would see the wrong value: a node
    of the group reading it before the write (the kernel's write may land first), or a node
    outside reading it between the write and the group's end (the replacement runs there)."""
    inside, pos = set(nodes), traced.position
    writers = [u for u in x.users if u in inside and _writes_into(traced.ops.get(u), x)]
    if len(writers) != 1:
        names = " and ".join(f"'{w.name}'" for w in writers)
        return f"the group's input '{x.name}' is written in place by {names}"
    first = end = writers[0]
    while nxt := [u for u in end.users if u in inside and _writes_into(traced.ops.get(u), end)]:
        end = nxt[0]  # a chain of in-place ops: each link read by the next alone (shared_write)
    last = max(pos[n] for n in nodes)
    for u in x.users:
        if u in inside and u is not first and pos[u] < pos[end]:
            return (f"'{u.name}' reads the group's input '{x.name}' before the in-place "
                    f"write of '{end.name}' into it is done")  # fmt: skip
        if u not in inside and pos[first] < pos[u] < last:
            return (f"'{u.name}' reads '{x.name}' between its in-place write by "
                    f"'{first.name}' and the group's end")  # fmt: skip
    return x, end


def _work(ops: dict[Node, Op | str], nodes: Iterable[Node]) -> int:
    """The kernels eager launches for ``nodes`` (each a node with an op model)."""
    return sum(op.work for n in nodes if isinstance(op := ops[n], Op))


def _split(ops: dict[Node, Op | str], node: object) -> bool:
    """Whether ``node`` is a split (chunk): a tuple of pieces, no tensor a kernel can make."""
    op = ops.get(node) if isinstance(node, Node) else None
    return isinstance(op, Op) and op.defn.parts


def _trim(run: list[Node], ops: dict[Node, Op | str]) -> list[Node]:
    """Without the views (and eval dropouts) whose users are all outside: eager runs those
    as views of the group's outputs or inputs anyway, and a kernel would have to copy them.
    A piece of a split stays with the split (``opdefs/splits.py``)."""
    out = list(run)
    while True:
        inside = set(out)
        drop = next((n for n in reversed(out) if ops[n].view  # type: ignore[union-attr]
                     and not any(u in inside for u in n.users)
                     and not (n.args and _split(ops, n.args[0]))), None)  # fmt: skip
        if drop is None:
            return out
        out.remove(drop)


def candidates(traced: Traced) -> Iterator[list[Node]]:
    """Runs of supported nodes, most eager kernels first, then longest, then earliest."""
    runs: list[list[Node]] = [[]]
    for node, op in traced.ops.items():
        if isinstance(op, Op):
            runs[-1].append(node)
        elif runs[-1]:
            runs.append([])
    order = {n: i for i, n in enumerate(traced.ops)}
    subs: dict[tuple[Node, ...], None] = {}
    for run in runs:
        for i in range(len(run)):
            for j in range(i + 1, len(run) + 1):
                if sub := _trim(run[i:j], traced.ops):
                    subs[tuple(sub)] = None

    def rank(sub: tuple[Node, ...]) -> tuple[int, int, int]:
        work = _work(traced.ops, sub)
        return (-work, -len(sub), order[sub[0]])

    for found in sorted(subs, key=rank):
        yield list(found)


def analyse(groups: list[Group], free: list[Free] | tuple[()] = (),
            generic: bool = False) -> Kernel:  # fmt: skip
    """Shapes, dtypes and the kernel of one pattern, checked against every variant in
    ``groups`` (one group per variant, all with the same pattern source). ``generic``: a
    generic rule's kernel (``Shapes.generic``), ``free`` its literals taken at run time
    (``passnet.synth.free``), bound in each group."""
    g0, n = groups[0], len(groups)
    shapes = Shapes(n, generic=generic)
    for f in free:
        shapes.free.setdefault(g0.nodes[f.node], {})[f.key] = f.keyword
        shapes.bound[f.keyword] = tuple(g.bound.get(f.keyword, f.value) for g in groups)
        shapes.defaults[f.keyword] = f.value
    for j, inp in enumerate(g0.inputs):
        if all(scalar_input(g.inputs[j]) for g in groups):  # a scalar argument, read by the kernel
            shapes.numbers.add(j)
            continue
        metas = _metas([g.inputs[j] for g in groups])
        if len({len(m.shape) for m in metas}) != 1:
            raise Unfusable(f"input '{inp.name}' has another rank in another variant")
        shapes.dims[inp] = [
            Dim(Size(j, d), tuple(m.shape[d] for m in metas)) for d in range(len(metas[0].shape))
        ]
        shapes.dtypes[inp] = DType(None, j, tuple(m.dtype for m in metas))
        if generic:  # any float dtype the kernel computes in; other inputs as analysed
            kinds = FLOATS if set(shapes.dtypes[inp].vals) <= set(FLOATS) else tuple(
                dict.fromkeys(shapes.dtypes[inp].vals))  # fmt: skip
            shapes.guard(BinOp("in", DtypeOf(j), Tuple(tuple(Const(str(k)) for k in kinds))))
    ops = g0.ops
    # computed in integers: indices, and int64/int32 results (passnet.synth.indices)
    idx = index_nodes(g0.nodes, g0.traced.ops, g0.outputs, _holds_int_result)
    for i, node in enumerate(g0.nodes):
        op = ops[node]
        if op.defn.parts:  # a split's tuple: nothing reads it, its pieces read its operand
            shapes.dims[node] = op.defn.shape(shapes, node, op)
            shapes.dtypes[node] = shapes.dtypes[op.args[0]]
            continue
        allowed = (*FLOATS, *INTEGERS) if node in idx else FLOATS
        metas = _metas([g.nodes[i] for g in groups], f"'{node.name}' is not a "
                       "float16/bfloat16/float32 tensor")  # fmt: skip
        # a bool value the kernel keeps as a flag (passnet.synth.bools), an output or not
        flag = all(m.dtype is torch.bool for m in metas) and carries_bool(op, shapes)
        if any(m.dtype not in allowed and not flag for m in metas):
            raise Unfusable(f"'{node.name}' is not a float16/bfloat16/float32 tensor")
        if node in idx and any(m.dtype is torch.bool for m in metas):
            raise Unfusable(f"'{node.name}' indexes with booleans")
        dims = op.defn.shape(shapes, node, op)
        for k, m in enumerate(metas):
            if [d.vals[k] for d in dims] != list(m.shape):
                raise Unfusable(f"shape rule for {op.name} disagrees with the graph")
        shapes.dims[node] = dims
        dtype = op.defn.dtype(shapes, node, op, tuple(m.dtype for m in metas))
        source = dtype.literal
        if source is not None:
            expected = (source,) * n
        else:
            assert dtype.index is not None  # a dtype is a literal or an input's
            expected = shapes.dtypes[g0.inputs[dtype.index]].vals
        if expected != dtype.vals:
            raise Unfusable(f"dtype rule for {op.name} disagrees with the graph")
        shapes.dtypes[node] = dtype
    written = _written(g0)
    if any(_written(g) != written for g in groups[1:]):
        raise Unfusable("the in-place writes into inputs differ between variants")
    writes = {g0.nodes[i]: j for i, j in written.items()}
    try:
        first = replace(shapes, guards=list(shapes.guards))  # its guards only
        return build(Builder(g0.nodes, ops, g0.inputs, g0.outputs, first, writes))
    except Unfusable as exc:  # outputs that are views of another value: store them through
        try:  # the views from that value's phase (kernel.build), the first reason otherwise
            return build(Builder(g0.nodes, ops, g0.inputs, g0.outputs, shapes, writes),
                         store_views=True)  # fmt: skip
        except Unfusable:
            raise exc from None


def _written(g: Group) -> dict[int, int]:
    """The group's write-backs by position: node index -> the index of the input it ends in."""
    return {g.nodes.index(end): g.inputs.index(x) for x, end in g.writes.items()}


NO_KERNEL = (
    "nothing to fuse: eager launches no kernel for these ops (views, and contiguous() "
    "of tensors that are contiguous already)"
)


TAKEN = "taken by a larger group of this pass"


def select_all(traced: Traced) -> list[Group] | str:
    """Every group of one variant, best first: the best group (``select``), then the best
    among the ops left, and so on, each a rule of the pass (disjoint: a rule's nodes are
    outside the later ones'). The reason ``select`` gives when there is not even one."""
    first = select(traced)
    if isinstance(first, str):
        return first
    groups = [first]
    rest = Traced(traced.variant, traced.gm, dict(traced.ops))
    while True:
        for node in groups[-1].nodes:
            rest.ops[node] = TAKEN
        more = select(rest)
        if isinstance(more, str):
            return groups
        groups.append(Group(traced, more.nodes, more.inputs, more.outputs,
                            writes=more.writes))  # fmt: skip


def select(traced: Traced) -> Group | str:
    """The best group of one variant that lowers to a kernel, or the reason there is none."""
    unsupported = list(dict.fromkeys(op for op in traced.ops.values() if isinstance(op, str)))
    first: str | None = None
    tried = False
    for nodes in candidates(traced):
        tried = True
        if _work(traced.ops, nodes) < 2:
            first = first or "nothing to fuse: at most one op eager runs as a kernel"
            break
        group = make_group(traced, nodes)
        if isinstance(group, str):
            first = first or f"ops {nodes[0].name}..{nodes[-1].name}: {group}"
            continue
        try:
            analyse([group])
        except Unfusable as exc:
            first = first or f"ops {nodes[0].name}..{nodes[-1].name}: {exc}"
            continue
        return group
    if not tried and any(isinstance(op, Op) for op in traced.ops.values()):
        first = NO_KERNEL  # supported ops, but every one a view or a no-op copy
    parts = unsupported + [first or "no supported op"]
    return "; ".join(parts)
