"""A pass library: many pass folders applied to one FX graph under one conflict rule.

Folders come from anywhere a pass folder is written: ``examples/passes/*``, a synthesizer run
(``DIR/<task>/pass``), an agent run (``RUN/attempts/<task>/<k>/best`` of correct attempts), or a
single folder. Matching and rewriting are ``passnet.passes.matcher``'s, so a rule fires in a
whole model exactly where it fires in a task (upstream SubgraphMatcher semantics; torch.fx's own
``SubgraphMatcher`` lacks the call normalisation Dynamo graphs need, ``x += y`` as ``iadd``).

Conflict rule (``order="folders"``, the default): rules run one at a time, folders in the
order given, within a folder in its listed order (upstream's application order); each rule
rewrites every match in the graph as the earlier rules left it. Nodes an earlier rule replaced
are gone, so a later rule whose match would overlap them does not fire there: the earlier
folder wins, and the loss is reported as a skipped overlap (every rule is also matched on the
untouched graph to find them). ``order="larger"`` sorts rules by pattern size (compute nodes)
first, folder order breaking ties: a bigger fusion beats a smaller one sharing nodes with it,
at the price of a folder's own order.

A replacement that raises ValueError on a call (its guard refusing a rank or layout it was not
written for, at a site its pattern matched) falls back to the pattern for that call (with the
match's free literals, ``pattern.bound_pattern``); such calls are counted per rule
(``fallback_calls``), never hidden.

A rule whose pattern writes one of its inputs in place (``writes.py``) must pass that input
itself to its replacement (checked at load time), and is rewritten only at matches where the
graph reads that input in the pattern's order; the others are reported as ``refused``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from torch.fx import GraphModule, Node

from passnet.accelerate.sites import Site
from passnet.accelerate.writes import check_passed, dead_write, order_problem, written_inputs

# The matcher's own search and rewrite, so a rule fires identically here and in a task.
from passnet.core.bundled import missing_hint
from passnet.passes.loader import RULES_FILE, PassLoadError, PassRule, load_pass_dir
from passnet.passes.matcher import (
    Match,
    Replacement,
    find_matches,
    normalized_copy,
    prepare_replacement,
    replace_match,
    toposort,
)
from passnet.passes.pattern import bound_pattern, free_literals, prepare_pattern

ORDERS = ("folders", "larger")
_SKIP_DIRS = {"rejected_pass", "pass_dir", "snapshots", "__pycache__"}


class LibraryError(Exception):
    """A library cannot be built: a path holds no pass folder, or a rule cannot be used."""


@dataclass
class LibraryRule:
    """One rule of the library with what ordering and rewriting need, prepared once."""

    label: str  # "<folder label>:<rule>", unique in the library
    folder: int  # index of its folder in the library
    index: int  # position in its folder's rule list
    rule: PassRule
    pattern: Any  # the matcher's prepared pattern (graph, inputs, outputs)
    replacement: Replacement  # the matcher's call, kept for its argument checks
    # pattern input index -> the pattern's nodes writing it in place (writes.py); the op of a
    # match declares those arguments mutated
    writes: dict[int, list[Node]] = field(default_factory=dict)
    fallbacks: int = 0  # calls whose replacement refused its inputs (ValueError)
    fallback_reason: str = ""
    _bound: dict[str, Callable] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.call = _guarded(self)

    def pattern_for(self, bound: dict[str, Any]) -> Callable:
        """The pattern as the graph computed it at a match whose free literals are ``bound``
        (the rule's own ``pattern`` where it has none)."""
        if not bound:
            return self.rule.pattern
        key = binding_key(bound)
        if key not in self._bound:
            self._bound[key] = bound_pattern(self.pattern, bound)
        return self._bound[key]

    def sources(self) -> bytes:
        """The rule's pass folder as it is on disk now (every ``.py`` file, names and bytes):
        what its replacement can run, for keys that must change when the code does (op
        names, the tuning cache)."""
        out = b""
        for source in sorted(Path(self.rule.path).parent.glob("*.py")):
            out += source.name.encode() + b"\0" + source.read_bytes() + b"\0"
        return out

    @property
    def size(self) -> int:
        """Compute nodes of the pattern: what ``order="larger"`` ranks by."""
        return sum(n.op not in ("placeholder", "output") for n in self.pattern[0].nodes)


@dataclass
class Fired:
    """One match that was rewritten: the rule, the replaced graph nodes and where they sit."""

    rule: str
    nodes: list[str]
    module: str
    launch: str = "python"  # who launches its kernels: "inductor", "custom-op" or "python"
    why: str = ""  # why not "inductor", where Inductor compiles the graph


@dataclass
class Skipped:
    """A match on the untouched graph lost to an earlier rule that took some of its nodes."""

    rule: str
    nodes: list[str]
    held_by: list[str]


@dataclass
class Refused:
    """A match of a rule that writes an input, left as it was: the graph reads or writes that
    input in another order than the pattern (writes.py, ``order_problem``)."""

    rule: str
    nodes: list[str]
    why: str


@dataclass
class GraphReport:
    """What the library did to one graph (Dynamo may hand a backend several)."""

    graph: int
    nodes: int
    fired: list[Fired] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    dropped: list[Fired] = field(default_factory=list)  # sites ``keep`` left as they were
    refused: list[Refused] = field(default_factory=list)  # matches whose write order differs
    misses: dict[str, str] = field(default_factory=dict)  # rule -> why it matched nothing
    tune: str = ""  # what tuning decided for this graph (tune.py), or ""
    sites: list[Site] = field(default_factory=list)  # the fusion sites (sites.py) it offers
    inner: str = ""
    note: str = ""

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.fired:
            out[f.rule] = out.get(f.rule, 0) + 1
        return out


# A hook that chooses the call target of one match (a custom op for Inductor); it returns the
# replacement to use, or a string saying why the rule's own function is used instead.
TargetHook = Callable[[LibraryRule, Match], "Replacement | str"]


def discover(path: str | Path) -> list[Path]:
    """Pass folders under ``path``: the folder itself, an agent run's correct ``best/``
    snapshots, or every folder below holding a rule list (synth's ``rejected_pass``, agents'
    ``pass_dir`` and ``snapshots`` skipped), sorted by path."""
    root = Path(path)
    if not root.is_dir():
        raise LibraryError(
            f"{path}: not a folder (expected a pass folder or a folder of them){missing_hint(path)}"
        )
    if (root / RULES_FILE).is_file():
        return [root]
    if (root / "trajectories.jsonl").is_file() and (root / "attempts").is_dir():
        return _agent_best(root)
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        if RULES_FILE in filenames:
            found.append(Path(dirpath))
            dirnames[:] = []
    if not found:
        raise LibraryError(f"{path}: no pass folder (no {RULES_FILE}) in it or below it")
    return found


def verified_speedup(folder: Path) -> float | None:
    """The geometric-mean speedup over eager that ``passnet synth`` verified for the pass
    folder on its own task (``gmean_speedup`` of ``<task>/synth.json`` beside ``<task>/pass``,
    over the variants whose timing was meaningful), or None without such a record."""
    import json

    record = folder.parent / "synth.json"
    if folder.name != "pass" or not record.is_file():
        return None
    try:
        speedup = json.loads(record.read_text(encoding="utf-8"))["verification"]["gmean_speedup"]
    except (ValueError, KeyError, TypeError):
        return None
    return float(speedup) if speedup else None


def _agent_best(run: Path) -> list[Path]:
    from passnet.agent.trajectory import read_trajectories

    records = read_trajectories(run / "trajectories.jsonl")
    good = sorted((r.task_name, r.attempt) for r in records if r.final_correct)
    found = [run / "attempts" / t / str(k) / "best" for t, k in good]
    found = [p for p in found if (p / RULES_FILE).is_file()]
    if not found:
        raise LibraryError(f"{run}: agent run with no correct attempt's best/ pass folder")
    return found


def _label(folder: Path) -> str:
    try:
        return str(folder.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(folder)


@dataclass
class PassLibrary:
    """Rules of several folders in application order (see the module docstring)."""

    folders: list[Path]
    rules: list[LibraryRule]
    order: str = "folders"
    skipped: list[tuple[Path, float]] = field(default_factory=list)  # (folder, its speedup)
    unusable: list[tuple[str, str]] = field(default_factory=list)  # (rule, why): left out

    @classmethod
    def load(cls, paths: Iterable[str | Path], order: str = "folders",
             min_speedup: float | None = None) -> PassLibrary:  # fmt: skip
        """Load every pass folder found under ``paths``, in order; errors name the file.
        ``min_speedup``: leave out synthesised folders whose own task verification measured
        them slower than that against eager (``verified_speedup``); folders without such a
        record are kept."""
        if order not in ORDERS:
            raise LibraryError(f"unknown order {order!r}; use one of {', '.join(ORDERS)}")
        folders: list[Path] = []
        for p in paths:
            folders += [f for f in discover(p) if f.resolve() not in {x.resolve() for x in folders}]
        skipped: list[tuple[Path, float]] = []
        if min_speedup is not None:
            for f in list(folders):
                if (s := verified_speedup(f)) is not None and s < min_speedup:
                    folders.remove(f)
                    skipped.append((f, s))
        if not folders:
            raise LibraryError("no pass folder given" if not skipped else
                               f"every pass folder is below --min-speedup {min_speedup}")  # fmt: skip
        rules: list[LibraryRule] = []
        unusable: list[tuple[str, str]] = []
        for i, folder in enumerate(folders):
            try:
                pass_set = load_pass_dir(folder)
            except PassLoadError as e:
                raise LibraryError(f"pass folder {folder}: {e}") from e
            for j, rule in enumerate(pass_set.rules):
                label = f"{_label(folder)}:{rule.name}"
                try:
                    rules.append(_prepare(rule, label, i, j))
                except UnusableRule as e:
                    unusable.append((label, str(e)))
        if not rules:
            raise LibraryError("no rule of the pass folders can run in a whole model: "
                               + "; ".join(f"{r}: {why}" for r, why in unusable))  # fmt: skip
        if order == "larger":
            rules.sort(key=lambda r: (-r.size, r.folder, r.index))
        return cls(folders, rules, order, skipped, unusable)

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.rules]

    def apply(
        self,
        gm: GraphModule,
        graph_id: int = 0,
        target: TargetHook | None = None,
        keep: Callable[[str, list[str]], bool] | None = None,
    ) -> GraphReport:
        """Rewrite ``gm`` in place (then ``recompile``); ``target`` may swap each match's call;
        ``keep(rule label, node names)`` False leaves a match's site as it is (tune.py), and
        it is reported in ``dropped``."""
        graph = gm.graph
        report = GraphReport(
            graph_id, sum(n.op not in ("placeholder", "output") for n in graph.nodes)
        )
        normalized = normalized_copy(graph)
        untouched = {r.label: find_matches(r.pattern, graph, normalized)[0] for r in self.rules}
        taken: dict[Node, str] = {}
        for r in self.rules:
            matches, miss = find_matches(r.pattern, graph, normalized)
            if not matches:
                report.misses[r.label] = miss
                continue
            pos = {n: i for i, n in enumerate(graph.nodes)}
            remap: dict[Node, Node] = {}
            if r.writes:  # on the graph as it is, before this rule rewrites any match
                matches = [m for m in matches if not self._refused(r, m, pos, report)]
            for m in matches:
                names = _names(m.compute, pos)
                if keep is not None and not keep(r.label, names):
                    report.dropped.append(Fired(r.label, names, _where(m.outputs[0])))
                    continue
                plain = Replacement(r.call, r.rule.name, None)
                rep: Replacement | str = target(r, m) if target else plain
                if isinstance(rep, str):
                    report.note += f"{rep}\n"
                    rep = plain
                report.fired.append(Fired(r.label, names, _where(m.outputs[0]),
                                          getattr(rep, "launch", "python"), getattr(rep, "why", "")))  # fmt: skip
                taken.update(dict.fromkeys(m.compute, r.label))
                replace_match(graph, m, rep, pos, remap)
            if len(r.pattern[2]) > 1:
                toposort(graph)
            normalized = normalized_copy(graph)  # rewritten
        for r in self.rules:
            for m in untouched[r.label]:
                holders = sorted({taken[n] for n in m.compute if taken.get(n, r.label) != r.label})
                if holders:
                    order = {n: i for i, n in enumerate(m.compute)}
                    report.skipped.append(Skipped(r.label, _names(m.compute, order), holders))
        report.note = report.note.strip()
        graph.lint()
        gm.recompile()
        return report

    @staticmethod
    def _refused(r: LibraryRule, m: Match, pos: dict[Node, int], report: GraphReport) -> bool:
        """Whether a match of a rule that writes an input must be left as it was (writes.py)."""
        why = order_problem(r.pattern, r.writes, m, pos)
        if why is not None:
            report.refused.append(Refused(r.label, _names(m.compute, pos), why))
        return why is not None


def binding_key(bound: dict[str, Any]) -> str:
    """A match's free literals as one string (a key per distinct binding)."""
    return repr(sorted(bound.items()))


class UnusableRule(Exception):
    """A rule that is sound on its own task but cannot be used in a whole model (the matcher
    would drop the in-place write its pattern makes): the library leaves it out and says why."""


def _prepare(rule: PassRule, label: str, folder: int, index: int) -> LibraryRule:
    try:
        pattern = prepare_pattern(rule.pattern, rule.free)
        replacement = prepare_replacement(rule, len(pattern[1]), free_literals(pattern))
        writes, why = written_inputs(pattern), dead_write(rule.pattern, pattern)
    except Exception as e:
        raise LibraryError(f"{rule.path}: rule {rule.name}: {type(e).__name__}: {e}") from e
    if why is not None:  # a sound pass for its task, but no pattern to find in a model
        raise UnusableRule(why)
    if writes:
        why = check_passed(rule.replacement_args, replacement.args_graph, writes, pattern[1])
    if why is not None:
        raise LibraryError(f"{rule.path}: rule {rule.name}: {why}")
    return LibraryRule(label, folder, index, rule, pattern, replacement, writes)


def _guarded(r: LibraryRule) -> Callable:
    """Replacement_args then the replacement, on the pattern's inputs; a ValueError (a pass's
    guard refusing a shape it was not written for) runs the pattern itself instead, counted.

    In a task an unfit input fails the variant; in a whole model the same rule may match a
    site of another rank or layout, and the pattern is exactly what the graph computed there."""
    rule = r.rule

    def call(*inputs: Any, **bound: Any) -> Any:
        args = rule.replacement_args(*inputs, **bound)
        try:
            if isinstance(args, (tuple, list)):
                return rule.replacement(*args)
            return rule.replacement(args)
        except ValueError as e:
            r.fallbacks += 1
            r.fallback_reason = r.fallback_reason or f"ValueError: {e}"[:300]
            return r.pattern_for(bound)(*inputs)

    call.__name__ = call.__qualname__ = getattr(rule.replacement, "__name__", rule.name)
    call.__module__ = getattr(rule.replacement, "__module__", None) or "pass_dir"
    return call


def _names(nodes: Sequence[Node], pos: dict[Node, int]) -> list[str]:
    return [n.name for n in sorted(nodes, key=lambda n: pos.get(n, 0))]


def _where(node: Node) -> str:
    """The module a node was traced in (Dynamo's ``nn_module_stack``), e.g. ``encoder.layer.0.output``."""
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return ""
    path = str(list(stack.values())[-1][0])
    for prefix in ("L['self'].", "L['self']"):
        path = path.removeprefix(prefix)
    return path.replace("[", ".").replace("]", "").replace("'", "")


def summarize(reports: Sequence[GraphReport], rules: Sequence[LibraryRule]) -> dict[str, Any]:
    """Counts per rule over every graph (zero for rules that never fired), with where they
    fired, what they lost to overlaps, calls that fell back to the pattern and, for a rule
    that never fired, the closest miss."""
    out: dict[str, Any] = {}
    for rule in rules:
        label = rule.label
        fired = [f for r in reports for f in r.fired if f.rule == label]
        skipped = [s for r in reports for s in r.skipped if s.rule == label]
        dropped = [f for r in reports for f in r.dropped if f.rule == label]
        refused = [f for r in reports for f in r.refused if f.rule == label]
        misses = [r.misses[label] for r in reports if label in r.misses]
        out[label] = {
            "count": len(fired),
            "where": [
                {"module": f.module, "nodes": f.nodes, "launch": f.launch} for f in fired
            ],  # fmt: skip
            "launch": dict(Counter(f.launch for f in fired)),
            "launch_why": next((f.why for f in fired if f.why), ""),
            "skipped_overlaps": [{"nodes": s.nodes, "held_by": s.held_by} for s in skipped],
            "dropped_by_tune": [{"module": f.module, "nodes": f.nodes} for f in dropped],
            "refused": [{"nodes": f.nodes, "why": f.why} for f in refused],
            "miss": (misses[0] if misses else refused[0].why if refused else "")
            if not (fired or dropped)
            else "",
            "fallback_calls": rule.fallbacks,
            "fallback_reason": rule.fallback_reason,
        }
    return out


def library_json(lib: PassLibrary) -> list[dict[str, Any]]:
    """The library's rules in application order, for reports."""
    return [{"rule": r.label, "size": r.size, "path": str(r.rule.path)} for r in lib.rules]
