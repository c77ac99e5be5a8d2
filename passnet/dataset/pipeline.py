"""The resumable dataset build: capture / import graphs, then decompose them, over the catalog.

Every stage lists what the catalog does not have yet, runs it in a pool of worker processes
(``spawn``; one job per model x shape or per graph), and records each result as soon as it
arrives, so an interrupted build loses at most the jobs in flight and a rerun recomputes
nothing that is recorded. Progress is shown with rich progress bars.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from passnet.dataset.catalog import Catalog
from passnet.dataset.decompose import ngram_counts
from passnet.dataset.families import family_of
from passnet.dataset.jobs import DecomposeConfig, capture_job, decompose_job, import_job
from passnet.dataset.zoo import Shape, ZooModel
from passnet.graph.sample import load_sample
from passnet.graph.subgraph import graph_ops


class PipelineError(Exception):
    """A problem the user can fix (unreadable folder, nothing to do); printed without traceback."""


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def default_max_bytes() -> int:
    """Weights above a quarter of physical memory are captured on the meta device."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * 0.25)
    except (ValueError, OSError):
        return 4 << 30


def peak_memory_mb() -> dict[str, float]:
    """Peak RSS of this process and of its largest finished child process (MiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"parent_mb": round(own, 1), "largest_worker_mb": round(children, 1)}


def run_jobs(
    fn: Callable[..., dict],
    jobs: list[tuple],
    workers: int,
    label: str,
    console: Console | None = None,
) -> Iterator[tuple[tuple, dict]]:
    """Yield ``(job, fn(*job))`` as results arrive, with a progress bar; exceptions -> dicts."""
    console = console or Console(stderr=True)
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("{task.fields[last]}")]  # fmt: skip
    with Progress(*columns, console=console, transient=False) as progress:
        bar = progress.add_task(label, total=len(jobs), last="")
        if workers <= 1 or len(jobs) <= 1:
            for job in jobs:
                yield job, _safe(fn, job)
                progress.update(bar, advance=1, last=str(job[0])[:40])
            return
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            futures = {pool.submit(fn, *job): job for job in jobs}
            for future in as_completed(futures):
                job = futures[future]
                try:
                    result = future.result()
                except Exception as e:  # noqa: BLE001 - a dead worker is this job's failure
                    result = {"status": "failed", "reason": f"worker died: {type(e).__name__}: {e}"}
                yield job, result
                progress.update(bar, advance=1, last=str(job[0])[:40])


def _safe(fn: Callable[..., dict], job: tuple) -> dict:
    try:
        return fn(*job)
    except Exception as e:  # noqa: BLE001 - failure is a value; the build goes on
        return {"status": "failed", "reason": f"{type(e).__name__}: {e}"}


@dataclass
class StageReport:
    """What one stage did: counts by status, wall time, failures with reasons."""

    stage: str
    done: int = 0
    skipped_done: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # not failures, but worth saying (duplicates)
    extra: dict[str, Any] = field(default_factory=dict)

    def count(self, status: str) -> None:
        self.by_status[status] = self.by_status.get(status, 0) + 1
        self.done += 1


def _record_sample(cat: Catalog, info: dict, role: str) -> None:
    cat.add_sample(info["hash"], role, info)


def build(
    root: Path,
    models: list[ZooModel],
    *,
    shapes: list[Shape] | None = None,
    workers: int = 1,
    max_bytes: int | None = None,
    retry_failed: bool = False,
    console: Console | None = None,
) -> StageReport:
    """Capture every model at every shape (its zoo defaults unless ``shapes`` is given)."""
    report = StageReport("build")
    max_bytes = max_bytes or default_max_bytes()
    with Catalog(root) as cat:
        jobs = []
        for m in models:
            cat.upsert("models", {"name": m.name, "library": m.library, "family": m.family,
                                  "domain": m.domain, "origin": "zoo"})  # fmt: skip
            for shape in shapes or list(m.shapes):
                if cat.capture_done(m.name, shape.key, retry_failed):
                    report.skipped_done += 1
                else:
                    jobs.append((m.name, shape.key, str(cat.root), max_bytes))
        t0 = time.perf_counter()
        for job, result in run_jobs(capture_job, jobs, workers, "capture", console):
            info = result.pop("info", None)
            row = {"model": job[0], "shape": job[1], "status": result.get("status", "failed"),
                   "reason": result.get("reason")}  # fmt: skip
            row |= {
                k: result.get(k) for k in ("graph", "weights", "parameters", "seconds", "maxrss_mb")
            }
            with cat.transaction():
                if info:
                    _record_sample(cat, info, "graph")
                cat.record_capture(row)
            report.count(row["status"])
            if row["status"] != "ok":
                report.failures.append(f"{job[0]}@{job[1]}: {row['reason']}")
        report.seconds = time.perf_counter() - t0
        ok = report.by_status.get("ok", 0)
        report.extra = {
            "graphs_per_hour": round(ok / report.seconds * 3600, 1) if ok else None,
            "workers": workers,
            "peak_memory": peak_memory_mb(),
        }
        if report.done:
            cat.set_meta("last_build", json.dumps(asdict(report)))
    return report


def find_graph_folders(path: Path) -> list[Path]:
    """Every folder with a model.py under ``path`` (``path`` itself if it is one)."""
    if not path.is_dir():
        raise PipelineError(f"{path}: not a readable folder")
    if (path / "model.py").is_file():
        return [path]
    found, seen = [], set()
    # os.walk follows linked folders (a tree of links to a corpus); real paths stop loops
    for top, dirs, files in os.walk(path, followlinks=True, onerror=_unreadable):
        real = os.path.realpath(top)
        if real in seen or "pass_dir" in Path(top).parts:
            dirs[:] = []
            continue
        seen.add(real)
        if "model.py" in files:
            found.append(Path(top))
    return sorted(found)


def _unreadable(e: OSError) -> None:
    raise PipelineError(f"{e.filename}: cannot read: {e.strerror}") from e


def import_graphs(
    root: Path,
    paths: list[Path],
    *,
    family: str | None = None,
    workers: int = 1,
    retry_failed: bool = False,
    console: Console | None = None,
) -> StageReport:
    """Add GraphNet sample folders (any depth below ``paths``) to the dataset, validated.

    A folder that failed before stays failed (and in ``failures``) until ``retry_failed``; a
    path with no graph folder below it is a failure too, never silently dropped; a graph that
    is already in the dataset under another name is imported and named in ``notes``."""
    report = StageReport("import")
    found = {p: find_graph_folders(p.resolve()) for p in paths}
    folders = [(p.resolve(), f) for p, fs in found.items() for f in fs]
    if not folders:
        raise PipelineError(f"no graph folder (with a model.py) under {', '.join(map(str, paths))}")
    report.failures += [f"{p}: no graph folder (with a model.py) below it" for p, fs in found.items()
                        if not fs]  # fmt: skip
    with Catalog(root) as cat:
        jobs, names = [], {}
        for top, folder in folders:
            rel = folder.relative_to(top.parent).as_posix()
            name = rel
            names[str(folder)] = name
            fam = family or family_of(folder, rel)  # refreshed on every run, imported or not
            cat.upsert("models", {"name": name, "library": "graphnet", "family": fam,
                                  "domain": "unknown", "origin": str(folder)})  # fmt: skip
            if cat.capture_done(name, "imported", retry_failed):
                report.skipped_done += 1
                before = cat.one("SELECT status, reason FROM captures WHERE model = ? AND "
                                 "shape = 'imported'", (name,))  # fmt: skip
                if before and before["status"] != "ok":
                    report.failures.append(f"{folder}: failed before: {before['reason']} "
                                           "(--retry-failed tries again)")  # fmt: skip
                continue
            jobs.append((str(folder), str(cat.root)))
        t0 = time.perf_counter()
        for job, result in run_jobs(import_job, jobs, workers, "import", console):
            info = result.pop("info", None)
            if note := result.pop("note", None):
                report.notes.append(f"{job[0]}: {note}")
            row = {"model": names[job[0]], "shape": "imported", "status": result.get("status"),
                   "reason": result.get("reason"), "graph": result.get("graph"),
                   "weights": "real", "seconds": result.get("seconds"),
                   "maxrss_mb": result.get("maxrss_mb")}  # fmt: skip
            if info and (twin := cat.one("SELECT model FROM captures WHERE graph = ? AND "
                                         "model != ?", (info["hash"], row["model"]))):  # fmt: skip
                report.notes.append(f"{job[0]}: the same graph as {twin['model']} (names "
                                    "aside); kept once in the dataset")  # fmt: skip
            with cat.transaction():
                if info:
                    _record_sample(cat, info, "graph")
                cat.record_capture(row)
            report.count(row["status"] or "failed")
            if row["status"] != "ok":
                report.failures.append(f"{job[0]}: {row['reason']}")
        report.seconds = time.perf_counter() - t0
        report.extra = {"peak_memory": peak_memory_mb()}
    return report


def base_graphs(cat: Catalog) -> list[dict]:
    """Per model: the capture with the fewest activation elements, and its shape siblings."""
    rows = cat.rows(
        "SELECT c.model, c.graph, m.family, s.numel FROM captures c "
        "JOIN models m ON m.name = c.model JOIN samples s ON s.hash = c.graph "
        "WHERE c.status = 'ok' ORDER BY c.model, s.numel, c.shape"
    )
    by_model: dict[str, list[dict]] = {}
    for r in rows:
        by_model.setdefault(r["model"], []).append(r)
    out, seen = [], set()
    for model, caps in by_model.items():
        base = caps[0]
        if base["graph"] in seen:  # the same graph from another model: decomposed once
            continue
        seen.add(base["graph"])
        siblings = list(dict.fromkeys(c["graph"] for c in caps[1:] if c["graph"] != base["graph"]))
        out.append({"model": model, "family": base["family"], "graph": base["graph"],
                    "siblings": siblings})  # fmt: skip
    return out


def _record_decomposition(cat: Catalog, result: dict, job: tuple) -> None:
    rows = result.get("rows") or {}
    with cat.transaction():
        for info in rows.get("samples", []):
            _record_sample(cat, info, info.pop("role", "subgraph"))
        for row in rows.get("subgraphs", []):
            if row["pattern"] is None:
                row["pattern"] = cat.scalar(
                    "SELECT pattern FROM samples WHERE hash = ?", (row["hash"],)
                )
            cat.insert_ignore("subgraphs", row)
        for row in rows.get("occurrences", []):
            cat.insert_ignore("occurrences", row)
        for row in rows.get("variants", []):
            cat.upsert("variants", row)
        failures = rows.get("failures", [])
        cat.upsert("decompositions", {
            "graph": job[0], "stage": job[6], "status": result.get("status", "failed"),
            "reason": result.get("reason"), "compiles": result.get("compiles"),
            "truncated": result.get("truncated"), "seconds": result.get("seconds"),
            "counts": json.dumps({"failures": failures[:20], "n_failures": len(failures)}),
        })  # fmt: skip


def decompose(
    root: Path,
    cfg: DecomposeConfig,
    *,
    workers: int = 1,
    redo: bool = False,
    console: Console | None = None,
    retry_failed: bool = False,
) -> StageReport:
    """Fusible + single-op subgraphs per base graph, then typical ones over all of them. A
    graph done before is skipped unless ``redo``; one that failed before, unless
    ``retry_failed`` (it stays among the failures, with its reason)."""
    report = StageReport("decompose")
    with Catalog(root, create=False) as cat:
        bases = base_graphs(cat)
        if not bases:
            raise PipelineError(f"{root}: no captured or imported graph to decompose")
        cat.set_meta("decompose_config", json.dumps(asdict(cfg)))
        t0 = time.perf_counter()
        stages = ["main"] + (["typical"] if "typical" in cfg.kinds else [])
        for stage in stages:
            todo = bases if stage == "main" else _decomposed(cat, bases)
            frequent = _frequent_ngrams(cat, todo, cfg) if stage == "typical" else None
            jobs = []
            for b in todo:
                status = cat.scalar(
                    "SELECT status FROM decompositions WHERE graph = ? AND stage = ?",
                    (b["graph"], stage),
                )
                if status is not None and not redo and not (retry_failed and status != "ok"):
                    report.skipped_done += 1
                    if status != "ok":
                        reason = cat.scalar(
                            "SELECT reason FROM decompositions WHERE graph = ? AND stage = ?",
                            (b["graph"], stage),
                        )
                        report.failures.append(f"{b['model']} ({stage}): failed before: "
                                               f"{reason} (--retry-failed tries again)")  # fmt: skip
                    continue
                jobs.append((b["graph"], b["siblings"], b["model"], b["family"], str(cat.root),
                             asdict(cfg), stage, frequent))  # fmt: skip
            for job, result in run_jobs(
                decompose_job, jobs, workers, f"decompose ({stage})", console
            ):
                _record_decomposition(cat, result, job)
                report.count(result.get("status", "failed"))
                if result.get("status") != "ok":
                    report.failures.append(f"{job[2]} ({stage}): {result.get('reason')}")
        report.seconds = time.perf_counter() - t0
        report.extra = {"peak_memory": peak_memory_mb()}
        if report.done:
            cat.set_meta("last_decompose", json.dumps(asdict(report)))
    return report


def _decomposed(cat: Catalog, bases: list[dict]) -> list[dict]:
    ok = {
        r["graph"]
        for r in cat.rows("SELECT graph FROM decompositions WHERE stage = 'main' AND status = 'ok'")
    }
    return [b for b in bases if b["graph"] in ok]


def _frequent_ngrams(cat: Catalog, bases: list[dict], cfg: DecomposeConfig) -> dict:
    op_lists = [graph_ops(load_sample(cat.sample_path(b["graph"]))) for b in bases]
    counts = ngram_counts(op_lists)
    return {k: v for k, v in counts.items() if v >= cfg.typical_min_count}
