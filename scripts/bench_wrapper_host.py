"""Host time of synthesised replacements without their launches: two pass libraries side by side.

For each task with a pass in both libraries, the smallest float32 variant's graph is rewritten
by each pass and run once through an FX interpreter that records the arguments of every
replacement call; then each replacement is called on those arguments with its kernels'
launches replaced by a no-op, interleaved A/B in rounds. What is left is the wrapper's own
Python (checks, sizes, strides, grid, allocation): the part of a launch-bound call a
wrapper change can move. Meaningful on any machine (no kernel runs); compare rows within one
run. Prints JSON: per task, the median µs per call of all its replacements for A and B.

Usage: python scripts/bench_wrapper_host.py LIB_A LIB_B [--suite examples/suite]
       [--calls 2000] [--rounds 7] [--filter GLOB]
(LIB_*: folders of ``<task>/pass/`` as ``passnet synth --out`` writes them.)
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch.fx import Interpreter

from passnet.dataset.task import load_task
from passnet.graph.sample import load_module, load_sample, materialize
from passnet.passes.launch import CachedKernel
from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx


class _NoLaunch:
    """Stands in for a ``@cached`` kernel: ``k[grid](*args, **kw)`` does nothing."""

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        return self._launch

    @staticmethod
    def _launch(*args: Any, **kwargs: Any) -> None:
        return None


class _Recorder(Interpreter):
    """Runs the rewritten graph, keeping each replacement call's (function, arguments)."""

    def __init__(self, gm: torch.fx.GraphModule, targets: set[Any]) -> None:
        super().__init__(gm)
        self.targets, self.calls = targets, []

    def call_function(self, target: Any, args: tuple, kwargs: dict) -> Any:
        if target in self.targets:
            self.calls.append((target, args))
        return super().call_function(target, args, kwargs)


def _calls(task_dir: Path, pass_dir: Path) -> list[tuple[Callable, tuple]]:
    task = load_task(task_dir)
    variants = [v for v in task.variants if v.dtype == "float32"] or task.variants
    small = min(variants, key=lambda v: sum(math.prod(m.shape) for m in load_sample(v.path).metas))
    sample = load_sample(small.path)
    passes = load_pass_dir(pass_dir)
    gm = to_fx(load_module(sample))
    apply_passes(gm, passes)
    for rule in passes.rules:
        for name, value in vars(rule.module).items():
            if isinstance(value, CachedKernel):
                setattr(rule.module, name, _NoLaunch())
    recorder = _Recorder(gm, {r.replacement for r in passes.rules})
    with torch.no_grad():
        recorder.run(*materialize(sample, seed=0))
    return recorder.calls


def _time(calls: list[tuple[Callable, tuple]], n: int) -> float:
    """µs per pass over all of ``calls``, ``n`` times."""
    t0 = time.perf_counter()
    for _ in range(n):
        for fn, args in calls:
            fn(*args)
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lib_a", type=Path)
    ap.add_argument("lib_b", type=Path)
    ap.add_argument("--suite", type=Path, default=Path("examples/suite"))
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--filter", default="*")
    a = ap.parse_args()
    rows = {}
    for task_dir in sorted(p for p in a.suite.iterdir() if (p / "task.json").is_file()):
        pa, pb = a.lib_a / task_dir.name / "pass", a.lib_b / task_dir.name / "pass"
        if not (fnmatch.fnmatch(task_dir.name, a.filter) and pa.is_dir() and pb.is_dir()):
            continue
        ca, cb = _calls(task_dir, pa), _calls(task_dir, pb)
        if not ca or not cb:
            continue
        _time(ca, 50), _time(cb, 50)  # first calls: plans, allocator warm-up
        ta, tb = [], []
        for _ in range(a.rounds):
            ta.append(_time(ca, a.calls))
            tb.append(_time(cb, a.calls))
        rows[task_dir.name] = {
            "calls": len(ca), "a_us": round(statistics.median(ta), 2),
            "b_us": round(statistics.median(tb), 2), "a_iqr": round(_iqr(ta), 2),
            "b_iqr": round(_iqr(tb), 2)}  # fmt: skip
        print(f"{task_dir.name}: {rows[task_dir.name]}", flush=True)
    ratios = [r["b_us"] / r["a_us"] for r in rows.values()]
    summary = {"tasks": len(rows), "gmean_b_over_a": round(math.exp(statistics.fmean(
        map(math.log, ratios))), 3) if ratios else None}  # fmt: skip
    print(json.dumps({"machine": platform.processor() or platform.machine(),
                      "torch": torch.__version__, "lib_a": str(a.lib_a), "lib_b": str(a.lib_b),
                      "summary": summary, "rows": rows}, indent=1))  # fmt: skip


def _iqr(xs: list[float]) -> float:
    q = statistics.quantiles(xs, n=4)
    return q[2] - q[0]


if __name__ == "__main__":
    main()
