"""Find each rule's pattern in an FX graph and replace every match by one call to its kernel.

Before / after (tests/passes/add_relu on the FX graph of GraphNet's torchvision resnet18)::

    add = batch_norm_2 + max_pool2d
    relu_2 = torch.nn.functional.relu(add, inplace = True)
    -->
    fused_add_relu = pass_dir_FuseAddRelu_fused_add_relu(batch_norm_2, max_pool2d)

Matching is torch.fx's own SubgraphMatcher with upstream PassNet's semantics
(match_output=False, match_placeholder=False, overlapping matches removed, first wins,
literals compared), run on a copy of the graph whose calls are normalised to positional form
with defaults filled in, as the pattern's are (``pattern.normalize_calls``), and with op
names' aliases unified (``operator.iadd`` matches ``operator.add``: Dynamo records ``x += y``
as iadd, FX tracing as add; not where the write into ``x`` is seen, by a later reader of
``x`` or by the caller of a graph whose input ``x`` is: a replacement returns a new tensor).
Upstream limits are lifted: multi-output patterns, a replacement function per rule, and a
rule that matches nothing reports its closest partial match instead of being dropped
silently (``closest``).

Literals must be equal, except two that provably change neither the result nor anything
outside the match (``passnet.passes.loose_literals``), and the ones a rule declares free
(``FREE_LITERALS``, ``pattern.declare_free``): those match any graph literal of the same kind,
and the graph's values are passed to ``replacement_args`` as keywords, per match.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import inspect
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx
from torch.fx import Graph, GraphModule, Node
from torch.fx.node import map_arg
from torch.fx.passes.utils.fuser_utils import validate_partition
from torch.fx.passes.utils.matcher_utils import InternalMatch, SubgraphMatcher

from passnet.graph.tracing import trace_module
from passnet.passes.calls import call_name, normalized_args
from passnet.passes.closest import closest_miss
from passnet.passes.loader import PassRule, PassSet
from passnet.passes.loose_literals import LooseLiterals
from passnet.passes.pattern import (
    COMPUTE,
    FREE,
    Match,
    Pattern,
    free_literals,
    leaves,
    lit_eq,
    literal_miss,
    normalize_calls,
    prepare_pattern,
    same_kind,
    trace_pattern,
    visible_write,
)

__all__ = ["ApplyReport", "Match", "Replacement", "RuleReport", "apply_passes", "check_keywords",
           "find_matches", "make_backend", "matches_in_order", "normalized_copy",
           "prepare_replacement", "replace_match", "to_fx", "toposort", "trace_pattern"]  # fmt: skip

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


def to_fx(module: torch.nn.Module) -> GraphModule:
    """FX graph of a GraphNet GraphModule; one placeholder per forward argument, in order.

    Traced as the dataset traces (:mod:`passnet.graph.tracing`): a torch call on constants
    stays a node, so a rewritten graph does the same work as ``model.py``."""
    return trace_module(module)


Normalized = tuple[Graph, dict[Node, Node]]
"""A graph's normalised copy and the map from its nodes back to the graph's."""


class _FxMatcher(SubgraphMatcher):
    """torch.fx's SubgraphMatcher with PassNet's notion of "the same op": calls compare by
    canonical name (aliases and in-place operators unified, ``calls.call_name``), an in-place
    operator whose write is seen outside the match matches nothing, constants compare by
    value. Two literals are compared after matching (``_Literals``), where the loose ones
    (``loose_literals``) can see the whole match; a node against a literal is a mismatch here
    (``ignore_literals=True`` would let a pattern op stand for a literal, and the match end
    without its inputs). Overlaps are removed by ``find_matches`` once literals are checked."""

    def __init__(self, pattern: Graph) -> None:
        super().__init__(pattern, match_output=False, match_placeholder=False,
                         remove_overlapping_matches=False, ignore_literals=False)  # fmt: skip
        self.key = functools.cache(call_name)

    def _match_literals(self, pn: Any, gn: Any, match: InternalMatch) -> bool:
        if isinstance(pn, Node) or isinstance(gn, Node):  # a pattern input binds any value
            return super()._match_literals(pn, gn, match)
        if isinstance(pn, dict) and isinstance(gn, dict):  # nodes inside: matched as nodes
            if pn.keys() != gn.keys():
                return False
            return all(self._match_nodes(p, gn[k], match) if isinstance(p, Node)
                       and isinstance(gn[k], Node) else self._match_literals(p, gn[k], match)
                       for k, p in pn.items())  # fmt: skip
        return True  # two literals: compared once the match is known (_Literals)

    def _nodes_are_equal(self, pn: Node, gn: Node, node_name_match: str = "") -> bool:
        if pn.op == "placeholder":
            return True
        if pn.op != gn.op:
            return False
        if pn.op == "get_attr":
            return self._match_attributes(pn, gn)
        return self.key(pn) == self.key(gn) and visible_write(gn) is None

    def _match_attributes(self, pn: Node, gn: Node) -> bool:
        pv = getattr(pn.graph.owning_module, str(pn.target), None)
        gv = getattr(gn.graph.owning_module, str(gn.target), None)
        return lit_eq(pv, gv)


def normalized_copy(graph: Graph) -> Normalized:
    """A copy of ``graph`` with its calls normalised as patterns' are, and the map from each
    copied node back to its original: what SubgraphMatcher searches. Valid until ``graph``
    is rewritten, so rules that match nothing share one."""
    val_map: dict[Node, Node] = {}
    copy = Graph(owning_module=graph.owning_module)
    copy.output(copy.graph_copy(graph, val_map))
    normalize_calls(copy)
    return copy, {new: old for old, new in val_map.items()}


class _Literals:
    """The literal check of a SubgraphMatcher match: equal, except the loose ones and the
    free ones (``closest`` says which literal differed when nothing matches)."""

    def __init__(self) -> None:
        self.args = functools.cache(normalized_args)
        self.loose = LooseLiterals(self.args, functools.cache(call_name))

    def bind(self, m: InternalMatch) -> dict[str, Any] | None:
        """The graph's values of the pattern's free literals (keyword -> value) when every
        literal agrees, else None."""
        rev = {gn: pn for pn, gn in m.nodes_map.items() if isinstance(gn, Node)}
        bound: dict[str, Any] = {}
        for pn, gn in m.nodes_map.items():
            if pn.op == "placeholder" and not isinstance(gn, Node):
                return None  # a pattern input bound to a literal of the graph
            if pn.op not in COMPUTE:
                continue
            free = pn.meta.get(FREE) or {}
            for (label, pv), (glabel, gv) in zip(self.args(pn), self.args(gn), strict=True):
                if label != glabel:
                    return None
                if label in free:
                    keyword = free[label]
                    if any(isinstance(x, Node) for x in leaves(gv)) or not same_kind(pv, gv):
                        return None
                    if keyword in bound and not lit_eq(bound[keyword], gv):
                        return None  # one keyword, two places: the same value in both
                    bound[keyword] = gv
                    continue
                if literal_miss(pv, gv) is None:  # (a node against a literal: refused already)
                    continue
                if self.loose.loose(pn, gn, label.rstrip("="), rev) is not None:
                    return None
        return bound


def find_matches(
    pattern: Pattern, graph: Graph, normalized: Normalized | None = None
) -> tuple[list[Match], str]:
    """Every non-overlapping occurrence of ``pattern`` in ``graph`` (torch.fx's
    SubgraphMatcher, first in graph order wins) and, if there is none, why (``closest``).
    ``normalized``: ``graph``'s ``normalized_copy``, if the caller has a current one."""
    matches = _occurrences(pattern, normalized or normalized_copy(graph))
    return matches, "" if matches else closest_miss(pattern, graph)[0]


def _occurrences(pattern: Pattern, normalized: Normalized) -> list[Match]:
    pgraph, pinputs, poutputs = pattern
    copy, original = normalized
    literals, taken = _Literals(), set()
    matches: list[Match] = []
    pcompute = [pn for pn in pgraph.nodes if pn.op not in ("placeholder", "output")]
    for m in _FxMatcher(pgraph).match(copy):
        compute = [m.nodes_map[pn] for pn in pcompute]
        if any(gn in taken for gn in compute) or (bound := literals.bind(m)) is None:
            continue
        # match() drops the matches that would form a cycle only where it also removes
        # overlaps (torch 2.11-2.13), which must wait for the literal check here: so again
        if not validate_partition(compute):
            continue
        taken.update(compute)
        matches.append(Match([original[m.nodes_map[p]] for p in pinputs],
                             [original[m.nodes_map[o]] for o in poutputs],
                             [original[gn] for gn in compute], bound))  # fmt: skip
    return matches


@dataclass
class Replacement:
    """The call a match becomes: ``target`` named ``name``; ``args_graph``: the traced
    ``replacement_args``, inlined per match (its keyword parameters set to the match's free
    literals); None: ``target`` takes the match's inputs, and, with ``keywords``, its free
    literals as keyword arguments."""

    target: Callable
    name: str
    args_graph: Graph | None
    keywords: bool = True


def _named_caller(rule: PassRule, via_args: bool) -> Callable:
    """A readably named callable for replacements FX cannot name, or args it cannot trace."""
    fn, make_args = rule.replacement, rule.replacement_args

    def call(*inputs: Any, **bound: Any) -> Any:
        args = make_args(*inputs, **bound) if via_args else inputs
        return fn(*args) if isinstance(args, (tuple, list)) else fn(args)

    call.__name__ = call.__qualname__ = getattr(fn, "__name__", rule.name)
    call.__module__ = getattr(fn, "__module__", None) or "pass_dir"
    return call


def _codegen_safe(v: Any) -> bool:
    return isinstance(v, (Node, *_CODEGEN_LITERALS))


def check_keywords(rule: PassRule, n_inputs: int, free: dict[str, Any]) -> None:
    """``replacement_args`` takes the pattern's ``n_inputs`` inputs and, for each free
    keyword, a keyword parameter whose default is the pattern's own literal (what upstream's
    loader, which binds no keyword, passes); ValueError says what is missing."""
    sig = inspect.signature(rule.replacement_args)
    try:
        sig.bind(*range(n_inputs))
    except TypeError as e:
        raise ValueError(
            f"replacement_args cannot take the pattern's {n_inputs} inputs: {e}"
        ) from e
    for keyword, literal in free.items():
        p = sig.parameters.get(keyword)
        if p is None and any(q.kind is q.VAR_KEYWORD for q in sig.parameters.values()):
            continue
        if p is None or p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL):
            raise ValueError(f"replacement_args takes no keyword {keyword!r}: a free literal "
                             f"is passed as one (write `*, {keyword}={literal!r}`)")  # fmt: skip
        if p.default is p.empty or not lit_eq(p.default, literal):
            raise ValueError(f"replacement_args' {keyword} must default to the pattern's "
                             f"literal {literal!r} (upstream's loader binds no keyword)")  # fmt: skip


def prepare_replacement(
    rule: PassRule, n_inputs: int, free: dict[str, Any] | None = None
) -> Replacement:
    """Trace replacement_args once so each match costs only the kernel call; else call it live.
    ``free``: the pattern's free keywords with their literals (``pattern.free_literals``)."""
    check_keywords(rule, n_inputs, free or {})
    fn, graph = rule.replacement, None
    name = getattr(fn, "__name__", rule.name)
    nameable = isinstance(getattr(fn, "__name__", None), str) and getattr(fn, "__module__", None)
    with contextlib.suppress(Exception):
        graph = torch.fx.symbolic_trace(rule.replacement_args).graph
    if graph is not None:
        phs = [n for n in graph.nodes if n.op == "placeholder"]
        out = next(n for n in graph.nodes if n.op == "output").args[0]
        plain = all(n.op in ("placeholder", "output", *COMPUTE[:2]) for n in graph.nodes)
        keyword_only = [n for n in phs[n_inputs:] if n.args or n.target in (free or {})]
        if (len(phs) - len(keyword_only) != n_inputs or not plain
                or not all(map(_codegen_safe, leaves(out)))):  # fmt: skip
            graph = None
    if graph is None:
        return Replacement(_named_caller(rule, via_args=True), name, None)
    return Replacement(fn if nameable else _named_caller(rule, via_args=False), name, graph)


def replace_match(graph: Graph, m: Match, rep: Replacement, pos: dict, remap: dict) -> None:
    inputs = [remap.get(n, n) for n in m.inputs]  # an earlier match's output, now its call
    last = max(m.compute, key=pos.__getitem__)
    kwargs: dict[str, Any] = {}
    with graph.inserting_before(last.next):
        if rep.args_graph is None:
            call_args: tuple = tuple(inputs)
            kwargs = dict(m.bound) if rep.keywords else {}
        else:
            env: dict[Node, Any] = {}
            for n in rep.args_graph.nodes:
                if n.op == "placeholder":  # the inputs, then keywords: bound, else the default
                    k = len(env)
                    env[n] = (inputs[k] if k < len(inputs) else
                              m.bound.get(str(n.target), n.args[0] if n.args else None))  # fmt: skip
                elif n.op == "output":
                    out = map_arg(n.args[0], env.__getitem__)
                    call_args = tuple(out) if isinstance(n.args[0], (tuple, list)) else (out,)
                else:
                    env[n] = graph.node_copy(n, env.__getitem__)
        fused = graph.create_node("call_function", rep.target, call_args, kwargs, name=rep.name)
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


def toposort(graph: Graph) -> None:
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


def _never_called(*args: Any) -> Any:
    raise RuntimeError("a stand-in for replacements in matches_in_order, never run")


def matches_in_order(graph: Graph, patterns: list[Pattern]) -> list[list[Match]]:
    """Where each pattern matches when the patterns are applied in order, as
    ``apply_passes`` applies a pass's rules: each on the graph the earlier ones rewrote, so a
    later pattern never takes an earlier match's nodes, and may read its outputs. ``graph``
    is left as it is (the rewriting happens on a copy); every match is given in ``graph``'s
    own nodes, a replaced output standing for the call that replaced it."""
    val_map: dict[Node, Node] = {}
    work = Graph(owning_module=graph.owning_module)
    work.output(work.graph_copy(graph, val_map))
    back = {new: old for old, new in val_map.items()}
    stand_in = Replacement(_never_called, "matched", None)
    found = []
    for pattern in patterns:
        matches = _occurrences(pattern, normalized_copy(work))
        found.append([Match([back[n] for n in m.inputs], [back[n] for n in m.outputs],
                            [back[n] for n in m.compute], m.bound) for m in matches])  # fmt: skip
        pos = {n: i for i, n in enumerate(work.nodes)}
        remap: dict[Node, Node] = {}
        for m in matches:
            replace_match(work, m, stand_in, pos, remap)
        back.update({new: back[old] for old, new in remap.items()})
        if matches and len(pattern[2]) > 1:
            toposort(work)
    return found


def _apply_rule(gm: GraphModule, rule: PassRule, normalized: Normalized) -> RuleReport:
    graph = gm.graph
    try:
        pattern = prepare_pattern(rule.pattern, rule.free)
        rep = prepare_replacement(rule, len(pattern[1]), free_literals(pattern))
    except Exception as e:
        return RuleReport(rule.name, 0, f"{rule.path.name}: {type(e).__name__}: {e}")
    matches, miss = find_matches(pattern, graph, normalized)
    if not matches:
        return RuleReport(rule.name, 0, miss)
    pos = {n: i for i, n in enumerate(graph.nodes)}
    remap: dict[Node, Node] = {}
    for m in matches:
        replace_match(graph, m, rep, pos, remap)
    if len(pattern[2]) > 1:
        toposort(graph)
    return RuleReport(rule.name, len(matches))


def apply_passes(gm: GraphModule, passes: PassSet) -> ApplyReport:
    """Apply every rule in listed order, rewriting ``gm`` in place; then ``gm.recompile()``."""
    reports, normalized = [], None
    for rule in passes.rules:
        normalized = normalized or normalized_copy(gm.graph)
        reports.append(_apply_rule(gm, rule, normalized))
        if reports[-1].matches:
            normalized = None  # the graph was rewritten
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
