"""A small suite of the bundled task and scripted results: what the store, runner, report and
reliability tests build on (no worker processes)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from passnet.core.results import Comparison, Parameters, SideTiming, Status, Timing, VariantResult
from passnet.runner.bench import BenchConfig

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_TASK = ROOT / "examples" / "tasks" / "bert_add_layer_norm"
EXAMPLE_PASS = ROOT / "examples" / "passes" / "add_layer_norm"
SMALL = [
    "graphs/float32/0_cut_1x12",
    "graphs/float16/1_cut_1x12_float16",
    "graphs/bfloat16/2_cut_1x12_bfloat16",
]
PARAMS = Parameters(warmup=1, trials=5, max_reruns=0)


def make_task(root: Path, name: str, graphs: list[str]) -> Path:
    folder = root / name
    shutil.copytree(EXAMPLE_TASK, folder)
    (folder / "graph_list.txt").write_text("\n".join(graphs) + "\n")
    (folder / "task.json").write_text(json.dumps({"name": name}))
    return folder


def make_suite(root: Path) -> Path:
    suite = root / "suite"
    suite.mkdir()
    make_task(suite, "task_a", SMALL[:2])
    make_task(suite, "task_b", SMALL[2:])
    return suite


def result(item, status: Status = Status.OK, speedup: float | None = 1.0) -> VariantResult:
    v = item.variant.variant
    ok = status in (Status.OK,)
    return VariantResult(
        graph=v.graph,
        dtype=v.dtype,
        status=status,
        comparison=Comparison(tightest_passing_t=-10) if ok else None,
        speedup=speedup,
        error=None if ok else "scripted failure",
    )


def timed(item, ref_us: float, cand_us: float) -> VariantResult:
    """An ``ok`` result with both sides timed (one sample each)."""

    def side(us: float) -> SideTiming:
        return SideTiming(wall=Timing(method="wall", samples_us=[us], median_us=us, iqr_us=0.0,
                                      rounds=1, noisy=False))  # fmt: skip

    r = result(item, speedup=ref_us / cand_us)
    return r.model_copy(update={"reference": side(ref_us), "candidate": side(cand_us)})


def scripted_speedups(item) -> VariantResult:
    kind = item.candidate.spec.kind
    return result(item, speedup={"eager": 1.0, "inductor": 0.5, "pass": 2.0}[kind])


def config(suite: Path, *cands: str, **kw) -> BenchConfig:
    return BenchConfig(suite=suite, candidates=cands, parameters=PARAMS, **kw)
