"""Why a rule matched nothing: the candidate that got furthest, and where it stopped.

Matching itself is torch.fx's SubgraphMatcher (``matcher``); it answers yes or no. A rule that
matches nothing gets the closest partial match instead (upstream drops it silently): this
module's ``PartialMatcher`` walks the pattern from each candidate for its first output with
the same rules (calls by canonical name and normalised arguments, literals equal but for the
loose and the free ones, no in-place write seen outside, nothing outside the match fed by its
inside) and reports the candidate that bound the most pattern values. A literal that differs
where a free one of the same kind would match (``(128,)`` against ``(192,)``) says which
``FREE_LITERALS`` entry would leave it free.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from typing import Any

from torch.fx import Graph, Node

from passnet.passes.calls import call_name, normalized_args, short_name
from passnet.passes.loose_literals import LooseLiterals
from passnet.passes.pattern import (
    COMPUTE,
    FREE,
    Match,
    Pattern,
    at,
    free_hint,
    leaves,
    lit_eq,
    literal_miss,
    same_kind,
    visible_write,
)


@dataclass
class Miss:
    start: Node  # graph candidate for the pattern's first output
    text: str
    score: int


class PartialMatcher:
    """The matcher's explanation of a miss: matches the pattern node by node from each
    candidate for its first output, as far as it gets, so the candidate that got furthest
    says where and why it stopped (``closest_miss``). torch.fx's SubgraphMatcher
    (``matcher``) decides what matches; this one only says why nothing did."""

    def __init__(self, pattern: Pattern, claimed: set) -> None:
        (self.graph, self.inputs, self.outputs), self.claimed = pattern, claimed
        self._args, self._key = functools.cache(normalized_args), functools.cache(call_name)
        self.literals = LooseLiterals(self._args, self._key)

    def candidates(self, pn: Node, graph: Graph) -> list[Node]:
        key = call_name(pn)
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
        where = at(pn, gn)
        if pn.op == "get_attr":
            pv = getattr(self.graph.owning_module, str(pn.target), None)
            gv = getattr(gn.graph.owning_module, str(gn.target), None)
            return (
                None if lit_eq(pv, gv) else f"{where}constants '{pn.target}', '{gn.target}' differ"
            )
        if why := visible_write(gn):
            return f"{where}{why}"
        pa, ga = self._args(pn), self._args(gn)
        if len(pa) != len(ga):
            return f"{where}pattern passes {len(pa)} arguments, graph passes {len(ga)}"
        for i, ((plabel, pv), (glabel, gv)) in enumerate(zip(pa, ga, strict=True)):
            label = f"argument {i}" + ("" if plabel.isdigit() else f" ({plabel.rstrip('=')})")
            if plabel != glabel:
                return f"{where}{label}: pattern passes '{plabel}', graph passes '{glabel}'"
            nodes = any(isinstance(x, Node) for x in leaves(pv) + leaves(gv))
            free = (pn.meta.get(FREE) or {}).get(plabel)
            if free is not None and not nodes:  # binds a literal of its kind, one per keyword
                why = f"{at(pn, gn)}{label}: pattern has {pv!r}, graph has {gv!r}"
                if not same_kind(pv, gv):
                    return f"{why} (free literal '{free}' binds only a {_kind(pv)})"
                other = rev.get(("free", free), gv)
                if not lit_eq(other, gv):
                    return f"{why} (free literal '{free}' is {other!r} elsewhere in the match)"
                rev[("free", free)] = gv  # walk state, copied per branch as the nodes are
                continue
            if why := self.value(pv, gv, pn, gn, label, fwd, rev):
                if isinstance(pv, Node) or isinstance(gv, Node):
                    return why
                if (unless := self.literals.loose(pn, gn, plabel.rstrip("="), rev)) is None:
                    continue  # a literal that cannot change the result (module docstring)
                if unless:
                    return f"{why} ({unless})"
                if not nodes and same_kind(pv, gv) and _size_or_constant(pv):
                    return (f"{why}; declaring it free would match it: "
                            f"{free_hint(pn, plabel)} (docs/passes.md#free-literals)")  # fmt: skip
                return why
        return None

    def value(
        self, pv: Any, gv: Any, pn: Node, gn: Node, label: str, fwd: dict, rev: dict
    ) -> str | None:
        if isinstance(pv, Node) and isinstance(gv, Node):
            if pv.op != "placeholder" and (pv.op != gv.op or call_name(pv) != call_name(gv)):
                return (
                    f"pattern op '{pn.name}' takes {label} from '{pv.name}' "
                    f"({short_name(call_name(pv))}) but graph node '{gn.name}' takes it from "
                    f"'{gv.name}' ({short_name(call_name(gv))})"
                )
            return self.node(pv, gv, fwd, rev)
        if isinstance(pv, dict) and isinstance(gv, dict) and pv.keys() == gv.keys():
            pv, gv = list(pv.values()), [gv[k] for k in pv]
        if any(isinstance(x, Node) for x in leaves(pv)) and isinstance(gv, (list, tuple)):
            if len(pv) != len(gv):
                return f"{at(pn, gn)}{label}: pattern has {len(pv)} items, graph has {len(gv)}"
            for j, (p, g) in enumerate(zip(pv, gv, strict=True)):
                if why := self.value(p, g, pn, gn, f"{label}[{j}]", fwd, rev):
                    return why
            return None
        why = literal_miss(pv, gv)
        return f"{at(pn, gn)}{label}: {why}" if why else None

    def match_from(self, start: Node, graph: Graph) -> Match | Miss:
        fwd: dict[Node, Node] = {}
        rev: dict[Node, Node] = {}
        if why := self.node(self.outputs[0], start, fwd, rev):
            return Miss(start, why, len(fwd))
        return self._rest(1, start, graph, fwd, rev)

    def _rest(self, i: int, start: Node, graph: Graph, fwd: dict, rev: dict) -> Match | Miss:
        outs = self.outputs
        if i == len(outs):  # every output placed: check the match can be cut out
            return self._finish(start, fwd, rev)
        if outs[i] in fwd:
            return self._rest(i + 1, start, graph, fwd, rev)
        best = Miss(start, f"pattern output {i} ('{outs[i].name}') has no counterpart", len(fwd))
        for cand in self.candidates(outs[i], graph):
            if cand in rev or cand in self.claimed:
                continue
            f2, r2 = dict(fwd), dict(rev)
            why = self.node(outs[i], cand, f2, r2)
            res = self._rest(i + 1, start, graph, f2, r2) if not why else None
            res = res or Miss(start, f"pattern output {i}: {why}", len(f2))
            if isinstance(res, Match):
                return res
            if res.score > best.score:
                best = res
        return best

    def _finish(self, start: Node, fwd: dict, rev: dict) -> Match | Miss:
        outs, n = set(self.outputs), len(fwd)
        compute = [g for p, g in fwd.items() if p.op != "placeholder"]
        for pn, gn in fwd.items():
            extra = [u for u in gn.users if u not in rev]
            if pn.op != "placeholder" and pn not in outs and extra:
                inside = ", ".join(f"'{u.name}'" for u in pn.users)
                return Miss(start, f"pattern op '{pn.name}' feeds only {inside} but graph node "
                             f"'{gn.name}' also feeds '{extra[0].name}' outside the match (return "
                             "it from the pattern too, or match a smaller subgraph)", n)  # fmt: skip
        inputs = [fwd[p] for p in self.inputs]
        # a multi-output match is one node: no input may depend on one of its outputs
        stack, seen = [u for o in self.outputs for u in fwd[o].users if u not in compute], set()
        while len(outs) > 1 and stack:
            node = stack.pop()
            if node in inputs:
                return Miss(start, f"input '{node.name}' of the match depends on its outputs", n)
            if node not in seen:
                seen.add(node)
                stack.extend(node.users)
        return Match(inputs, [fwd[o] for o in self.outputs], compute)


def _size_or_constant(v: object) -> bool:
    """A number or a sequence of them (a size, a dim, an eps, a scale): what a hint suggests
    leaving free; a flag (``training``) or a string is the call's meaning, not its size."""
    if isinstance(v, (tuple, list)):
        return bool(v) and all(map(_size_or_constant, v))
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _kind(v: object) -> str:
    if isinstance(v, (tuple, list)):
        return f"sequence of {len(v)}"
    return "number" if isinstance(v, float) else type(v).__name__


def no_candidate(key: str, graph: Graph) -> str:
    counts = Counter(call_name(n) for n in graph.nodes if n.op in COMPUTE)
    top = ", ".join(f"{short_name(k)} x{c}" for k, c in counts.most_common(8))
    more = ", ..." if len(counts) > 8 else ""
    same = [
        k for k in counts if short_name(k) == short_name(key) or k.endswith("." + short_name(key))
    ]
    hint = f"; the graph calls {same[0]} instead, write the call as model.py does" if same else ""
    return f"no node calls {key} (graph calls: {top}{more}){hint}"


def closest_miss(pattern: Pattern, graph: Graph) -> tuple[str, Match | None]:
    """Why ``pattern`` matches nowhere in ``graph``: the furthest candidate's stop, or which
    ops the graph calls when no node calls the pattern's first output op. The match, if this
    walk finds one SubgraphMatcher did not take (then the text says so)."""
    matcher = PartialMatcher(pattern, set())
    anchor = matcher.outputs[0]
    best: Miss | None = None
    for cand in matcher.candidates(anchor, graph):
        res = matcher.match_from(cand, graph)
        if isinstance(res, Match):
            return (f"node '{cand.name}' ({call_name(cand)}) matches the pattern op by op, but "
                    "torch.fx's SubgraphMatcher did not take it (fusing it would form a cycle, "
                    "or a pattern output is not where its only use is)"), res  # fmt: skip
        if best is None or res.score > best.score:
            best = res
    if best is None:
        return no_candidate(call_name(anchor), graph), None
    head = f"closest candidate: node '{best.start.name}' ({call_name(best.start)})"
    return f"{head} — {best.text.removeprefix(at(anchor, best.start))}", None
