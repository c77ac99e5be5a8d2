"""The evaluator service (passnet.runner.service, ``passnet serve``) over real HTTP on 127.0.0.1:
it evaluates as ``passnet eval`` does, answers bad requests with a clear reason, and gives a
device to one task at a time."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from passnet.core.results import TaskResult, default_parameters
from passnet.runner.service import BadRequest, EvaluateRequest, EvaluatorService

ROOT = Path(__file__).resolve().parents[1]
GRAPH = ROOT / "examples" / "tasks" / "bert_add_layer_norm" / "graphs" / "float32" / "0_cut_1x12"
PASS = ROOT / "examples" / "passes" / "add_layer_norm"
FAST = ["--trials", "3", "--warmup", "1", "--rounds", "1", "--seed", "0"]
ENV = {**os.environ, "TRITON_INTERPRET": "1"}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "passnet.cli", *args], capture_output=True,
                          text=True, env=ENV, cwd=ROOT, timeout=300)  # fmt: skip


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A real ``passnet serve`` process on a port the system picks: its URL and its stderr."""
    log = tmp_path_factory.mktemp("serve") / "stderr.txt"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "passnet.cli", "serve", "--port", "0"],
                                stdout=subprocess.PIPE, stderr=err, text=True, env=ENV,
                                cwd=ROOT)  # fmt: skip
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("passnet evaluator on http://"), (line, log.read_text())
        yield line.split()[3], log
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture()
def server(served: tuple[str, Path]) -> str:
    return served[0]


def test_health(server: str) -> None:
    with urllib.request.urlopen(server + "/health", timeout=30) as r:
        health = json.loads(r.read())
    assert health["status"] == "ok" and health["devices"] == ["cpu"]


def test_eval_through_the_service_is_the_local_evaluation(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    server = served[0]
    remote = _cli("eval", str(GRAPH), "--pass-dir", str(PASS), *FAST, "--server", server,
                  "--json", str(tmp_path / "remote.json"))  # fmt: skip
    assert remote.returncode == 0, remote.stdout + remote.stderr
    trip = re.search(r"round trip ([\d.]+) s \(the evaluation ([\d.]+) s\); this command "
                     r"started ([\d.]+) s ago", " ".join(remote.stdout.split()))  # fmt: skip
    assert trip, remote.stdout  # where a one-shot call's time goes, in that order of size
    assert float(trip[1]) + 0.01 >= float(trip[2]) and float(trip[3]) >= float(trip[1])
    local = _cli("eval", str(GRAPH), "--pass-dir", str(PASS), *FAST,
                 "--json", str(tmp_path / "local.json"))  # fmt: skip
    assert local.returncode == 0, local.stdout + local.stderr
    r = TaskResult.model_validate_json((tmp_path / "remote.json").read_text())
    ours = TaskResult.model_validate_json((tmp_path / "local.json").read_text())
    assert r.candidate == ours.candidate and r.parameters == ours.parameters
    assert [(v.graph, v.status, v.matches) for v in r.variants] == [
        (v.graph, v.status, v.matches) for v in ours.variants
    ]
    assert (
        r.variants[0].comparison.tightest_passing_t
        == ours.variants[0].comparison.tightest_passing_t
    )
    assert r.task_correct and r.variants[0].candidate is not None  # it really ran and timed
    with urllib.request.urlopen(server + "/health", timeout=30) as resp:
        assert json.loads(resp.read())["evaluations"] >= 1
    assert "0_cut_1x12: passes:" in served[1].read_text()  # the service's record of it


def test_task_submit_through_the_service(server: str) -> None:
    """``passnet task submit --server``: the agent's feedback, evaluated by the service."""
    out = _cli("task", "submit", str(GRAPH), str(PASS), "--trials", "3", "--warmup", "1",
               "--server", server)  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "AS" in out.stdout and "correct" in out.stdout.lower(), out.stdout
    bad = _cli("task", "submit", str(GRAPH), str(PASS), "--server", "http://127.0.0.1:9")
    assert bad.returncode == 2 and "no evaluator at" in bad.stdout + bad.stderr


def test_bad_requests_get_their_reason(server: str) -> None:
    missing = _cli("eval", str(ROOT / "no_such_task"), "--compiler", "eager", "--server", server)
    assert missing.returncode == 2 and "no such task folder" in missing.stdout + missing.stderr
    gpu = _cli("eval", str(GRAPH), "--compiler", "eager", "--device", "cuda", "--server", server)
    assert gpu.returncode == 2 and "evaluates on cpu; asked for cuda" in gpu.stdout + gpu.stderr
    nobody = _cli("eval", str(GRAPH), "--compiler", "eager", "--server", "http://127.0.0.1:9")
    assert nobody.returncode == 2 and "no evaluator at" in nobody.stdout + nobody.stderr
    req = urllib.request.Request(server + "/evaluate", data=b'{"task": 3}', method="POST")
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(req, timeout=30)
    assert exc.value.code == 400 and "candidate" in json.loads(exc.value.read())["error"]


def test_a_device_evaluates_one_task_at_a_time() -> None:
    service = EvaluatorService(["cpu"], prewarm=False)
    first = service._acquire("cpu")
    got: list[str] = []
    waiter = threading.Thread(target=lambda: got.append(service._acquire("cpu")))
    waiter.start()
    time.sleep(0.3)
    assert got == [] and service.health()["busy"] == 1  # the second waits for the device
    with service._cond:
        service._idle[first] += 1
        service._cond.notify_all()
    waiter.join(timeout=10)
    assert got == ["cpu"]
    with pytest.raises(BadRequest, match="evaluates on cpu"):
        service._acquire("cuda:0")


def test_a_request_names_its_candidate_as_bench_does() -> None:
    request = EvaluateRequest(task=str(GRAPH), candidate=f"passes:{PASS}",
                              parameters=default_parameters("cpu"))  # fmt: skip
    with pytest.raises(BadRequest, match="not 'synth'"):
        EvaluatorService(["cpu"], prewarm=False).evaluate(
            request.model_copy(update={"candidate": "synth"})
        )
    with pytest.raises(BadRequest, match="does not exist"):
        EvaluatorService(["cpu"], prewarm=False).evaluate(
            request.model_copy(update={"candidate": "passes:/no/such/dir"})
        )
