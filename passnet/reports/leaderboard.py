"""The leaderboard of one or more runs: suite scores per (run, candidate), from the store.

Per candidate: pooled AS (the headline: ES_t over every subgraph of the suite) and the mean of
per-task AS beside it, fast_1, subgraph and task correctness, G-mean speedup vs eager and vs
Inductor over correct subgraphs (SPEC section 6).

Speedup vs Inductor is derived, not measured side by side: for each variant it is the
candidate's speedup vs eager divided by Inductor's speedup vs eager on the same *context*
(variant content, device model, software versions, timing parameters), each ratio from its own
interleaved eager-vs-X measurement, so slow drift between the two runs cancels. The Inductor
result comes from the same run when it has one, else from any run in the store (the baseline
cache); the JSON records which runs supplied it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from passnet.core.results import Status, VariantResult
from passnet.evaluation.candidates import parse_candidate
from passnet.runner.store import Store
from passnet.runner.suite import candidate_id
from passnet.scores.metrics import gmean, suite_scores

LEADERBOARD_SCHEMA = "passnet-leaderboard/1"

VS_INDUCTOR_METHOD = (
    "ratio of ratios: (candidate speedup vs eager) / (Inductor default-mode speedup vs eager) "
    "on the same variant content, device model, software versions and timing parameters; "
    "each ratio from its own interleaved measurement against eager"
)

DEFINITIONS = {
    "AS": "pooled AS: weighted geometric mean over t of ES_t, ES_t taken over every subgraph "
    "of the suite (the headline)",
    "mean_task_AS": "arithmetic mean of the per-task AS",
    "fast_1": "share of subgraphs correct at t = -5 and faster than eager",
    "subgraph_correct": "share of subgraphs correct at t = 1",
    "task_correct": "share of tasks with every subgraph correct at t = 1",
    "gmean_vs_eager": "geometric-mean speedup vs eager over subgraphs correct at t = 1",
    "gmean_vs_inductor": "the same vs Inductor (" + VS_INDUCTOR_METHOD + ")",
}


def inductor_candidate_id() -> str:
    return candidate_id(parse_candidate("inductor"))[0]


def short_label(label: str) -> str:
    """``passes:/long/path/add_layer_norm`` -> ``passes:add_layer_norm``."""
    if label.startswith("passes:"):
        return "passes:" + Path(label.split(":", 1)[1]).name
    return label.replace("[mode=default]", "")


@dataclass
class Row:
    """One candidate of one run."""

    run_id: str
    candidate: str
    candidate_id: str
    kind: str
    planned: int
    done: int
    cached: int
    statuses: dict[str, int]
    scores: dict | None
    task_as: dict[str, float] = field(default_factory=dict)
    task_speedups: dict[str, list[float]] = field(default_factory=dict)  # correct variants
    task_sizes: dict[str, int] = field(default_factory=dict)  # measured variants
    speedups: list[float] = field(default_factory=list)
    speedups_vs_inductor: list[float] = field(default_factory=list)
    vs_inductor_sources: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return short_label(self.candidate)

    def task_speedup(self, task: str) -> float | None:
        """G-mean speedup vs eager of the task's correct variants (None: none correct)."""
        ok = self.task_speedups.get(task)
        return gmean(ok) if ok else None

    def summary(self) -> dict:
        s = self.scores or {}
        return {
            "run_id": self.run_id,
            "candidate": self.candidate,
            "candidate_id": self.candidate_id,
            "kind": self.kind,
            "planned": self.planned,
            "done": self.done,
            "cached": self.cached,
            "complete": self.done >= self.planned,
            "statuses": dict(sorted(self.statuses.items())),
            "AS": s.get("pooled_AS"),
            "mean_task_AS": s.get("mean_task_AS"),
            "fast_1": s.get("fast_p"),
            "subgraph_correct": s.get("subgraph_correct_rate"),
            "task_correct": s.get("task_correct_rate"),
            "gmean_vs_eager": s.get("gmean_speedup_correct"),
            "gmean_vs_inductor": s.get("gmean_speedup_vs_inductor_correct"),
            "vs_inductor_covered": len(self.speedups_vs_inductor),
            "vs_inductor_sources": self.vs_inductor_sources,
            "n_tasks": s.get("n_tasks", 0),
            "n_subgraphs": s.get("n_subgraphs", 0),
            "ES": {str(t): v for t, v in s.get("pooled_ES", {}).items()},
            "task_AS": self.task_as,
            "task_gmean_vs_eager": {t: self.task_speedup(t) for t in self.task_as},
            "b": s.get("b"),
            "p": s.get("p"),
        }


@dataclass
class Leaderboard:
    runs: list[dict]
    rows: list[Row]

    def to_json(self) -> dict:
        return {
            "schema": LEADERBOARD_SCHEMA,
            "definitions": DEFINITIONS,
            "speedup_vs_inductor_method": VS_INDUCTOR_METHOD,
            "runs": self.runs,
            "rows": [r.summary() for r in self.rows],
        }

    def tasks(self) -> list[str]:
        seen: dict[str, None] = {}
        for r in self.rows:
            seen.update(dict.fromkeys(r.task_as))
        return list(seen)


def _run_meta(store: Store, run_id: str, ms: list[dict]) -> dict:
    run = store.run(run_id)
    sessions = store.sessions(run_id)
    envs = {
        m["env_id"]: m["environment_json"] for m in ms if m["env_id"] and m["source"] == "measured"
    }
    return {
        "run_id": run_id,
        "suite": run["suite"],
        "device": run["device"],
        "device_name": run["config"].get("device_name"),
        "status": run["status"],
        "created": run["created"],
        "parameters": run["parameters"],
        "environments": [json.loads(e) for e in envs.values() if e],
        "sessions": [
            {k: s[k] for k in ("session_id", "status", "executor", "skipped", "measured", "cached")}
            for s in sessions
        ],
    }


def _named_tasks(items: list[dict]) -> list[dict]:
    """Give each task a unique display name (two tasks may share a name)."""
    ids: dict[str, set[str]] = {}
    for i in items:
        ids.setdefault(i["task"], set()).add(i["task_id"])
    return [
        {**i, "task": i["task"] if len(ids[i["task"]]) == 1 else f"{i['task']}#{i['task_id'][:6]}"}
        for i in items
    ]


def _inductor_speedups(store: Store, run_id: str, ms: list[dict]) -> dict[str, tuple[float, str]]:
    ind = inductor_candidate_id()
    own = {
        m["context_key"]: (m["speedup"], run_id)
        for m in ms
        if m["candidate_id"] == ind and m["status"] == "ok" and (m["speedup"] or 0) > 0
    }
    missing = {m["context_key"] for m in ms} - set(own)
    return {**store.baseline_speedups(missing, ind), **own} if missing else own


def counted_speedup(v: VariantResult) -> float | None:
    """The variant's speedup as the speedup columns count it: correct and timed for real (an
    interpreter's timing has no speed); None otherwise."""
    return v.speedup if v.status is Status.OK and v.speedup and v.timing_meaningful else None


def _row(
    run_id: str, cand: dict, items: list[dict], ms: list[dict], ind: dict, b: float, p: float
) -> Row:
    cid = cand["candidate_id"]
    planned = [i for i in items if i["candidate_id"] == cid]
    by_variant = {m["variant_id"]: m for m in ms if m["candidate_id"] == cid}
    tasks: dict[str, list[VariantResult]] = {}
    row = Row(run_id, cand["label"], cid, cand["kind"], len(planned), 0, 0, {}, None)
    sources: set[str] = set()
    for item in planned:
        m = by_variant.get(item["variant_id"])
        if m is None:
            continue
        row.done += 1
        row.cached += m["source"] == "cache"
        v = VariantResult.model_validate_json(m["result_json"])
        row.statuses[v.status.value] = row.statuses.get(v.status.value, 0) + 1
        base = ind.get(m["context_key"])
        if v.speedup_vs_inductor is None and v.speedup and base:
            v.speedup_vs_inductor = v.speedup / base[0]
            sources.add(base[1])
        if (speedup := counted_speedup(v)) is not None:
            row.speedups.append(speedup)
            if v.speedup_vs_inductor:
                row.speedups_vs_inductor.append(v.speedup_vs_inductor)
        tasks.setdefault(item["task"], []).append(v)
    row.vs_inductor_sources = sorted(sources)
    if tasks:
        row.scores = suite_scores(list(tasks.values()), b=b, p=p)
        row.task_as = dict(zip(tasks, row.scores["task_AS"], strict=True))
        for name, vs in tasks.items():
            row.task_speedups[name] = [x for v in vs if (x := counted_speedup(v)) is not None]
            row.task_sizes[name] = len(vs)
    return row


def task_cell(row: Row, task: str) -> str:
    """A per-task cell: AS and the G-mean speedup vs eager of its correct variants."""
    if task not in row.task_as:
        return "-"
    return f"{fmt(row.task_as[task])} ({fmt(row.task_speedup(task), 'x')})"


def build_leaderboard(
    store: Store, run_refs: list[str], b: float | None = None, p: float | None = None
) -> Leaderboard:
    """Leaderboard rows for every candidate of every run (``b``/``p`` override the runs')."""
    runs, rows = [], []
    for ref in run_refs:
        run_id = store.resolve_run(ref)
        ms = store.measurements(run_id)
        meta = _run_meta(store, run_id, ms)
        params = meta["parameters"]
        b_ = params["b"] if b is None else b
        p_ = params["p"] if p is None else p
        items = _named_tasks(store.run_items(run_id))
        ind = _inductor_speedups(store, run_id, ms)
        for cand in store.run_candidates(run_id):
            rows.append(_row(run_id, cand, items, ms, ind, b_, p_))
        runs.append(meta)
    return Leaderboard(runs, rows)


def fmt(x: float | None, kind: str = "f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if kind == "x":
        return f"{x:.3f}x"
    if kind == "%":
        return f"{100 * x:.1f}%"
    return f"{x:.4f}"


COLUMNS = (
    ("AS", "AS", "f"),
    ("task AS", "mean_task_AS", "f"),
    ("fast_1", "fast_1", "%"),
    ("sub ok", "subgraph_correct", "%"),
    ("task ok", "task_correct", "%"),
    ("vs eager", "gmean_vs_eager", "x"),
    ("vs ind", "gmean_vs_inductor", "x"),
)
"""(header, summary key, format); 'task AS' is the mean of per-task AS, 'vs ind' the G-mean
speedup vs Inductor (ratio of ratios)."""


def table_rows(board: Leaderboard) -> list[list[str]]:
    """The leaderboard as text cells (shared by the terminal table and the HTML page)."""
    out = []
    multi = len(board.runs) > 1
    for r in board.rows:
        s = r.summary()
        fails = {k: v for k, v in s["statuses"].items() if k != "ok"}
        cells = [r.run_id] if multi else []
        cells += [r.name] + [fmt(s[key], kind) for _, key, kind in COLUMNS]
        cells += [
            f"{r.done}/{r.planned}" + (f" ({r.cached} cached)" if r.cached else ""),
            ", ".join(f"{k} {v}" for k, v in fails.items()) or "-",
        ]
        out.append(cells)
    return out


def table_header(board: Leaderboard) -> list[str]:
    head = ["run"] if len(board.runs) > 1 else []
    return head + ["candidate"] + [c[0] for c in COLUMNS] + ["done", "failures"]


def print_leaderboard(board: Leaderboard, console: object) -> None:
    """A Rich table of the leaderboard, plus per-task AS when there are several tasks. Labels
    are escaped: ``inductor[mode=reduce-overhead]`` is not Rich markup."""
    from rich.markup import escape
    from rich.table import Table

    title = "leaderboard — " + ", ".join(r["run_id"] for r in board.runs)
    table = Table(title=title, expand=False)
    for h in table_header(board):
        table.add_column(
            h, overflow="fold", justify="left" if h in ("run", "candidate") else "right"
        )
    for cells in table_rows(board):
        table.add_row(*map(escape, cells))
    console.print(table)  # type: ignore[attr-defined]
    tasks = board.tasks()
    if len(tasks) > 1 or len(board.runs) > 1:
        per = Table(title="per task: AS (G-mean speedup vs eager of correct variants)")
        per.add_column("task")
        for r in board.rows:
            per.add_column(
                escape(f"{r.run_id}\n{r.name}" if len(board.runs) > 1 else r.name),
                justify="right",
            )
        for t in tasks:
            per.add_row(t, *[task_cell(r, t) for r in board.rows])
        console.print(per)  # type: ignore[attr-defined]
    console.print(  # type: ignore[attr-defined]
        "[dim]AS: pooled over all subgraphs (headline); task AS: mean of per-task AS; "
        "sub ok / task ok: correct at t = 1; vs eager / vs ind: G-mean speedup over correct "
        "subgraphs, vs ind = (speedup vs eager) / (Inductor speedup vs eager) per variant.[/]"
    )
