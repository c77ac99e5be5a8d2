"""Units of work of the dataset pipeline, run in worker processes (or in-process).

Each job takes plain arguments, writes content-addressed sample folders under the dataset root
(first into ``tmp/``, then moved into place, so an interrupted job leaves nothing half-written)
and returns plain dicts that the parent records in the catalog. Failures are values: a job
returns the reason instead of raising.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from passnet.dataset.catalog import Catalog
from passnet.dataset.decompose import (
    GraphView,
    KernelCounter,
    Range,
    fusible_ranges,
    single_op_ranges,
    typical_ranges,
)
from passnet.dataset.hashing import sample_key
from passnet.dataset.variants import (
    DTYPES,
    VariantError,
    activation_numel,
    bucket_of,
    dtype_variant,
    map_range,
)
from passnet.graph.sample import Sample, SampleError, load_sample, run_sample
from passnet.graph.subgraph import cut_subgraph, graph_ops


@dataclass(frozen=True)
class DecomposeConfig:
    """Settings of the decomposition stage (recorded in the catalog's meta table)."""

    kinds: tuple[str, ...] = ("fusible", "typical", "single")
    device: str = "cpu"
    max_compiles: int = 64
    window: int = 16
    dtypes: tuple[str, ...] = DTYPES
    single_limit: int = 32
    typical_limit: int = 16
    typical_min_count: int = 2
    max_graph_bytes: int = 2 << 30


def peak_rss_mb() -> float:
    """Peak resident memory of this process (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def sample_info(sample: Sample, run: bool = True) -> dict:
    """Hashes, ops and shape bucket of a sample (``run``: outputs count for the bucket)."""
    key = sample_key(sample)
    numel = activation_numel(sample, run_sample(sample) if run else None)
    return {
        "hash": key.structural,
        "pattern": key.pattern,
        "ops": list(key.ops),
        "n_ops": len(key.ops),
        "numel": numel,
        "bucket": bucket_of(numel),
        "dtype": sample.dtype,
    }


def new_tmp(root: Path) -> Path:
    tmp = root / "tmp" / uuid.uuid4().hex
    tmp.parent.mkdir(parents=True, exist_ok=True)
    return tmp


def finalize(root: Path, tmp: Path, digest: str) -> Path:
    """Move a finished sample folder to ``samples/<hash[:2]>/<hash>`` (kept if already there)."""
    (tmp / "graph_hash.txt").write_text(digest, encoding="utf-8")
    final = root / "samples" / digest[:2] / digest
    if final.is_dir():
        shutil.rmtree(tmp, ignore_errors=True)
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(tmp, final)
    except OSError:  # another worker won the race
        shutil.rmtree(tmp, ignore_errors=True)
    return final


# --- capture and import ---------------------------------------------------------------------


def capture_job(name: str, shape_key: str, root: str, max_bytes: int) -> dict:
    """Capture one zoo model at one shape into the dataset."""
    from passnet.dataset.capture import capture_zoo
    from passnet.dataset.zoo import Shape, resolve

    zoo_model = resolve(name)
    tmp = new_tmp(Path(root))
    result = capture_zoo(zoo_model, Shape.parse(shape_key), tmp, max_bytes)
    row = {
        "model": name,
        "shape": shape_key,
        "weights": result.weights,
        "parameters": result.parameters,
        "seconds": round(result.seconds, 3),
        "maxrss_mb": round(peak_rss_mb(), 1),
    }
    if result.sample is None:
        shutil.rmtree(tmp, ignore_errors=True)
        status = "skipped" if zoo_model.unavailable() else "failed"
        return row | {"status": status, "reason": result.error, "graph": None}
    info = sample_info(result.sample, run=False)
    finalize(Path(root), tmp, info["hash"])
    return row | {"status": "ok", "reason": None, "graph": info["hash"], "info": info}


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit-equal, NaN equal to NaN (torchvision's FCN gives NaN on random inputs, twice)."""
    if torch.equal(a, b):
        return True
    if not (a.is_floating_point() and a.shape == b.shape and a.dtype == b.dtype):
        return False
    nan = torch.isnan(a)
    return torch.equal(nan, torch.isnan(b)) and torch.equal(a[~nan], b[~nan])


TRACER_LIMIT = "tracer limit"
"""The first words of an import failure that is PassNet's, not the sample's: it ran eagerly
(and deterministically), but could not be traced into the FX graph every later stage needs."""


def import_job(path: str, root: str) -> dict:
    """Validate a GraphNet sample folder (reads, runs, deterministic) and add it."""
    t0 = time.perf_counter()
    row: dict[str, Any] = {"weights": "real", "parameters": None, "graph": None}
    try:
        sample = load_sample(path)
        first, second = run_sample(sample, seed=0), run_sample(sample, seed=0)
        for i, (a, b) in enumerate(zip(first, second, strict=True)):
            if isinstance(a, torch.Tensor) and not _same(a, b):
                raise SampleError(sample.model_path, f"output {i} is not deterministic")
    except SampleError as e:
        return row | {"status": "failed", "reason": f"fails validation: {e}", "seconds": 0.0}
    try:  # the sample is valid; what fails from here on is a limit of PassNet's tracer
        info = sample_info(sample, run=False)
    except SampleError as e:
        reason = (
            f"{TRACER_LIMIT} (the sample runs eagerly; PassNet's FX tracer cannot trace it): {e}"
        )
        return row | {"status": "failed", "reason": reason, "seconds": 0.0}
    tmp = new_tmp(Path(root))
    tmp.mkdir()
    for item in sample.path.iterdir():
        if item.is_file():
            shutil.copy2(item, tmp / item.name)
    finalize(Path(root), tmp, info["hash"])
    seconds = round(time.perf_counter() - t0, 3)
    mapped = sample.cuda_literals and not torch.cuda.is_available()
    return row | {"status": "ok", "reason": None, "graph": info["hash"], "info": info,
                  "seconds": seconds, "maxrss_mb": round(peak_rss_mb(), 1),
                  "note": "validated on CPU with its CUDA device literals mapped to CPU"
                  if mapped else None}  # fmt: skip


# --- decomposition ----------------------------------------------------------------------------


@dataclass
class _Job:
    root: Path
    cat: Catalog
    cfg: DecomposeConfig
    model: str
    family: str
    parent_hash: str
    view: GraphView
    siblings: list[tuple[str, Sample, list[str]]]
    rows: dict[str, list]
    done: set


def _graph_bytes(sample: Sample) -> int:
    total = 0
    for m in sample.metas:
        n = 1
        for d in m.shape:
            n *= d
        total += n * (torch.empty(0, dtype=m.torch_dtype).element_size())
    return total


def _add_sample(job: _Job, sample: Sample, role: str) -> dict:
    info = sample_info(sample)
    final = finalize(job.root, sample.path, info["hash"])
    job.rows["samples"].append({"role": role, **info})
    return info | {"path": final}


def _variants_of(job: _Job, sub: dict, shape_graph: str, kernels: int | None) -> None:
    """Rows for the cut ``sub`` (its own dtype) and its other dtype variants."""
    base = load_sample(sub["path"])
    job.rows["variants"].append(
        {"graph": shape_graph, "dtype": base.dtype, "hash": sub["hash"], "bucket": sub["bucket"],
         "status": "ok", "reason": None, "kernels": kernels}
    )  # fmt: skip
    for dtype in job.cfg.dtypes:
        if dtype == base.dtype:
            continue
        row = {"graph": shape_graph, "dtype": dtype, "bucket": sub["bucket"], "kernels": None}
        try:
            variant = dtype_variant(base, dtype, new_tmp(job.root))
            info = _add_sample(job, variant, "variant")
            job.rows["variants"].append(
                row | {"hash": info["hash"], "status": "ok", "reason": None}
            )
        except VariantError as e:
            status = "skipped" if "no floating" in str(e) else "failed"
            job.rows["variants"].append(row | {"hash": None, "status": status, "reason": str(e)})


def _materialise(job: _Job, r: Range) -> None:
    """Cut ``r`` from the base graph and its shape siblings, with every dtype variant."""
    digest = job.view.range_hash(r.start, r.end)
    job.rows["occurrences"].append(
        {"hash": digest, "kind": r.kind, "parent": job.parent_hash, "start": r.start, "end": r.end}
    )
    known = job.cat.scalar("SELECT COUNT(*) FROM variants WHERE subgraph = ?", (digest,))
    if digest in job.done or known:
        job.rows["subgraphs"].append(_subgraph_row(job, r, digest, None))
        return
    job.done.add(digest)
    variants_before = len(job.rows["variants"])
    try:
        cut = cut_subgraph(job.view.sample, r.start, r.end, new_tmp(job.root))
        sub = _add_sample(job, cut, "subgraph")
    except SampleError as e:
        job.rows["failures"].append(
            {"kind": r.kind, "start": r.start, "end": r.end, "reason": str(e)}
        )
        return
    job.rows["subgraphs"].append(_subgraph_row(job, r, digest, sub["pattern"]))
    _variants_of(job, sub, job.parent_hash, r.kernels)
    for sibling_hash, sibling, sibling_ops in job.siblings:
        if (where := map_range(job.view.ops, sibling_ops, r.start, r.end)) is None:
            continue
        try:
            other = _add_sample(job, cut_subgraph(sibling, *where, new_tmp(job.root)), "subgraph")
        except SampleError as e:
            job.rows["failures"].append({"kind": r.kind, "start": r.start, "end": r.end,
                                         "reason": f"sibling {sibling_hash[:12]}: {e}"})  # fmt: skip
            continue
        _variants_of(job, other, sibling_hash, None)
    for row in job.rows["variants"][variants_before:]:
        row["subgraph"] = digest


def _subgraph_row(job: _Job, r: Range, digest: str, pattern: str | None) -> dict:
    return {"hash": digest, "kind": r.kind, "model": job.model, "family": job.family,
            "parent": job.parent_hash, "start": r.start, "end": r.end, "kernels": r.kernels,
            "pattern": pattern, "ops": json.dumps(list(r.ops))}  # fmt: skip


def decompose_job(
    graph: str,
    siblings: list[str],
    model: str,
    family: str,
    root: str,
    cfg: dict,
    stage: str,
    frequent: dict | None = None,
) -> dict:
    """Decompose one base graph (``stage`` "main": fusible + single; "typical": typical)."""
    t0 = time.perf_counter()
    config = DecomposeConfig(**cfg)
    root_path = Path(root)
    rows: dict[str, list] = {
        k: [] for k in ("samples", "subgraphs", "occurrences", "variants", "failures")
    }
    result: dict[str, Any] = {
        "graph": graph,
        "stage": stage,
        "rows": rows,
        "compiles": 0,
        "truncated": 0,
    }
    with Catalog(root_path) as cat:
        sample = load_sample(cat.sample_path(graph))
        size = _graph_bytes(sample)
        if size > config.max_graph_bytes:
            reason = f"{size / 2**30:.1f} GiB of inputs exceed the {config.max_graph_bytes / 2**30:.1f} GiB limit to materialise"
            return result | {"status": "skipped", "reason": reason, "seconds": 0.0}
        try:
            view = GraphView(sample)
        except SampleError as e:
            return result | {"status": "failed", "reason": str(e), "seconds": 0.0}
        sibs = []
        for h in siblings:
            s = load_sample(cat.sample_path(h))
            sibs.append((h, s, graph_ops(s)))
        job = _Job(root_path, cat, config, model, family, graph, view, sibs, rows, set())
        ranges: list[Range] = []
        if stage == "typical":
            ranges = typical_ranges(view, frequent or {}, min_count=config.typical_min_count,
                                    limit=config.typical_limit)  # fmt: skip
        else:
            if "fusible" in config.kinds:
                counter = KernelCounter(config.device, config.max_compiles, cat.kernel_cache(),
                                        on_new=lambda k, v: cat.add_kernel_counts({k: v}))  # fmt: skip
                found, truncated = fusible_ranges(view, counter, config.window)
                ranges += found
                result |= {"compiles": counter.compiles, "truncated": int(truncated)}
            if "single" in config.kinds:
                ranges += single_op_ranges(view, config.single_limit)
        for r in ranges:
            _materialise(job, r)
    return result | {"status": "ok", "reason": None, "seconds": round(time.perf_counter() - t0, 2),
                     "maxrss_mb": round(peak_rss_mb(), 1), "config": asdict(config)}  # fmt: skip
