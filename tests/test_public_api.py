"""The small public API of ``passnet`` (load a sample, a task, a pass; evaluate; score)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

import passnet
from passnet.core.results import Status

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "examples" / "tasks" / "bert_add_layer_norm"
PASS = ROOT / "examples" / "passes" / "add_layer_norm"


def test_import_is_cheap() -> None:
    code = "import sys, passnet; print(sorted(m for m in ('torch', 'triton') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_load_and_evaluate_and_score() -> None:
    task = passnet.load_task(TASK)
    assert len(task.variants) == 6
    sample = passnet.load_sample(task.variants[0].path)
    assert sample.path == task.variants[0].path
    assert [r.name for r in passnet.load_pass(PASS).rules] == ["FuseAddLayerNorm"]
    result = passnet.evaluate(task, "eager", warmup=1, trials=4, rounds=2, max_reruns=0)
    assert all(v.status is Status.OK for v in result.variants)
    again = passnet.score(result.variants, b=result.parameters.b, p=result.parameters.p)
    assert again.AS == pytest.approx(result.scores.AS)


def test_bad_candidate_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown candidate"):
        passnet.evaluate(TASK, "nvcc")


def test_a_relative_pass_folder_is_found_from_the_callers_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Workers run in private folders: a CandidateSpec written with a path relative to the
    caller's folder used to fail there as a policy error ('no such file')."""
    from passnet.core.results import CandidateSpec

    monkeypatch.chdir(PASS.parent)
    spec = CandidateSpec(kind="pass", pass_dir=PASS.name)
    task = passnet.load_task(TASK)
    one = dataclasses.replace(task, variants=task.variants[:1])
    result = passnet.evaluate(one, spec, warmup=1, trials=4, rounds=1, max_reruns=0)
    assert all(v.status is Status.OK for v in result.variants), result.variants[0].error
    from passnet.core.results import Parameters
    from passnet.evaluation.evaluator import evaluate_variant  # the bench's executors' entry

    params = Parameters(warmup=1, trials=4, rounds=1, max_reruns=0)
    direct = evaluate_variant(task.variants[0], spec, parameters=params)
    assert direct.status is Status.OK, direct.error
