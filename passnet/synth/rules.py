"""A pass's rules from the groups chosen in each variant, each analysed wherever it will match.

The groups chosen in the variants (``graph.select_all``) become one rule per distinct pattern,
the largest first, the order the pass applies them in. A rule's pattern can match where it was
not chosen: in a variant where another dtype made a different group the best, or a second
time in one graph. The pass applies every rule to every variant, so a kernel analysed only
on the groups it was chosen for would meet shapes and dtypes it was never generated for (its
wrapper's guard then raises, and the pass fails that variant). So each rule is analysed on
every match the rules make when applied in order, as evaluation applies them
(``matcher.matches_in_order``); a rule that cannot serve one of its matches is dropped, with
the reason, and the rules after it are matched again without it.

Rules are generic by default (``generic=True``): the literals their kernel can take at run
time are declared free (``passnet.synth.free``), so one rule matches every variant, and every
model, that differs from it only in those (another hidden size, another eps). A generic rule
that cannot serve one of its matches is first made literal again (its pattern then matches
only its own literals, and the rules after it serve the rest); only a literal rule is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import torch

from passnet.passes.matcher import Match, matches_in_order
from passnet.passes.pattern import Pattern, prepare_pattern
from passnet.synth.emit import module_source
from passnet.synth.free import Free, declaration, free_literals
from passnet.synth.graph import Group, Traced, analyse, make_group, rank_of
from passnet.synth.kernel import Kernel
from passnet.synth.ops import Op
from passnet.synth.shapes import Unfusable
from passnet.synth.wrapper import Tuning


@dataclass
class Rule:
    """One pattern and the kernel(s) that serve every place it matches; ``free``: the
    literals a generic rule leaves free, ``seed``: the pattern source they were found in
    (the chosen group's), ``literal``: why a rule meant to be generic is literal."""

    groups: list[Group]  # every match in every variant, the variants in task order
    kernel: Kernel | list[Kernel]  # a list: one kernel per rank signature of the inputs
    free: list[Free] = field(default_factory=list)
    seed: str = ""
    literal: str = ""

    @property
    def source(self) -> str:
        return self.seed if self.free else self.groups[0].source

    def summary(self, name: str) -> dict[str, Any]:
        """What ``synth.json`` records of the rule."""
        g0 = self.groups[0]
        graphs = [g.traced.variant.graph if g.traced.variant else "" for g in self.groups]
        out = {"name": name, "ops": [g0.ops[n].name for n in g0.nodes],
               "outputs": len(g0.outputs), "variants": list(dict.fromkeys(graphs)),
               "matches": len(self.groups)}  # fmt: skip
        if self.free:
            out["free"] = declaration(self.free)
        if self.literal:
            out["literal"] = self.literal
        return out


@dataclass
class Plan:
    """The rules a pass will have, in application order, and the chosen ones left out."""

    rules: list[Rule]
    dropped: list[dict[str, Any]] = field(default_factory=list)


def _pattern(source: str, free: list[Free] | None = None) -> Pattern:
    scope: dict[str, Any] = {"torch": torch}
    exec(compile(source, "<synth pattern>", "exec"), scope)  # noqa: S102 - our own source
    return prepare_pattern(scope["pattern"], declaration(free) if free else None)


def _group(traced: Traced, m: Match) -> Group:
    """The match as a group of its variant, its nodes in the pattern's order; Unfusable when
    the variant's graph gives it something the synthesizer refuses (an op its shapes make
    unsupported there, an integer input read as a float, a write into shared memory)."""
    for n in m.compute:
        if not isinstance(traced.ops.get(n), Op):
            raise Unfusable(f"'{n.name}' is unsupported in another variant: {traced.ops.get(n)}")
    if isinstance(made := make_group(traced, m.compute), str):
        raise Unfusable(f"in another variant, {made}")
    return Group(traced, m.compute, m.inputs, m.outputs, dict(m.bound), made.writes)


def _kernel(groups: list[Group], free: list[Free], generic: bool) -> Kernel | list[Kernel]:
    """One kernel for all ``groups``, or one per rank signature of their inputs."""
    by_rank: dict[tuple[int, ...], list[Group]] = {}
    for g in groups:
        by_rank.setdefault(tuple(rank_of(i) for i in g.inputs), []).append(g)
    if len(by_rank) > 1:
        return [analyse(gs, free, generic) for gs in by_rank.values()]
    return analyse(groups, free, generic)


def plan_rules(traced: list[Traced], chosen: list[Group], generic: bool = True) -> Plan:
    """The rules for groups ``chosen`` in the variants ``traced``: a rule per distinct pattern,
    the largest first, each analysed on all its matches; ``generic``: with the literals their
    kernels can take at run time free (module docstring)."""
    by_source: dict[str, list[Group]] = {}
    for g in chosen:
        by_source.setdefault(g.source, []).append(g)
    sources = sorted(by_source, key=lambda s: -len(by_source[s][0].nodes))
    free = {s: free_literals(by_source[s][0]) if generic else [] for s in sources}
    patterns = {s: _pattern(s, free[s]) for s in sources}
    literal: dict[str, str] = {}  # why a source meant to be generic is literal
    dropped: list[dict[str, Any]] = []
    while True:
        found = [matches_in_order(t.gm.graph, [patterns[s] for s in sources]) for t in traced]
        rules: list[Rule] = []
        for k, s in enumerate(sources):
            try:
                groups = [_group(t, m) for t, ms in zip(traced, found, strict=True) for m in ms[k]]
                if groups:
                    rules.append(Rule(groups, _kernel(groups, free[s], generic), free[s], s,
                                      literal.get(s, "")))  # fmt: skip
            except Unfusable as exc:
                if free[s]:  # generic: try the literal rule (it matches only its own literals)
                    literal[s] = f"as a generic rule: {exc}"
                    free[s], patterns[s] = [], _pattern(s)
                    break
                g0 = by_source[s][0]
                dropped.append({"ops": [g0.ops[n].name for n in g0.nodes], "reason": str(exc),
                                "chosen_in": list(dict.fromkeys(
                                    g.traced.variant.graph for g in by_source[s]
                                    if g.traced.variant))})  # fmt: skip
                sources.remove(s)
                break
        else:
            return Plan(rules, dropped)


def rule_modules(task: str, plan: Plan, tuning: Tuning | None = None) -> list[tuple[str, str]]:
    """(stem, module source) of each rule of ``plan``, in application order."""
    out = []
    for k, rule in enumerate(plan.rules):
        stem = f"synth_{ident(task)}_{k}"
        n_inputs = len(rule.groups[0].inputs)
        out.append((stem, module_source(task, stem, rule.kernel, rule.source, n_inputs,
                                        tuning, rule.free)))  # fmt: skip
    return out


def ident(name: str) -> str:
    """A task name as a Python identifier's body (rule stems, kernel names)."""
    text = re.sub(r"\W+", "_", name).strip("_").lower() or "task"
    return text if text[0].isalpha() else f"t_{text}"
