"""End to end: `passnet eval` semantics on a task cut from a real graph the project never saw.

The task is BERT's residual add + LayerNorm, cut from the GraphNet fixture at test time, in
float32, float16 and bfloat16. Four pass folders each get the status and score they deserve.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BERT, fixture_path

from passnet.core.results import Parameters, Status, TaskResult, default_parameters
from passnet.core.tolerance import ErrorClass
from passnet.dataset.task import Task, load_task, write_task
from passnet.evaluation.candidates import parse_candidate
from passnet.evaluation.evaluator import evaluate_task
from passnet.graph.sample import load_sample, with_dtype
from passnet.graph.subgraph import cut_subgraph, graph_ops
from passnet.scores.metrics import aggregate_score, compute_scores, es_curve, outcome_from_variant

ROOT = Path(__file__).resolve().parents[1]
CORRECT = ROOT / "examples" / "passes" / "add_layer_norm"
PASSES = ROOT / "tests" / "passes"
FAST = Parameters(warmup=1, trials=3, rounds=1, max_reruns=0, timeout_s=300)


PHASES = [
    "setup",
    "build",
    "first_call",
    "correctness",
    "ghost",
    "timing_prep",
    "wait",
    "timing",
    "timing_settle",
    "timing_checks",
    "recheck",
]
"""Every phase of a passing pass's variant, in order (``result.phase_seconds``): the held
outputs' first comparison (after the warmup) comes before the first checked call."""


@pytest.fixture(scope="module")
def bert_task(tmp_path_factory: pytest.TempPathFactory) -> Task:
    work = tmp_path_factory.mktemp("bert_task")
    full = load_sample(fixture_path(BERT))
    ops = graph_ops(full)
    start = next(
        i for i in range(len(ops) - 1) if ops[i] == "add" and ops[i + 1].endswith("layer_norm")
    )
    cut = cut_subgraph(full, start, start + 2, work / "cut")
    variants = [cut.path] + [
        with_dtype(cut, dt, work / f"cut_{dt}").path for dt in ("float16", "bfloat16")
    ]
    return write_task(work / "task", variants, name="bert_add_layer_norm")


def _evaluate(task: Task, candidate: str) -> TaskResult:
    return evaluate_task(task, parse_candidate(candidate), device="cpu", parameters=FAST)


def _as_from_reported(result: TaskResult) -> float:
    outcomes = [outcome_from_variant(v) for v in result.variants]
    return aggregate_score(es_curve(outcomes, b=result.parameters.b, p=result.parameters.p))


def test_correct_triton_pass(bert_task: Task) -> None:
    result = _evaluate(bert_task, f"passes:{CORRECT}")
    assert [v.dtype for v in result.variants] == ["float32", "float16", "bfloat16"]
    for v in result.variants:
        assert v.status == Status.OK, v.error
        assert v.matches == {"FuseAddLayerNorm": 1}
        assert v.comparison is not None and v.comparison.tightest_passing_t is not None
        assert v.comparison.tightest_passing_t <= -2  # close to eager at a strict level
        assert v.speedup and v.speedup > 0 and v.candidate and v.reference
        assert "interpreter" in v.timing_note and not v.timing_meaningful
        if os.path.exists("/proc/stat"):  # host CPU steal while this variant was timed
            assert v.cpu_steal is not None and 0.0 <= v.cpu_steal <= 1.0
        # every phase of a passing variant, in order, and they account for the worker's time
        assert list(v.phase_seconds) == PHASES, list(v.phase_seconds)
        assert all(t >= 0 for t in v.phase_seconds.values()) and v.worker_seconds
        assert sum(v.phase_seconds.values()) == pytest.approx(v.worker_seconds, rel=0.05)
    assert result.task_correct and result.scores.subgraph_correct_rate == 1.0
    # the machine is named: CPU model, the vector ISA Inductor targets, core count
    assert f"{os.cpu_count()} CPUs)" in result.environment.device_name
    # AS is the SPEC section 6 formula applied to the result's own variants; interpreter
    # timings mean nothing, so each correct variant counts as speedup 1.0 (docs/result-schema.md)
    assert result.scores.AS == pytest.approx(_as_from_reported(result), rel=1e-12)
    neutral = [
        v.model_copy(update={"speedup": 1.0, "timing_meaningful": True}) for v in result.variants
    ]
    assert result.scores.AS == pytest.approx(compute_scores(neutral).AS, rel=1e-12)
    assert result.scores.gmean_speedup_correct is None and result.scores.neutral_speedups == 3


def test_interpreter_timing_is_minimal_and_neutral(bert_task: Task, tmp_path: Path) -> None:
    """A pass on CPU with the default parameters: every correctness and integrity check, but
    only INTERPRETER_TIMING's calls (the defaults took > 600 s on a loaded 2-core host for an
    [8, 128, 256] variant), and a correct pass outscores an incorrect one (~0.147)."""
    one = write_task(tmp_path / "one", [bert_task.variants[0].path])
    params = default_parameters("cpu")
    result = evaluate_task(
        one, parse_candidate(f"passes:{CORRECT}"), device="cpu", parameters=params
    )
    (v,) = result.variants
    assert v.status == Status.OK and not v.timing_meaningful, v.error
    assert "timed minimally (1 warmup, 5 calls a side)" in v.timing_note
    assert result.parameters.trials == params.trials == 40  # what was asked stays recorded
    assert v.reference and v.candidate and v.reference.wall.rounds == 1
    assert len(v.reference.wall.samples_us) == 5
    assert len(v.candidate.wall.samples_us) == 4  # the hidden checked call was dropped
    assert list(v.phase_seconds) == PHASES
    assert not [f for f in v.integrity if f.fatal]
    assert result.scores.AS > 0.5 > 0.147 and result.scores.neutral_speedups == 1


def test_numerically_wrong_pass(bert_task: Task) -> None:
    result = _evaluate(bert_task, f"passes:{PASSES / 'e2e_wrong'}")
    for v in result.variants:
        assert v.status == Status.INCORRECT
        assert v.error_class == ErrorClass.ACCURACY
        assert v.matches == {"WrongAddLayerNorm": 1}
        assert v.comparison is not None and v.comparison.max_abs_diff > 1
        # wrong values; "wait" where another process's timing held the device's lock
        phases = [p for p in v.phase_seconds if p != "wait"]
        assert phases == ["setup", "build", "first_call", "failed"]
    # accuracy failures are forgiven from t = 1 on: the SPEC anchor of ~0.147
    assert result.scores.AS == pytest.approx(0.147, abs=5e-4)
    assert not result.task_correct


def test_pass_that_never_matches(bert_task: Task) -> None:
    result = _evaluate(bert_task, f"passes:{PASSES / 'no_match'}")
    for v in result.variants:
        assert v.status == Status.NO_MATCH
        assert v.error_class == ErrorClass.COMPILE
        assert "FuseGelu" in (v.error or "") and "gelu" in (v.error or "")
    assert result.scores.AS == pytest.approx(0.1 ** (5.69428 / 5.957424), rel=1e-6)
    assert result.scores.ES[-5] == pytest.approx(0.1)


def test_pass_that_crashes(bert_task: Task) -> None:
    result = _evaluate(bert_task, f"passes:{PASSES / 'e2e_crash'}")
    for v in result.variants:
        assert v.status == Status.RUNTIME_ERROR
        assert v.error_class == ErrorClass.RUNTIME
        assert "IndexError" in (v.error or "") and "CrashAddLayerNorm.py" in (v.error or "")
    assert result.scores.AS == pytest.approx(0.1 ** (5.69428 / 5.957424), rel=1e-6)


def test_cli_eval_writes_documented_json(bert_task: Task, tmp_path: Path) -> None:
    one = write_task(tmp_path / "one", [bert_task.variants[0].path])
    out = tmp_path / "result.json"
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "passnet.cli", "eval", str(one.path), "--compiler", "eager",
         "--warmup", "1", "--trials", "3", "--rounds", "1", "--json", str(out)],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "AS =" in proc.stdout
    data = json.loads(out.read_text())
    assert data["schema_version"] == 1
    assert set(data["scores"]) >= {"AS", "ES", "S", "fast_p", "subgraph_correct_rate"}
    assert data["candidate"]["kind"] == "eager"
    assert data["environment"]["torch"] and data["parameters"]["b"] == 0.1
    v = data["variants"][0]
    for key in ("graph", "dtype", "status", "error_class", "matches", "speedup", "comparison"):
        assert key in v
    assert v["status"] == "ok" and v["reference"]["wall"]["median_us"] > 0


def test_cli_errors_are_one_paragraph(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "passnet.cli", "eval", str(tmp_path), "--compiler", "nvcc"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "error:" in proc.stderr


def test_single_graph_folder_is_a_task(bert_task: Task) -> None:
    task = load_task(bert_task.variants[0].path)
    assert len(task.variants) == 1
