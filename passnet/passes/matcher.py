"""Find each rule's pattern in an FX graph and replace every match by one call to its kernel.

Before / after (tests/passes/add_relu on the FX graph of GraphNet's torchvision resnet18)::

    add = batch_norm_2 + max_pool2d
    relu_2 = torch.nn.functional.relu(add, inplace = True)
    -->
    fused_add_relu = pass_dir_FuseAddRelu_fused_add_relu(batch_norm_2, max_pool2d)

Semantics follow upstream PassNet's SubgraphMatcher (match_output=False, match_placeholder=False,
remove_overlapping_matches=True, ignore_literals=False); calls on both sides are normalised to
positional form with defaults filled in, and aliases unified (``operator.iadd`` matches
``operator.add``: Dynamo records ``x += y`` as iadd, FX tracing as add; not where the write
into ``x`` is seen, by a later reader of ``x`` or by the caller of a graph whose input ``x``
is: a replacement returns a new tensor). Upstream limits are
lifted: multi-output patterns, a replacement function per rule, and a rule that matches nothing
reports its closest partial match instead of being dropped silently.

Literals must be equal, except two that provably change neither the result nor anything
outside the match (``passnet.passes.loose_literals``).
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import inspect
import operator
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx
from torch.fx import Graph, GraphModule, Node
from torch.fx.node import map_arg

from passnet.graph.tracing import NodeTracer, trace_module
from passnet.passes.calls import INPLACE as _INPLACE
from passnet.passes.calls import call_name as _key
from passnet.passes.calls import normalized_args
from passnet.passes.calls import short_name as _short
from passnet.passes.loader import PassRule, PassSet
from passnet.passes.loose_literals import LooseLiterals

_COMPUTE = ("call_function", "call_method", "call_module")
_PY_LITERALS = (type(None), bool, int, float, complex, str, slice, type(Ellipsis))
_CODEGEN_LITERALS = (*_PY_LITERALS, torch.dtype, torch.device, torch.layout, torch.memory_format)


@dataclass
class RuleReport:
    """Outcome of one rule; ``diagnostic`` says why a rule matched nothing (closest miss)."""

    name: str
    matches: int
    diagnostic: str | None = None


@dataclass
class ApplyReport:
    """Outcome of applying a pass set to one graph, rule by rule in application order."""

    rules: list[RuleReport]

    @property
    def matches(self) -> dict[str, int]:
        return {r.name: r.matches for r in self.rules}

    @property
    def total(self) -> int:
        return sum(r.matches for r in self.rules)


def _visible_write(gn: Node) -> str | None:
    """Why an in-place operator (``x += y``, matched as ``x + y``) may not be replaced: its
    write into ``x`` is seen by a node that reads ``x`` after it, or by the graph's caller
    when ``x`` is an input of the graph. A replacement returns a new tensor instead."""
    if gn.op != "call_function" or gn.target not in _INPLACE or not gn.args:
        return None
    x = gn.args[0]
    if not isinstance(x, Node):
        return None
    if x.op == "placeholder":
        return f"in-place '{gn.name}' writes into the graph input '{x.name}'"
    order = {n: i for i, n in enumerate(gn.graph.nodes)}
    later = [u for u in x.users if u is not gn and order[u] > order[gn]]
    if later:
        return (
            f"in-place '{gn.name}' writes into '{x.name}', which '{later[0].name}' reads after it"
        )
    return None


def _at(pn: Node, gn: Node) -> str:
    return f"at pattern op '{pn.name}' / graph node '{gn.name}' ({_short(_key(gn))}): "


def _leaves(v: Any) -> list:
    found: list = []
    torch.fx.node.map_aggregate(v, found.append)
    return found


def _lit_eq(p: Any, g: Any) -> bool:
    """Literal equality as ignore_literals=False means it, but lists equal tuples and bools stay bools."""
    if isinstance(p, (list, tuple)) and isinstance(g, (list, tuple)):
        return len(p) == len(g) and all(_lit_eq(a, b) for a, b in zip(p, g, strict=True))
    if isinstance(p, dict) and isinstance(g, dict):
        return p.keys() == g.keys() and all(_lit_eq(p[k], g[k]) for k in p)
    if isinstance(p, bool) or isinstance(g, bool):
        return type(p) is type(g) and p == g
    if isinstance(p, float) and isinstance(g, float) and p != p and g != g:
        return True  # nan
    if isinstance(p, torch.Tensor) and isinstance(g, torch.Tensor):
        return p.dtype == g.dtype and p.shape == g.shape and bool(torch.equal(p, g))
    try:
        return bool(p == g)
    except Exception:
        return False


def trace_pattern(fn: Callable) -> Graph:
    """Trace a pattern function with the tracer that traces graphs (``passnet.graph.tracing``:
    a torch call with constant arguments, ``torch.ones(3)``, stays a node on both sides); calls
    are rewritten to normalised positional form."""
    graph = NodeTracer().trace(fn)
    for node in graph.nodes:
        if node.op in ("call_function", "call_method"):
            entries = normalized_args(node)
            node.args = tuple(v for k, v in entries if not k.endswith("="))
            node.kwargs = {k[:-1]: v for k, v in entries if k.endswith("=")}
    return graph


def to_fx(module: torch.nn.Module) -> GraphModule:
    """FX graph of a GraphNet GraphModule; one placeholder per forward argument, in order.

    Traced as the dataset traces (:mod:`passnet.graph.tracing`): a torch call on constants
    stays a node, so a rewritten graph does the same work as ``model.py``."""
    return trace_module(module)


@dataclass
class _Match:
    inputs: list[Node]
    outputs: list[Node]
    compute: list[Node]


@dataclass
class _Fail:
    start: Node  # graph candidate for the pattern's first output
    text: str
    score: int


def _prepare_pattern(rule: PassRule) -> tuple[Graph, list[Node], list[Node]]:
    """Trace and check a pattern: outputs are op results, every parameter is used."""
    graph = trace_pattern(rule.pattern)
    out = next(n for n in graph.nodes if n.op == "output").args[0]
    outputs = list(out) if isinstance(out, (tuple, list)) else [out]
    for i, o in enumerate(outputs):
        if not isinstance(o, Node) or o.op == "placeholder":
            raise ValueError(f"pattern output {i} must be the result of a torch op, got {o!r}")
    if len(set(outputs)) != len(outputs):
        raise ValueError("pattern returns the same value twice")
    graph.eliminate_dead_code()
    inputs = [n for n in graph.nodes if n.op == "placeholder"]
    if unused := [n.name for n in inputs if not n.users]:
        raise ValueError(
            f"pattern parameter(s) {', '.join(unused)} not used by the returned values"
        )
    return graph, inputs, outputs


class _Matcher:
    """Structural matcher: pattern inputs bind any graph value, ops must agree exactly."""

    def __init__(self, pattern: tuple[Graph, list[Node], list[Node]], claimed: set) -> None:
        (self.graph, self.inputs, self.outputs), self.claimed = pattern, claimed
        self._args, self._key = functools.cache(normalized_args), functools.cache(_key)
        self.literals = LooseLiterals(self._args, self._key)

    def candidates(self, pn: Node, graph: Graph) -> list[Node]:
        key = _key(pn)
        return [n for n in graph.nodes if n.op == pn.op and self._key(n) == key]

    def node(self, pn: Node, gn: Node, fwd: dict, rev: dict) -> str | None:
        if pn in fwd:
            if fwd[pn] is gn:
                return None
            return f"pattern value '{pn.name}' would be both '{fwd[pn].name}' and '{gn.name}'"
        if gn in rev:  # upstream's matcher is injective too
            return f"pattern values '{rev[gn].name}' and '{pn.name}' both bind '{gn.name}'"
        if pn.op != "placeholder" and gn in self.claimed:
            return f"graph node '{gn.name}' is already part of an earlier match"
        fwd[pn], rev[gn] = gn, pn
        if pn.op == "placeholder":
            return None
        at = _at(pn, gn)
        if pn.op == "get_attr":
            pv = getattr(self.graph.owning_module, str(pn.target), None)
            gv = getattr(gn.graph.owning_module, str(gn.target), None)
            return None if _lit_eq(pv, gv) else f"{at}constants '{pn.target}', '{gn.target}' differ"
        if why := _visible_write(gn):
            return f"{at}{why}"
        pa, ga = self._args(pn), self._args(gn)
        if len(pa) != len(ga):
            return f"{at}pattern passes {len(pa)} arguments, graph passes {len(ga)}"
        for i, ((plabel, pv), (glabel, gv)) in enumerate(zip(pa, ga, strict=True)):
            label = f"argument {i}" + ("" if plabel.isdigit() else f" ({plabel.rstrip('=')})")
            if plabel != glabel:
                return f"{at}{label}: pattern passes '{plabel}', graph passes '{glabel}'"
            if why := self.value(pv, gv, pn, gn, label, fwd, rev):
                if isinstance(pv, Node) or isinstance(gv, Node):
                    return why
                if (unless := self.literals.loose(pn, gn, plabel.rstrip("="), rev)) is None:
                    continue  # a literal that cannot change the result (module docstring)
                return f"{why} ({unless})" if unless else why
        return None

    def value(
        self, pv: Any, gv: Any, pn: Node, gn: Node, label: str, fwd: dict, rev: dict
    ) -> str | None:
        at = f"{_at(pn, gn)}{label}: "
        if isinstance(pv, Node) and isinstance(gv, Node):
            if pv.op != "placeholder" and (pv.op != gv.op or _key(pv) != _key(gv)):
                return (
                    f"pattern op '{pn.name}' takes {label} from '{pv.name}' ({_short(_key(pv))}) "
                    f"but graph node '{gn.name}' takes it from '{gv.name}' ({_short(_key(gv))})"
                )
            return self.node(pv, gv, fwd, rev)
        if isinstance(pv, Node):
            what = f"input '{pv.name}'" if pv.op == "placeholder" else f"the result of '{pv.name}'"
            return f"{at}pattern has {what}, graph has the literal {gv!r}"
        if isinstance(gv, Node):
            return f"{at}pattern has the literal {pv!r}, graph has node '{gv.name}'"
        if isinstance(pv, dict) and isinstance(gv, dict) and pv.keys() == gv.keys():
            pv, gv = list(pv.values()), [gv[k] for k in pv]
        if any(isinstance(x, Node) for x in _leaves(pv)) and isinstance(gv, (list, tuple)):
            if len(pv) != len(gv):
                return f"{at}pattern has {len(pv)} items, graph has {len(gv)}"
            for j, (p, g) in enumerate(zip(pv, gv, strict=True)):
                if why := self.value(p, g, pn, gn, f"{label}[{j}]", fwd, rev):
                    return why
            return None
        return None if _lit_eq(pv, gv) else f"{at}pattern has {pv!r}, graph has {gv!r}"

    def match_from(self, start: Node, graph: Graph) -> _Match | _Fail:
        fwd: dict[Node, Node] = {}
        rev: dict[Node, Node] = {}
        if why := self.node(self.outputs[0], start, fwd, rev):
            return _Fail(start, why, len(fwd))
        return self._rest(1, start, graph, fwd, rev)

    def _rest(self, i: int, start: Node, graph: Graph, fwd: dict, rev: dict) -> _Match | _Fail:
        outs = self.outputs
        if i == len(outs):  # every output placed: check the match can be cut out
            return self._finish(start, fwd, rev)
        if outs[i] in fwd:
            return self._rest(i + 1, start, graph, fwd, rev)
        best = _Fail(start, f"pattern output {i} ('{outs[i].name}') has no counterpart", len(fwd))
        for cand in self.candidates(outs[i], graph):
            if cand in rev or cand in self.claimed:
                continue
            f2, r2 = dict(fwd), dict(rev)
            why = self.node(outs[i], cand, f2, r2)
            res = self._rest(i + 1, start, graph, f2, r2) if not why else None
            res = res or _Fail(start, f"pattern output {i}: {why}", len(f2))
            if isinstance(res, _Match):
                return res
            if res.score > best.score:
                best = res
        return best

    def _finish(self, start: Node, fwd: dict, rev: dict) -> _Match | _Fail:
        outs, n = set(self.outputs), len(fwd)
        compute = [g for p, g in fwd.items() if p.op != "placeholder"]
        for pn, gn in fwd.items():
            extra = [u for u in gn.users if u not in rev]
            if pn.op != "placeholder" and pn not in outs and extra:
                inside = ", ".join(f"'{u.name}'" for u in pn.users)
                return _Fail(start, f"pattern op '{pn.name}' feeds only {inside} but graph node "
                             f"'{gn.name}' also feeds '{extra[0].name}' outside the match (return "
                             "it from the pattern too, or match a smaller subgraph)", n)  # fmt: skip
        inputs = [fwd[p] for p in self.inputs]
        # a multi-output match is one node: no input may depend on one of its outputs
        stack, seen = [u for o in self.outputs for u in fwd[o].users if u not in compute], set()
        while len(outs) > 1 and stack:
            node = stack.pop()
            if node in inputs:
                return _Fail(start, f"input '{node.name}' of the match depends on its outputs", n)
            if node not in seen:
                seen.add(node)
                stack.extend(node.users)
        return _Match(inputs, [fwd[o] for o in self.outputs], compute)


def _no_candidate(key: str, graph: Graph) -> str:
    counts = Counter(_key(n) for n in graph.nodes if n.op in _COMPUTE)
    top = ", ".join(f"{_short(k)} x{c}" for k, c in counts.most_common(8))
    more = ", ..." if len(counts) > 8 else ""
    same = [k for k in counts if _short(k) == _short(key) or k.endswith("." + _short(key))]
    hint = f"; the graph calls {same[0]} instead, write the call as model.py does" if same else ""
    return f"no node calls {key} (graph calls: {top}{more}){hint}"


@dataclass
class _Replacement:
    target: Callable
    name: str
    args_graph: Graph | None  # traced replacement_args, inlined per match; None: pass inputs


def _named_caller(rule: PassRule, via_args: bool) -> Callable:
    """A readably named callable for replacements FX cannot name, or args it cannot trace."""
    fn, make_args = rule.replacement, rule.replacement_args

    def call(*inputs: Any) -> Any:
        args = make_args(*inputs) if via_args else inputs
        return fn(*args) if isinstance(args, (tuple, list)) else fn(args)

    call.__name__ = call.__qualname__ = getattr(fn, "__name__", rule.name)
    call.__module__ = getattr(fn, "__module__", None) or "pass_dir"
    return call


def _codegen_safe(v: Any) -> bool:
    return isinstance(v, (Node, *_CODEGEN_LITERALS))


def _prepare_replacement(rule: PassRule, n_inputs: int) -> _Replacement:
    """Trace replacement_args once so each match costs only the kernel call; else call it live."""
    try:
        inspect.signature(rule.replacement_args).bind(*range(n_inputs))
    except TypeError as e:
        raise ValueError(
            f"replacement_args cannot take the pattern's {n_inputs} inputs: {e}"
        ) from e
    fn, graph = rule.replacement, None
    name = getattr(fn, "__name__", rule.name)
    nameable = isinstance(getattr(fn, "__name__", None), str) and getattr(fn, "__module__", None)
    with contextlib.suppress(Exception):
        graph = torch.fx.symbolic_trace(rule.replacement_args).graph
    if graph is not None:
        phs = [n for n in graph.nodes if n.op == "placeholder"]
        out = next(n for n in graph.nodes if n.op == "output").args[0]
        plain = all(n.op in ("placeholder", "output", *_COMPUTE[:2]) for n in graph.nodes)
        if len(phs) != n_inputs or not plain or not all(map(_codegen_safe, _leaves(out))):
            graph = None
    if graph is None:
        return _Replacement(_named_caller(rule, via_args=True), name, None)
    return _Replacement(fn if nameable else _named_caller(rule, via_args=False), name, graph)


def _replace(graph: Graph, m: _Match, rep: _Replacement, pos: dict, remap: dict) -> None:
    inputs = [remap.get(n, n) for n in m.inputs]  # an earlier match's output, now its call
    last = max(m.compute, key=pos.__getitem__)
    with graph.inserting_before(last.next):
        if rep.args_graph is None:
            call_args: tuple = tuple(inputs)
        else:
            env: dict[Node, Node] = {}
            for n in rep.args_graph.nodes:
                if n.op == "placeholder":
                    env[n] = inputs[len(env)]
                elif n.op == "output":
                    out = map_arg(n.args[0], env.__getitem__)
                    call_args = tuple(out) if isinstance(n.args[0], (tuple, list)) else (out,)
                else:
                    env[n] = graph.node_copy(n, env.__getitem__)
        fused = graph.create_node("call_function", rep.target, call_args, {}, name=rep.name)
        if len(m.outputs) == 1:
            news = [fused]
        else:
            news = [
                graph.call_function(operator.getitem, (fused, i)) for i in range(len(m.outputs))
            ]
    matched = set(m.compute)
    for old, new in zip(m.outputs, news, strict=True):
        new.meta.update(old.meta)
        old.replace_all_uses_with(new, delete_user_cb=lambda u: u not in matched)
        remap[old] = new
    for n in sorted(matched, key=pos.__getitem__, reverse=True):
        graph.erase_node(n)


def _toposort(graph: Graph) -> None:
    """Stable reorder after a multi-output replacement landed after a user of one output."""
    nodes = list(graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    waiting = {n: len(set(n.all_input_nodes)) for n in nodes}
    ready = [index[n] for n in nodes if not waiting[n]]
    order: list[Node] = []
    while ready:
        n = nodes[heapq.heappop(ready)]
        order.append(n)
        for u in n.users:
            waiting[u] -= 1
            if not waiting[u]:
                heapq.heappush(ready, index[u])
    if len(order) != len(nodes):
        raise RuntimeError("the rewrite created a cycle")
    for n in order[:-1]:  # the output node stays last
        order[-1].prepend(n)


def _apply_rule(gm: GraphModule, rule: PassRule) -> RuleReport:
    graph = gm.graph
    try:
        pattern = _prepare_pattern(rule)
        rep = _prepare_replacement(rule, len(pattern[1]))
    except Exception as e:
        return RuleReport(rule.name, 0, f"{rule.path.name}: {type(e).__name__}: {e}")
    claimed: set[Node] = set()
    matcher = _Matcher(pattern, claimed)
    anchor = matcher.outputs[0]
    matches: list[_Match] = []
    best: _Fail | None = None
    for cand in matcher.candidates(anchor, graph):
        if cand in claimed:
            continue
        res = matcher.match_from(cand, graph)
        if isinstance(res, _Match):
            matches.append(res)
            claimed.update(res.compute)
        elif best is None or res.score > best.score:
            best = res
    if not matches:
        if best is None:
            return RuleReport(rule.name, 0, _no_candidate(_key(anchor), graph))
        head = f"closest candidate: node '{best.start.name}' ({_key(best.start)})"
        return RuleReport(
            rule.name, 0, f"{head} — {best.text.removeprefix(_at(anchor, best.start))}"
        )
    pos = {n: i for i, n in enumerate(graph.nodes)}
    remap: dict[Node, Node] = {}
    for m in matches:
        _replace(graph, m, rep, pos, remap)
    if len(matcher.outputs) > 1:
        _toposort(graph)
    return RuleReport(rule.name, len(matches))


def apply_passes(gm: GraphModule, passes: PassSet) -> ApplyReport:
    """Apply every rule in listed order, rewriting ``gm`` in place; then ``gm.recompile()``."""
    reports = [_apply_rule(gm, rule) for rule in passes.rules]
    gm.graph.lint()
    gm.recompile()
    return ApplyReport(reports)


def make_backend(passes: PassSet, report_sink: list | None = None) -> Callable:
    """A ``torch.compile`` backend that rewrites Dynamo's graph with ``passes`` and runs it eagerly.

    Each graph's ApplyReport is appended to ``report_sink``; a graph no rule matched still runs
    (upstream fails such a variant; the caller decides from the reports).
    """

    def passnet_backend(gm: GraphModule, example_inputs: list) -> Callable:
        report = apply_passes(gm, passes)
        if report_sink is not None:
            report_sink.append(report)
        return gm.forward

    return passnet_backend
