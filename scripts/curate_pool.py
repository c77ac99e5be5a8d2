"""A long-tail suite from exported task pools: merge them, measure them on the GPU, choose.

``scripts/build_suite.py`` builds the bundled suite from models it captures itself; corpus
tasks come as exported folders instead (``passnet dataset export``, ``examples/graphnet_*.tgz``).
This script takes those:

1. ``merge OUT POOL...``: one pool folder of every task of the given exported folders (a task
   that two of them share, by name or by any variant's graph hash, is kept once), with one
   ``suite.json``; pack it (``tar czf``) to carry it to the GPU machine.
2. Measure on the GPU: ``passnet bench POOL -c eager,inductor --store S --run R`` (resumable:
   the same command with the same store continues; ``scripts/gpu_check.sh`` does it with
   ``SUITE_TGZ=pool.tgz SUITE_CANDIDATES=eager,inductor``, the store coming back as
   ``suite.db.gz``).
3. ``choose POOL --store S --out SUITE --train-out TRAIN``: per task, eager's and default
   Inductor's results from the store, the suite chosen by
   ``passnet.dataset.curation.choose_suite`` (weakest Inductor first, family coverage, at most
   ``--per-family`` a family) and a training split of the remaining tasks that shares no model
   family with the suite; both exported with the curation record in their ``suite.json``.

    python scripts/curate_pool.py merge /tmp/pool examples/graphnet_suite /tmp/new_tasks
    python scripts/curate_pool.py choose /tmp/pool --store suite.db --out /tmp/longtail \\
        --train-out /tmp/longtail_train --tasks 200 --per-family 2 --min-families 100
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

SUITE_JSON = "suite.json"


def read_suite(folder: Path) -> list[dict]:
    """The task entries of an exported folder's ``suite.json``, each checked to have its folder."""
    path = folder / SUITE_JSON
    if not path.is_file():
        raise SystemExit(f"{folder}: no {SUITE_JSON} (not an exported task folder)")
    tasks = json.loads(path.read_text(encoding="utf-8"))["tasks"]
    missing = [t["name"] for t in tasks if not (folder / t["name"]).is_dir()]
    if missing:
        raise SystemExit(f"{folder}: {len(missing)} task folder(s) missing, e.g. {missing[0]}")
    return tasks


def merge(out: Path, pools: list[Path], overwrite: bool = False) -> dict[str, int]:
    """Copy every task of ``pools`` into ``out`` once; what was kept and left out, counted."""
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise SystemExit(f"{out}: exists and is not empty (use --overwrite)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    entries: list[dict] = []
    names: set[str] = set()
    hashes: set[str] = set()
    counts = {"kept": 0, "same_name": 0, "same_graph": 0}
    for pool in pools:
        for task in read_suite(pool):
            own = {v["hash"] for v in task["variants"]}
            if task["name"] in names:
                counts["same_name"] += 1
                continue
            if own & hashes:
                counts["same_graph"] += 1
                continue
            shutil.copytree(pool / task["name"], out / task["name"])
            entries.append(task | {"pool": pool.name})
            names.add(task["name"])
            hashes |= own
            counts["kept"] += 1
    suite = {"schema_version": 1, "tasks": entries, "merged_from": [p.name for p in pools]}
    (out / SUITE_JSON).write_text(json.dumps(suite, indent=2) + "\n", encoding="utf-8")
    return counts


def pool_run(store: Path, names: set[str], run: str | None) -> str:
    """The store's run that measured this pool: ``run`` if given, else the newest run with
    eager and inductor results on tasks of the pool."""
    from passnet.reports.leaderboard import build_leaderboard
    from passnet.runner.store import Store

    with Store(store, readonly=True) as st:
        runs = [r["run_id"] for r in st.runs()]
        if run is not None:
            if run not in runs:
                raise SystemExit(f"{store}: no run {run!r}")
            return run
        for candidate in reversed(runs):  # newest first
            rows = {r.kind: r for r in build_leaderboard(st, [candidate]).rows}
            if {"eager", "inductor"} <= set(rows) and names & set(rows["inductor"].task_sizes):
                return candidate
    raise SystemExit(f"{store}: no run measured eager and inductor on this pool (give --run)")


def measures(pool: Path, tasks: list[dict], store: Path, run: str, device: str) -> list:
    """Per-task eager and Inductor results of ``run``, as curation measures; a task whose
    variants do not all compute something eagerly is measured but not eligible."""
    from passnet.dataset.curation import TaskMeasure, works
    from passnet.reports.leaderboard import build_leaderboard
    from passnet.runner.store import Store

    with Store(store, readonly=True) as st:
        rows = {r.kind: r for r in build_leaderboard(st, [run]).rows}
    if not {"eager", "inductor"} <= set(rows):
        raise SystemExit(f"run {run}: needs eager and inductor results, has {sorted(rows)}")
    eager, inductor = rows["eager"], rows["inductor"]
    out = []
    for t in tasks:
        name = t["name"]
        if name not in inductor.task_sizes:
            continue  # not measured (yet): the measurement is resumable
        families = tuple(t["families"])  # suite.json keeps a task's families, not a variant's
        graphs = sorted((pool / name / "graphs").glob("*/*"))
        working = all(works(graph, device) for graph in graphs)
        out.append(TaskMeasure(name, families, inductor.task_sizes[name],
                               tuple(inductor.task_speedups.get(name, ())),
                               len(eager.task_speedups.get(name, ())), working))  # fmt: skip
    return out


def export(pool: Path, entries: list[dict], out: Path, extra: dict) -> None:
    """The chosen tasks' folders and a ``suite.json`` with ``extra`` (the curation record)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for t in entries:
        shutil.copytree(pool / t["name"], out / t["name"])
    suite = {"schema_version": 1, "tasks": entries} | extra
    (out / SUITE_JSON).write_text(json.dumps(suite, indent=2) + "\n", encoding="utf-8")


def choose(args: argparse.Namespace) -> int:
    from passnet.dataset.curation import CurationError, choose_suite, longtail_share

    pool = Path(args.pool)
    tasks = read_suite(pool)
    by_name = {t["name"]: t for t in tasks}
    run = pool_run(Path(args.store), set(by_name), args.run)
    found = measures(pool, tasks, Path(args.store), run, args.device)
    print(f"{len(found)} of {len(tasks)} pool tasks measured in run {run}")
    try:
        chosen = choose_suite(found, n=args.tasks, per_family=args.per_family,
                              min_families=args.min_families)  # fmt: skip
    except CurationError as exc:
        print(f"curate_pool: {exc}", file=sys.stderr)
        return 2
    lose_pool, n_pool = longtail_share(found)
    lose, n = longtail_share(chosen)
    names = {m.name for m in chosen}
    suite_families = {f for m in chosen for f in m.families}
    train = [t for t in tasks if t["name"] not in names
             and not set(t["families"]) & suite_families]  # fmt: skip
    record = {
        "rule": "passnet.dataset.curation.choose_suite (docs/suites.md)",
        "run": run, "store": Path(args.store).name, "pool_tasks": len(tasks),
        "pool_measured": n_pool, "pool_inductor_not_faster": lose_pool,
        "suite_inductor_not_faster": lose, "per_family": args.per_family,
        "min_families": args.min_families, "families": len(suite_families),
        "train_tasks": len(train),
        "inductor_gmean": {m.name: m.gmean and round(m.gmean, 4) for m in chosen},
        "inductor_failed_variants": {m.name: m.failed for m in chosen if m.failed},
    }  # fmt: skip
    export(
        pool,
        [by_name[m.name] for m in chosen],
        Path(args.out),
        {"built_by": "python scripts/curate_pool.py choose", "curation": record},
    )
    if args.train_out:
        export(pool, train, Path(args.train_out),
               {"built_by": "python scripts/curate_pool.py choose", "split": "train",
                "suite": Path(args.out).name})  # fmt: skip
    print(f"Inductor (default) does not beat eager on {lose_pool} of {n_pool} measured pool "
          f"tasks, {lose} of {n} chosen; {len(suite_families)} families; wrote {n} tasks to "
          f"{args.out}" + (f", {len(train)} training tasks to {args.train_out}"
                           if args.train_out else ""))  # fmt: skip
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("merge", help="one pool folder from exported task folders")
    m.add_argument("out", type=Path)
    m.add_argument("pools", type=Path, nargs="+")
    m.add_argument("--overwrite", action="store_true")
    c = sub.add_parser("choose", help="the suite and its training split from a measured pool")
    c.add_argument("pool", type=Path)
    c.add_argument("--store", required=True, help="the bench store that measured the pool")
    c.add_argument("--run", default=None, help="its run id [newest with eager and inductor]")
    c.add_argument("--out", required=True, help="suite folder")
    c.add_argument("--train-out", default=None, help="training-split folder")
    c.add_argument("--tasks", type=int, default=200)
    c.add_argument("--per-family", type=int, default=2)
    c.add_argument("--min-families", type=int, default=100)
    c.add_argument("--device", default="cpu", help="where the eager-work check runs")
    args = parser.parse_args()
    if args.command == "merge":
        counts = merge(args.out, args.pools, args.overwrite)
        print(f"{counts['kept']} tasks into {args.out}; left out as duplicates: "
              f"{counts['same_name']} by name, {counts['same_graph']} by a shared graph")  # fmt: skip
        return 0
    return choose(args)


if __name__ == "__main__":
    sys.exit(main())
