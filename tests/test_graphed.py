"""The CUDA-graph timing regime (``--call-path cudagraph``): clear errors where it cannot run,
correct results and checked replays where it can (GPU tests run in scripts/gpu_check.sh)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from passnet.evaluation.graphed import CaptureError, GraphedCall, checked_replay

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "examples" / "tasks" / "bert_add_layer_norm"
PASS = ROOT / "examples" / "passes" / "add_layer_norm"
HAS_CUDA = torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1"
gpu = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU (and TRITON_INTERPRET unset)")


def test_capture_needs_a_cuda_device() -> None:
    with pytest.raises(CaptureError, match="needs a CUDA device"):
        GraphedCall(torch.relu, [torch.ones(3)], torch.device("cpu"))


@pytest.mark.parametrize("command", ["eval", "bench"])
def test_cli_refuses_cudagraph_without_cuda(command: str) -> None:
    args = [str(TASK), "--compiler", "eager"] if command == "eval" else [str(TASK), "-c", "eager"]
    proc = subprocess.run(
        [sys.executable, "-m", "passnet.cli", command, *args, "--call-path", "cudagraph",
         "--device", "cpu"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "needs --device cuda" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.gpu
@gpu
def test_replay_recomputes_from_the_static_inputs() -> None:
    dev = torch.device("cuda")
    x = torch.randn(64, device=dev)
    g = GraphedCall(lambda t: (torch.relu(t) * 2,), [x], dev)
    torch.testing.assert_close(g()[0], torch.relu(x) * 2)
    x.copy_(torch.randn(64, device=dev))
    torch.testing.assert_close(g()[0], torch.relu(x) * 2)
    seen: list = []
    fresh = torch.randn(64, device=dev)

    def judge(out, r_in):  # noqa: ANN001, ANN202
        seen.append(torch.allclose(out[0], torch.relu(r_in[0]) * 2))

    x.copy_(fresh)  # the harness writes a checked call's values into the static inputs
    checked_replay(g, [x], judge)
    assert seen == [True]
    torch.testing.assert_close(g.out[0], torch.relu(fresh) * 2)


_HOST_SYNC = """
import pytest, torch
from passnet.evaluation.graphed import CaptureError, GraphedCall
dev = torch.device("cuda")
with pytest.raises(CaptureError, match="cannot be captured"):
    GraphedCall(lambda t: (t * float(t.sum().item()),), [torch.ones(4, device=dev)], dev)
print("clear error")
"""


@pytest.mark.gpu
@gpu
def test_a_host_sync_is_a_clear_capture_error() -> None:
    # In its own process: a capture that fails leaves PyTorch's CUDA generator marked as
    # capturing, so any later random draw in that process fails ("Offset increment outside
    # graph capture"); it broke test_launch's randn when both ran in one pytest process.
    proc = subprocess.run([sys.executable, "-c", _HOST_SYNC], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)  # fmt: skip
    assert proc.returncode == 0 and "clear error" in proc.stdout, proc.stderr[-2000:]


@pytest.mark.gpu
@gpu
def test_bundled_pass_in_the_cudagraph_regime() -> None:
    from passnet.core.results import Parameters, Status
    from passnet.evaluation.candidates import parse_candidate
    from passnet.evaluation.evaluator import evaluate_task

    params = Parameters(warmup=5, trials=40, rounds=2, max_reruns=0, call_path="cudagraph")
    result = evaluate_task(
        TASK, parse_candidate(f"passes:{PASS}"), device="cuda", parameters=params,
        with_inductor=True,
    )  # fmt: skip
    for v in result.variants:
        assert v.status == Status.OK, v.error
        assert "CUDA-graph regime" in v.timing_note and v.speedup and v.inductor_median_us
        assert not [f for f in v.integrity if f.fatal]
