"""Tasks, train/eval splits and long-tail curation over the catalog (SPEC section 3).

A task is every variant (subgraph x shape bucket x dtype) of one operator sequence: subgraphs of
one kind whose pattern hash (ops and edges, no literals, shapes or dtypes) is equal, across
models. Each (shape bucket, dtype) cell keeps at most ``max_per_cell`` variants (distinct graph
hashes), preferring models of families the cell does not have yet.

Splits never leak: a graph hash belongs to one pattern, hence to one task, and tasks sharing a
graph hash are kept on one side anyway (union-find). With ``by="family"``, model families are
assigned to eval or train first; a task goes to the side of most of its variants and drops the
variants of the other side's families, so no family appears on both sides.

Curation measures eager vs Inductor on the target device (the evaluator's workers, one per
variant) and keeps the tasks where Inductor is weakest: geometric-mean speedup over eager below
``threshold``, or an Inductor failure.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from passnet.dataset.catalog import Catalog

SCHEMES = ("task", "family")


@dataclass
class TaskSpec:
    name: str
    kind: str
    pattern: str
    ops: list[str]
    variants: list[dict] = field(default_factory=list)
    sources: set[tuple[str, str]] = field(default_factory=set)
    """(model, family) of every place the task's subgraphs occur, deduplicated ones too."""

    @property
    def families(self) -> list[str]:
        return sorted({v["family"] for v in self.variants} | {f for _, f in self.sources})

    @property
    def models(self) -> list[str]:
        return sorted({v["model"] for v in self.variants} | {m for m, _ in self.sources})


def _short(op: str) -> str:
    return re.sub(r"\W+", "", op.rsplit(".", 1)[-1]).strip("_") or "op"


def task_name(kind: str, ops: list[str], pattern: str) -> str:
    """``fusible_add_layer_norm_3f2a1c9d``: kind, up to four distinct ops, pattern prefix."""
    distinct = list(dict.fromkeys(_short(o) for o in ops))
    body = "_".join(distinct[:4]) + ("_etc" if len(distinct) > 4 else "")
    return f"{kind}_{body}_{pattern[:8]}"


def group_tasks(
    cat: Catalog, kinds: tuple[str, ...] = ("fusible",), max_per_cell: int = 2
) -> list[TaskSpec]:
    """Tasks from the catalog's runnable variants (module docstring)."""
    marks = ",".join("?" for _ in kinds)
    rows = cat.rows(
        "SELECT v.hash, v.dtype, v.bucket, v.subgraph, s.kind, s.pattern, s.model, "
        "COALESCE(m.family, s.family) AS family, s.ops "  # the model's family as it is now
        "FROM variants v JOIN subgraphs s ON s.hash = v.subgraph "
        "LEFT JOIN models m ON m.name = s.model "
        f"WHERE v.status = 'ok' AND s.kind IN ({marks}) ORDER BY s.model, v.subgraph, v.hash",
        kinds,
    )
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["kind"], r["pattern"])].append(r)
    found_in: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for r in cat.rows(
        "SELECT DISTINCT o.hash, m.name, m.family FROM occurrences o "
        "JOIN captures c ON c.graph = o.parent JOIN models m ON m.name = c.model"
    ):
        found_in[r["hash"]].add((r["name"], r["family"]))
    tasks = []
    for (kind, pattern), members in sorted(groups.items()):
        ops = json.loads(members[0]["ops"])
        spec = TaskSpec(task_name(kind, ops, pattern), kind, pattern, ops)
        for r in members:
            spec.sources |= found_in.get(r["subgraph"], set())
        cells: dict[tuple[int, str], list[dict]] = defaultdict(list)
        seen: set[str] = set()
        for r in sorted(members, key=lambda r: (r["family"], r["model"], r["hash"])):
            if r["hash"] in seen:
                continue
            seen.add(r["hash"])
            cells[(r["bucket"], r["dtype"])].append(r)
        for key in sorted(cells):
            chosen: list[dict] = []
            for r in sorted(cells[key], key=lambda r: r["hash"]):
                fams = {c["family"] for c in chosen}
                if len(chosen) < max_per_cell and r["family"] not in fams:
                    chosen.append(r)
            for r in cells[key]:
                if len(chosen) < max_per_cell and r not in chosen:
                    chosen.append(r)
            spec.variants += chosen
        tasks.append(spec)
    return tasks


def save_tasks(cat: Catalog, tasks: list[TaskSpec]) -> None:
    """Replace the catalog's tasks of these kinds with ``tasks``."""
    kinds = sorted({t.kind for t in tasks})
    with cat.transaction():
        for kind in kinds:
            names = [r["name"] for r in cat.rows("SELECT name FROM tasks WHERE kind = ?", (kind,))]
            for name in names:
                cat.db.execute("DELETE FROM task_variants WHERE task = ?", (name,))
            cat.db.execute("DELETE FROM tasks WHERE kind = ?", (kind,))
        for t in tasks:
            cat.upsert("tasks", {
                "name": t.name, "pattern": t.pattern, "kind": t.kind, "ops": json.dumps(t.ops),
                "n_variants": len(t.variants),
                "models": json.dumps(t.models),
                "families": json.dumps(t.families),
                "buckets": json.dumps(sorted({v["bucket"] for v in t.variants})),
                "dtypes": json.dumps(sorted({v["dtype"] for v in t.variants})),
            })  # fmt: skip
            for v in t.variants:
                cat.upsert("task_variants", {
                    "task": t.name, "hash": v["hash"], "subgraph": v["subgraph"], "dtype": v["dtype"],
                    "bucket": v["bucket"], "model": v["model"], "family": v["family"],
                })  # fmt: skip


def _unit(seed: int, text: str) -> float:
    """A deterministic number in [0, 1) for ``text``."""
    digest = hashlib.sha256(f"{seed}:{text}".encode()).hexdigest()
    return int(digest[:12], 16) / 16**12


def _take(keys: list[str], size: dict[str, int], fraction: float, seed: int) -> set[str]:
    """Keys in their seeded order until they hold ``round(fraction * total)`` tasks: the
    requested share, not a coin per key (6 tasks at 20% once gave no eval task at all). At
    least one key when the fraction is above 0, never all of them when there are two."""
    total = sum(size.values())
    want = round(fraction * total)
    if fraction > 0 and len(keys) >= 2:
        want = max(want, 1)
    chosen: set[str] = set()
    held = 0
    for k in sorted(keys, key=lambda k: (_unit(seed, k), k)):
        if held >= want or (len(keys) >= 2 and len(chosen) == len(keys) - 1):
            break
        chosen.add(k)
        held += size[k]
    return chosen


def _hash_groups(members: list[dict]) -> dict[str, str]:
    """Task -> its group's root: tasks that share a graph hash are one group (union-find)."""
    parent = {m["task"]: m["task"] for m in members}

    def find(t: str) -> str:
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    owner: dict[str, str] = {}
    for m in members:
        if m["hash"] in owner:
            parent[find(m["task"])] = find(owner[m["hash"]])
        else:
            owner[m["hash"]] = m["task"]
    return {t: find(t) for t in parent}


def split_tasks(
    cat: Catalog, *, eval_fraction: float = 0.2, by: str = "task", seed: int = 0
) -> dict[str, str]:
    """Assign every task to "train" or "eval" (module docstring); returns task -> split."""
    if by not in SCHEMES:
        raise ValueError(f"unknown split scheme {by!r}; known: {', '.join(SCHEMES)}")
    members = cat.rows("SELECT task, hash, family FROM task_variants")
    by_task: dict[str, list[dict]] = defaultdict(list)
    for m in members:
        by_task[m["task"]].append(m)
    if by == "family":
        families = sorted({m["family"] for m in members})
        size = {f: sum(1 for ms in by_task.values() if ms[0]["family"] == f) for f in families}
        eval_fams = _take(families, size, eval_fraction, seed)
        cat.set_meta(f"family_split:{seed}", json.dumps(sorted(eval_fams)))
        side = {}
        for task, ms in by_task.items():
            n_eval = sum(m["family"] in eval_fams for m in ms)
            side[task] = "eval" if n_eval * 2 > len(ms) else "train"
    else:
        root = _hash_groups(members)
        groups: dict[str, int] = defaultdict(int)
        for t in by_task:
            groups[root[t]] += 1
        eval_groups = _take(sorted(groups), groups, eval_fraction, seed)
        side = {t: "eval" if root[t] in eval_groups else "train" for t in by_task}
    with cat.transaction():
        cat.db.execute("DELETE FROM splits WHERE scheme = ?", (by,))
        for task, s in side.items():
            cat.upsert("splits", {"task": task, "scheme": by, "split": s})
    return side


def assign_eval(cat: Catalog, names: list[str]) -> dict[str, str]:
    """The ``task`` split with exactly ``names`` (and any task sharing a graph with one of them)
    on the eval side and every other task on train: a suite built from the catalog is then
    its eval split, and training on the train split cannot see it. Checked before returning."""
    members = cat.rows("SELECT task, hash, family FROM task_variants")
    known = {m["task"] for m in members}
    missing = sorted(set(names) - known)
    if missing:
        raise ValueError(f"unknown task(s) {', '.join(missing)}")
    root = _hash_groups(members)
    eval_roots = {root[t] for t in names}
    side = {t: "eval" if root[t] in eval_roots else "train" for t in known}
    with cat.transaction():
        cat.db.execute("DELETE FROM splits WHERE scheme = 'task'")
        for task, s in side.items():
            cat.upsert("splits", {"task": task, "scheme": "task", "split": s})
    check_no_leakage(cat, "task")
    return side


def split_variants(cat: Catalog, task: str, by: str = "task", seed: int = 0) -> list[dict]:
    """The task's variants that belong to its split (family scheme drops the other side's)."""
    rows = cat.rows(
        "SELECT * FROM task_variants WHERE task = ? ORDER BY dtype, bucket, hash", (task,)
    )
    if by != "family":
        return rows
    eval_fams = set(json.loads(cat.get_meta(f"family_split:{seed}") or "[]"))
    side = cat.scalar("SELECT split FROM splits WHERE task = ? AND scheme = 'family'", (task,))
    return [r for r in rows if (r["family"] in eval_fams) == (side == "eval")]


def check_no_leakage(cat: Catalog, by: str = "task", seed: int = 0) -> None:
    """Raise if a graph hash (or, by family, a family) is on both sides."""
    sides: dict[str, set[str]] = defaultdict(set)
    fam_sides: dict[str, set[str]] = defaultdict(set)
    for r in cat.rows("SELECT task, split FROM splits WHERE scheme = ?", (by,)):
        for v in split_variants(cat, r["task"], by, seed):
            sides[v["hash"]].add(r["split"])
            fam_sides[v["family"]].add(r["split"])
    leaked = [h for h, s in sides.items() if len(s) > 1]
    if by == "family":
        leaked += [f for f, s in fam_sides.items() if len(s) > 1]
    if leaked:
        raise AssertionError(f"split {by!r} leaks: {leaked[:5]}")


Measure = Callable[[str, str], dict]
"""(variant sample path, device) -> {"status", "eager_us", "candidate_us", "speedup", "error"}."""


def curate(
    cat: Catalog,
    *,
    device: str = "cpu",
    top: int = 30,
    threshold: float = 1.0,
    per_task: int = 2,
    tasks: list[str] | None = None,
    measure: Measure,
    on_measured: Callable[[str, dict], None] | None = None,
) -> list[dict]:
    """Measure up to ``per_task`` variants per task (cached) and mark the weakest as "bench".

    ``measure`` is ``passnet.evaluation.evaluator.measure_inductor`` in the CLI (the dataset
    layer sits below the evaluator and does not import it)."""
    names = tasks or [r["name"] for r in cat.rows("SELECT name FROM tasks WHERE kind = 'fusible'")]
    ranked = []
    for name in names:
        variants = cat.rows(
            "SELECT hash FROM task_variants WHERE task = ? ORDER BY dtype != 'float32', bucket DESC, hash",
            (name,),
        )[:per_task]
        results = []
        for v in variants:
            row = cat.one(
                "SELECT * FROM measurements WHERE hash = ? AND device = ? AND candidate = 'inductor'",
                (v["hash"], device),
            )
            if row is None:
                row = measure(str(cat.sample_path(v["hash"])), device)
                row |= {"hash": v["hash"], "device": device, "candidate": "inductor"}
                cat.upsert("measurements", row)
                if on_measured:
                    on_measured(name, row)
            results.append(row)
        speedups = [r["speedup"] for r in results if r["status"] == "ok" and r["speedup"]]
        failed = any(r["status"] != "ok" for r in results)
        gmean = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else None
        ranked.append({"task": name, "gmean_speedup": gmean, "inductor_failed": failed})
    weak = [r for r in ranked if r["inductor_failed"] or (r["gmean_speedup"] or 0) < threshold]
    weak.sort(key=lambda r: (not r["inductor_failed"], r["gmean_speedup"] or 0))
    chosen = {r["task"] for r in weak[:top]}
    with cat.transaction():
        cat.db.execute("DELETE FROM splits WHERE scheme = 'longtail'")
        for r in ranked:
            split = "bench" if r["task"] in chosen else "rest"
            cat.upsert("splits", {"task": r["task"], "scheme": "longtail", "split": split})
    return ranked
