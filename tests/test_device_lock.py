"""The per-device lock: one timed phase at a time per device, across processes, and no
preparation on the device while one times.

Workers prepare in parallel (the lock shared) and take turns to time (exclusive)
(passnet.evaluation.device_lock). The end-to-end tests hold the CPU's lock in this process
and watch a real worker block on it in the kernel's lock table (/proc/locks), so they do not
depend on how fast the worker is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
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


def _blocked_on(path: Path, mode: str = "") -> bool:
    """Whether some process waits for the flock on ``path`` (a '->' line in /proc/locks),
    for a ``mode`` of READ (shared) or WRITE (exclusive) when given."""
    inode = f":{os.stat(path).st_ino} "
    with open("/proc/locks") as f:
        return any("->" in line and inode in line + " " and mode in line.split() + [""]
                   for line in f)  # fmt: skip


def _granted_within(lock: DeviceLock, seconds: float, *, shared: bool = False) -> bool:
    """Ask for ``lock`` in a thread; whether it was granted within ``seconds`` (the thread
    keeps waiting otherwise and holds the lock once granted)."""
    t = threading.Thread(target=lock.acquire_shared if shared else lock.acquire, daemon=True)
    t.start()
    t.join(timeout=seconds)
    return not t.is_alive()


def _wait_for(condition: Callable[[], bool], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the lock"
        time.sleep(0.02)


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


def test_preparers_share_and_a_timer_excludes_them(tmp_path: Path) -> None:
    prep1, prep2, timer = (DeviceLock(tmp_path, CPU) for _ in range(3))
    assert _granted_within(prep1, 5, shared=True) and _granted_within(prep2, 5, shared=True)
    assert not _granted_within(timer, 0.3), "a timing started while others prepared"
    prep1.release()
    prep2.release()
    _wait_for(lambda: timer.held == "exclusive")
    assert not _granted_within(prep1, 0.3, shared=True), "preparation ran during a timing"
    timer.release()
    _wait_for(lambda: prep1.held == "shared")
    for lock in (prep1, prep2, timer):
        lock.close()


def test_a_waiting_timer_goes_before_new_preparers(tmp_path: Path) -> None:
    prep, timer, late = (DeviceLock(tmp_path, CPU) for _ in range(3))
    prep.acquire_shared()
    assert not _granted_within(timer, 0.3)  # waits for the preparer, holding the gate
    assert not _granted_within(late, 0.3, shared=True), "a new preparer overtook the timer"
    prep.release()
    _wait_for(lambda: timer.held == "exclusive")
    assert late.held is None, "the late preparer was granted before the waiting timer"
    timer.release()
    _wait_for(lambda: late.held == "shared")
    for lock in (prep, timer, late):
        lock.close()


def test_lock_is_not_reentrant(tmp_path: Path) -> None:
    lock = DeviceLock(tmp_path, CPU)
    lock.acquire_shared()
    with pytest.raises(RuntimeError, match="already held shared"):
        lock.acquire()
    lock.close()


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
@pytest.mark.parametrize(("held_as", "worker_asks"), [("exclusive", "READ"), ("shared", "WRITE")])
def test_worker_prepares_beside_preparers_and_times_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held_as: str, worker_asks: str
) -> None:
    """Lock held exclusive (another worker times): the worker's preparation waits (it asks
    for a shared hold). Held shared (another worker prepares): the worker prepares beside it
    and waits only to time (it asks for the exclusive hold)."""
    monkeypatch.setenv("PASSNET_LOCK_DIR", str(tmp_path))
    variant = load_task(TASK).variants[0]
    held = DeviceLock(tmp_path, CPU)
    held.acquire() if held_as == "exclusive" else held.acquire_shared()
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
        assert time.monotonic() < deadline, "the worker never asked for the device lock"
        time.sleep(0.05)
    assert _blocked_on(held.path, worker_asks), f"the worker did not ask {worker_asks}"
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


def test_prepare_ahead_by_default_uses_the_hosts_cores_on_a_gpu_only(monkeypatch) -> None:  # noqa: ANN001
    """No number given: one worker per variant on a GPU, up to the cores less one and 12 (each
    holds a CUDA context; a suite's pool at most 8); one on CPU, whose cores a timing shares."""
    from passnet.evaluation import evaluator

    monkeypatch.setattr(evaluator.os, "sched_getaffinity", lambda _pid: set(range(16)),
                        raising=False)  # fmt: skip
    assert evaluator.auto_prepare_ahead("cpu", 9) == 1
    assert evaluator.auto_prepare_ahead("cuda", 6) == 6
    assert evaluator.auto_prepare_ahead("cuda", 9) == 9  # a whole 9-variant task at once
    assert evaluator.auto_prepare_ahead("cuda:1", 30) == evaluator.MAX_AUTO_PREPARE_AHEAD == 12
    assert evaluator.host_workers("cuda") == evaluator.MAX_HOST_WORKERS == 8  # a suite's pool
    assert evaluator.spare_stock(["cpu", "cuda"]) == 12
    assert evaluator.host_workers("cpu") == 1
    monkeypatch.setattr(evaluator.os, "sched_getaffinity", lambda _pid: {0, 1, 2},
                        raising=False)  # fmt: skip
    assert evaluator.auto_prepare_ahead("cuda", 6) == 2
    monkeypatch.setattr(evaluator.os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    assert evaluator.auto_prepare_ahead("cuda", 6) == 1


def test_a_warm_spare_makes_its_context_under_the_shared_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spare's CUDA context (``worker.warm_device``) is preparation like any other: it is
    made inside ``shared_hold``, which waits while a timer holds the device, and the driver
    hands its lock folder to every forked worker (spares included)."""
    from passnet.evaluation import forkserver, sandbox
    from passnet.evaluation.worker import shared_hold

    timer = DeviceLock(tmp_path, CPU)
    timer.acquire()
    entered: list[float] = []

    def spare() -> None:
        with shared_hold(str(tmp_path), CPU):
            entered.append(time.monotonic())

    waiting = threading.Thread(target=spare)
    waiting.start()
    time.sleep(0.5)
    assert entered == [], "a context was made while the device was timing"
    released = time.monotonic()
    timer.release()
    waiting.join(10)
    assert entered and entered[0] >= released
    with shared_hold("", CPU):  # the lock switched off: no folder, nothing to wait for
        pass
    timer.close()

    specs: list = []

    def fork_worker(spec, env, fds):  # noqa: ANN001, ANN202 - records the spec
        specs.append(spec)
        raise forkserver.ForkServerUnavailable("recorded")

    monkeypatch.setenv("PASSNET_LOCK_DIR", str(tmp_path / "locks"))
    monkeypatch.setattr(forkserver, "available", lambda device, role: True)
    monkeypatch.setattr(forkserver, "fork_worker", fork_worker)
    pool = sandbox.WorkerPool()
    with pool.spare_workers():
        pool.restock(sandbox.PoolKey("cpu", "eager", 0, False, None))
    assert not pool.spares()
    assert specs[0].warm and specs[0].lock_dir == str(tmp_path / "locks")
