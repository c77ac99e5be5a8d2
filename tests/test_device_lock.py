"""The per-device timing lock: one timed phase at a time per device, across processes.

Workers prepare in parallel and take turns only to time (passnet.evaluation.device_lock).
The end-to-end test holds the CPU's lock in this process and watches a real worker block on
it in the kernel's lock table (/proc/locks), so it does not depend on how fast the worker is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from passnet.core.results import Parameters, Status
from passnet.dataset.task import load_task
from passnet.evaluation.candidates import parse_candidate
from passnet.evaluation.device_lock import DeviceLock, device_key
from passnet.evaluation.devices import ExecutorError
from passnet.evaluation.evaluator import evaluate_task, evaluate_variant
from passnet.runner.pool import LocalPool

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "examples" / "tasks" / "bert_add_layer_norm"
FAST = Parameters(warmup=1, trials=3, rounds=1, max_reruns=0, timeout_s=300)
CPU = torch.device("cpu")


def _blocked_on(path: Path) -> bool:
    """Whether some process waits for the flock on ``path`` (a '->' line in /proc/locks)."""
    inode = f":{os.stat(path).st_ino} "
    with open("/proc/locks") as f:
        return any("->" in line and inode in line + " " for line in f)


def test_cpu_key_names_the_host_not_the_process() -> None:
    assert device_key(CPU) == "cpu"


def test_second_holder_waits_until_release(tmp_path: Path) -> None:
    first, second = DeviceLock(tmp_path, CPU), DeviceLock(tmp_path, CPU)
    assert first.path == second.path
    first.acquire()
    waited: list[float] = []
    t = threading.Thread(target=lambda: waited.append(second.acquire()))
    t.start()
    time.sleep(0.3)
    assert not waited, "the second lock was granted while the first was held"
    first.release()
    t.join(timeout=10)
    assert waited and waited[0] >= 0.25
    second.close()
    first.close()


def test_lock_of_a_killed_holder_is_released(tmp_path: Path) -> None:
    code = (
        "import sys, time, torch\n"
        "from passnet.evaluation.device_lock import DeviceLock\n"
        f"DeviceLock({str(tmp_path)!r}, torch.device('cpu')).acquire()\n"
        "print('held', flush=True)\n"
        "time.sleep(600)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        lock = DeviceLock(tmp_path, CPU)
        t = threading.Thread(target=lock.acquire, daemon=True)
        t.start()
        t.join(timeout=0.3)
        assert t.is_alive(), "acquired while another process held the lock"
        holder.kill()
        t.join(timeout=10)
        assert not t.is_alive() and lock.held
        lock.close()
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux /proc/locks")
def test_worker_times_only_while_holding_the_device_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PASSNET_LOCK_DIR", str(tmp_path))
    variant = load_task(TASK).variants[0]
    held = DeviceLock(tmp_path, CPU)
    held.acquire()
    out: list = []
    t = threading.Thread(
        target=lambda: out.append(
            evaluate_variant(variant, parse_candidate("eager"), device="cpu", parameters=FAST)
        )
    )
    t.start()
    deadline = time.monotonic() + 240
    while not _blocked_on(held.path):
        assert t.is_alive(), f"the worker finished without waiting: {out}"
        assert time.monotonic() < deadline, "the worker never asked for the timing lock"
        time.sleep(0.05)
    time.sleep(0.5)
    held.release()
    t.join(timeout=240)
    result = out[0]
    assert result.status is Status.OK, result.error
    assert result.phase_seconds["wait"] >= 0.4
    assert result.phase_seconds["correctness"] > 0 and result.phase_seconds["timing"] > 0
    held.close()


def test_prepare_ahead_keeps_the_task_order(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("PASSNET_LOCK_DIR", str(tmp_path))
    task = load_task(TASK)
    seen: list[str] = []
    result = evaluate_task(
        task,
        parse_candidate("eager"),
        device="cpu",
        parameters=FAST,
        prepare_ahead=2,
        on_variant=lambda v, _r: seen.append(v.graph),
    )
    names = [v.graph for v in task.variants]
    assert seen == names and [v.graph for v in result.variants] == names
    assert all(v.status is Status.OK for v in result.variants)
    assert all("wait" in v.phase_seconds for v in result.variants)


def test_pool_runs_prepare_ahead_workers_per_slot() -> None:
    assert LocalPool("cpu", prepare_ahead=3).slots == ["cpu"] * 3
    assert LocalPool("cpu", jobs=2, prepare_ahead=2).slots == ["cpu"] * 4
    with pytest.raises(ExecutorError, match="prepare-ahead"):
        LocalPool("cpu", prepare_ahead=0)
    with pytest.raises(ValueError, match="prepare_ahead"):
        evaluate_task(TASK, parse_candidate("eager"), prepare_ahead=0)
