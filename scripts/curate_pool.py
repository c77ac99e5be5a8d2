"""A long-tail suite from exported task pools: merge them, measure them on the GPU, choose.

``scripts/build_suite.py`` builds the bundled suite from models it captures itself; corpus
tasks come as exported folders instead (``passnet dataset export``, ``examples/graphnet_*.tgz``).
This script takes those:

1. ``merge OUT POOL...``: one pool folder of every task of the given exported folders (a task
   that two of them share, by name or by any variant's graph hash, is kept once), with one
   ``suite.json``; pack it (``tar czf``) to carry it to the GPU machine.
2. Measure on the GPU: ``passnet bench POOL -c eager,inductor --store S`` (resumable: the same
   command with the same store continues; ``scripts/gpu_check.sh`` does it with
   ``SUITE_TGZ=pool.tgz SUITE_CANDIDATES=eager,inductor``, the store carried in with
   ``SUITE_STORE_IN`` and coming back as ``suite.db.gz``). The pool may be measured in pieces,
   each its own run of the one store: ``--dtype float32`` in one, float16 and bfloat16 in
   others, on any card (a run's id depends on the card: a piece continued on another card
   starts a new run).
3. ``choose POOL --store S --out SUITE --train-out TRAIN``: eager's and default Inductor's
   results of every run of the store that measured the pool (or of the runs given with
   ``--run``, repeatable), merged per variant: a variant measured in several runs counts once,
   with the newest run's results (the store's order). Runs that measured different versions of
   a variant, a version the pool folder does not hold, or on different kinds of device are
   refused; tasks of a run that are not in the pool are ignored. Per task, the suite chosen by
   ``passnet.dataset.curation.choose_suite`` (weakest Inductor first, family coverage, at most
   ``--per-family`` a family) and a training split of the remaining tasks that shares no model
   family with the suite; both exported with the curation record in their ``suite.json`` (the
   runs used, with their device and how many variants each gave). ``--complete``: the suite
   only from tasks with every variant measured (a dtype measured on a shortlist of the pool,
   an exported folder of some of its tasks: its own run, merged like any other).

    python scripts/curate_pool.py merge /tmp/pool examples/graphnet_suite /tmp/new_tasks
    python scripts/curate_pool.py choose /tmp/pool --store suite.db --out /tmp/longtail \\
        --train-out /tmp/longtail_train --tasks 200 --per-family 2 --min-families 100
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import NamedTuple

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


KINDS = ("eager", "inductor")
"""The candidates ``choose`` reads: eager and default Inductor."""


class Variant(NamedTuple):
    """One pool variant's results in one run: per candidate kind, the speedup as the
    leaderboard's speedup columns count it (``counted_speedup``; None: not correct or not
    timed for real)."""

    run_id: str
    variant_id: str
    results: dict[str, float | None]


class PoolRun(NamedTuple):
    """What one run measured of the pool: its variants by (task, graph)."""

    run_id: str
    device: str
    device_name: str | None
    planned: int  # pool variants in the run's plan
    variants: dict[tuple[str, str], Variant]

    @property
    def measured(self) -> dict[tuple[str, str], Variant]:
        """The variants with an Inductor result: what a task's measured variants are."""
        return {k: v for k, v in self.variants.items() if "inductor" in v.results}

    @property
    def has_both(self) -> bool:
        return all(any(k in v.results for v in self.variants.values()) for k in KINDS)


def candidate_kinds() -> dict[str, str]:
    """Candidate id -> kind, for eager and default Inductor (ids as ``bench`` stores them)."""
    from passnet.evaluation.candidates import parse_candidate
    from passnet.runner.suite import candidate_id

    return {candidate_id(parse_candidate(k))[0]: k for k in KINDS}


def read_run(st, run_id: str, names: set[str]) -> PoolRun:
    """A run's eager and Inductor results on the pool's tasks (other tasks are ignored)."""
    from passnet.core.results import VariantResult
    from passnet.reports.leaderboard import counted_speedup

    kinds = candidate_kinds()
    variants: dict[tuple[str, str], Variant] = {}
    for m in st.measurements(run_id):
        kind = kinds.get(m["candidate_id"])
        if kind is None or m["task"] not in names:
            continue
        v = variants.setdefault((m["task"], m["graph"]), Variant(run_id, m["variant_id"], {}))
        v.results[kind] = counted_speedup(VariantResult.model_validate_json(m["result_json"]))
    planned = {i["variant_id"] for i in st.run_items(run_id)
               if kinds.get(i["candidate_id"]) == "inductor" and i["task"] in names}  # fmt: skip
    run = st.run(run_id)
    return PoolRun(run_id, run["device"], run["config"].get("device_name"), len(planned), variants)


def pool_runs(store: Path, names: set[str], refs: list[str] | None) -> list[PoolRun]:
    """The store's runs that measured this pool, oldest first: those of ``refs`` if given,
    else every run with eager and inductor results on tasks of the pool."""
    from passnet.runner.store import Store, StoreError

    with Store(store, readonly=True) as st:
        order = [r["run_id"] for r in st.runs()]  # oldest first
        if refs:
            try:
                wanted = {st.resolve_run(ref) for ref in refs}
            except StoreError as exc:
                raise SystemExit(str(exc)) from None
            found = [read_run(st, r, names) for r in order if r in wanted]
            for run in found:
                if not run.has_both:
                    raise SystemExit(f"run {run.run_id}: needs eager and inductor results on "
                                     "tasks of the pool")  # fmt: skip
        else:
            found = [run for r in order if (run := read_run(st, r, names)).has_both]
    if not found:
        raise SystemExit(f"{store}: no run measured eager and inductor on this pool (give --run)")
    devices = sorted({run.device for run in found})
    if len(devices) > 1:
        raise SystemExit(f"{store}: the runs measured the pool on {' and '.join(devices)}; "
                         "choose over one device's runs (--run, repeatable)")  # fmt: skip
    return found


def check_pool(pool: Path, found: list[PoolRun]) -> dict[tuple[str, str], str]:
    """The pool's variant ids by (task, graph), once every run is checked to have measured
    these variants: two runs that measured different versions of one variant, or a run that
    measured a version the pool folder does not hold, stop the choice."""
    from passnet.dataset.suite import load_suite

    first: dict[tuple[str, str], Variant] = {}
    for run in found:
        for key, v in sorted(run.variants.items()):
            seen = first.setdefault(key, v)
            if seen.variant_id != v.variant_id:
                raise SystemExit(f"runs {seen.run_id} and {v.run_id} disagree on the pool: they "
                                 f"measured different versions of {key[0]} {key[1]}; choose "
                                 "over runs of one pool (--run, repeatable)")  # fmt: skip
    ids = {(t.name, v.variant.graph): v.variant_id for t in load_suite(pool).tasks
           for v in t.variants}  # fmt: skip
    for key, v in sorted(first.items()):
        if ids.get(key) != v.variant_id:
            raise SystemExit(f"run {v.run_id} measured a version of {key[0]} {key[1]} that "
                             f"{pool} does not hold (another pool?); choose over runs of this "
                             "pool (--run, repeatable)")  # fmt: skip
    return ids


def newest_results(found: list[PoolRun]) -> dict[tuple[str, str], Variant]:
    """Every measured pool variant once: a variant measured in several runs keeps the newest
    run's results (eager's and Inductor's, both of that run)."""
    merged: dict[tuple[str, str], Variant] = {}
    for run in found:  # oldest first: a newer run's result replaces an older one's
        merged.update(run.measured)
    return merged


def report_merge(found: list[PoolRun], merged: dict, pool_ids: dict, n_tasks: int) -> dict:
    """Print what each run measured of the pool, then the merged total; the curation record's
    part about the runs."""
    used = Counter(v.run_id for v in merged.values())
    pool_sizes = Counter(task for task, _graph in pool_ids)
    sizes = Counter(task for task, _graph in merged)
    in_part = sum(n < pool_sizes[task] for task, n in sizes.items())
    again = sum(len(run.measured) for run in found) - len(merged)
    for run in found:
        print(f"run {run.run_id} ({run.device_name or run.device}): {len(run.measured)} pool "
              f"variants measured of {run.planned} planned")  # fmt: skip
    print(f"merged: {len(merged)} of {len(pool_ids)} pool variants ({again} measured in more than "
          f"one run: the newest run's result kept), {len(sizes)} of {n_tasks} pool tasks "
          f"({in_part} of them measured in part)")  # fmt: skip
    return {
        "runs": [{"run_id": run.run_id, "device": run.device, "device_name": run.device_name,
                  "measured": len(run.measured), "used": used[run.run_id]} for run in found],
        "merge": "per variant, eager's and default Inductor's results of the newest run (the "
                 "store's order) that measured it; 'used' counts the variants taken from a run",
        "pool_variants": len(pool_ids), "pool_variants_measured": len(merged),
        "pool_measured_in_part": in_part,
    }  # fmt: skip


def measures(
    pool: Path,
    tasks: list[dict],
    merged: dict[tuple[str, str], Variant],
    device: str,
    jobs: int = 1,
) -> list:
    """Per-task eager and Inductor results over the merged variants, as curation measures; a
    task whose variants do not all compute something eagerly is measured but not eligible."""
    from passnet.dataset.curation import TaskMeasure, works

    by_task: dict[str, list[Variant]] = {}
    for (task, _graph), v in sorted(merged.items()):
        by_task.setdefault(task, []).append(v)
    graphs = {t["name"]: sorted((pool / t["name"] / "graphs").glob("*/*"))
              for t in tasks if t["name"] in by_task}  # fmt: skip
    every = [g for gs in graphs.values() for g in gs]
    check = partial(works, device=device)
    # Each graph loaded and run once eagerly: the slow part (minutes for a pool), in ``jobs``
    # processes (spawned: no torch state forked); one runs them in this process.
    if jobs > 1 and len(every) > 1:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as ex:
            ok = dict(zip(every, ex.map(check, every, chunksize=4), strict=True))
    else:
        ok = {g: check(g) for g in every}
    out = []
    for t in tasks:
        name = t["name"]
        if name not in by_task:
            continue  # not measured (yet): the measurement is resumable
        vs = by_task[name]
        families = tuple(t["families"])  # suite.json keeps a task's families, not a variant's
        working = all(ok[graph] for graph in graphs[name])
        speedups = tuple(s for v in vs if (s := v.results["inductor"]) is not None)
        eager_ok = sum(v.results.get("eager") is not None for v in vs)
        out.append(TaskMeasure(name, families, len(vs), speedups, eager_ok, working))
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
    from passnet.dataset.curation import (
        CurationError,
        choose_suite,
        longtail_share,
        pooled_gmean,
    )

    pool = Path(args.pool)
    tasks = read_suite(pool)
    by_name = {t["name"]: t for t in tasks}
    found = pool_runs(Path(args.store), set(by_name), args.run)
    pool_ids = check_pool(pool, found)
    merged = newest_results(found)
    merge_record = report_merge(found, merged, pool_ids, len(tasks))
    measured = measures(pool, tasks, merged, args.device, args.jobs)
    eligible = measured
    if args.complete:  # half precision measured on a shortlist: the suite from those only
        sizes = Counter(task for task, _graph in pool_ids)
        eligible = [m for m in measured if m.measured == sizes[m.name]]
        print(f"--complete: {len(eligible)} of {len(measured)} measured tasks have every "
              "variant measured")  # fmt: skip
    try:
        chosen = choose_suite(eligible, n=args.tasks, per_family=args.per_family,
                              min_families=args.min_families)  # fmt: skip
    except CurationError as exc:
        print(f"curate_pool: {exc}", file=sys.stderr)
        return 2
    lose_pool, n_pool = longtail_share(measured)
    lose, n = longtail_share(chosen)
    gmean = pooled_gmean(chosen)
    names = {m.name for m in chosen}
    suite_families = {f for m in chosen for f in m.families}
    train = [t for t in tasks if t["name"] not in names
             and not set(t["families"]) & suite_families]  # fmt: skip
    record = {
        "rule": "passnet.dataset.curation.choose_suite (docs/suites.md)",
        **merge_record,
        "store": Path(args.store).name, "pool_tasks": len(tasks),
        "complete_only": args.complete, "complete_tasks": len(eligible),
        "pool_measured": n_pool, "pool_inductor_not_faster": lose_pool,
        "suite_inductor_not_faster": lose,
        "suite_inductor_gmean": gmean and round(gmean, 4), "per_family": args.per_family,
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
          f"tasks, {lose} of {n} chosen (its G-mean over their variants: "
          f"{'-' if gmean is None else f'{gmean:.3f}x'}); {len(suite_families)} families; "
          f"wrote {n} tasks to "
          f"{args.out}" + (f", {len(train)} training tasks to {args.train_out}"
                           if args.train_out else ""))  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
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
    c.add_argument("--run", action="append", default=None,
                   help="a run of the pool (repeatable) [every run with eager and inductor on "
                   "tasks of the pool]")  # fmt: skip
    c.add_argument("--out", required=True, help="suite folder")
    c.add_argument("--train-out", default=None, help="training-split folder")
    c.add_argument("--tasks", type=int, default=200)
    c.add_argument("--per-family", type=int, default=2)
    c.add_argument("--min-families", type=int, default=100)
    c.add_argument("--complete", action="store_true",
                   help="choose only tasks with every variant measured (the training split "
                   "still takes any task of the pool)")  # fmt: skip
    c.add_argument("--device", default="cpu", help="where the eager-work check runs")
    c.add_argument(
        "--jobs",
        type=int,
        default=min(os.cpu_count() or 1, 8),
        help="processes for the eager-work check (1: in this process)",
    )
    args = parser.parse_args(argv)
    if args.command == "merge":
        counts = merge(args.out, args.pools, args.overwrite)
        print(f"{counts['kept']} tasks into {args.out}; left out as duplicates: "
              f"{counts['same_name']} by name, {counts['same_graph']} by a shared graph")  # fmt: skip
        return 0
    return choose(args)


if __name__ == "__main__":
    sys.exit(main())
