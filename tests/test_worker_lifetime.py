"""Workers die with the driver that started them, keep their own time limit, and leave no TMPDIR.

Real processes throughout: a small driver script (``_DRIVER``) calls ``sandbox.run_worker`` or
keeps idle workers, in a child process of the test; the test kills or freezes that driver and
then scans /proc for worker processes carrying a marker unique to the test (an environment
variable the workers inherit): workers, their guardians, their zygote (the fork server,
``PASSNET_FORK_SERVER=1``, the default) and what their passes started. Once, a worker spinning in a hanging pass outlived a killed
``passnet bench`` by 30 minutes, with its private TMPDIR left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from helpers.integrity import bert_variant

from passnet.core.results import CandidateSpec, Parameters
from passnet.evaluation.worker import WorkerRequest

ROOT = Path(__file__).resolve().parents[1]
MARK = "PASSNET_LIFETIME_TEST"

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")

_DRIVER = """
import json, os, signal, sys, tempfile, time
# Ctrl-C as a user's shell delivers it: a suite started in the background (nohup, `cmd &` in a
# script) runs with SIGINT ignored, which every child, this driver too, would inherit
signal.signal(signal.SIGINT, signal.default_int_handler)
tempfile.tempdir = sys.argv[1]
from passnet.evaluation import sandbox
from passnet.evaluation.worker import WorkerRequest
if sys.argv[2] == "run":
    request = WorkerRequest.model_validate_json(open(sys.argv[3]).read())
    out = sandbox.run_worker(request, float(sys.argv[4]))
    print(json.dumps(out), flush=True)
elif sys.argv[2] == "pool":  # as in passnet bench: the worker runs from a daemon thread
    import threading
    request = WorkerRequest.model_validate_json(open(sys.argv[3]).read())
    threading.Thread(target=sandbox.run_worker, args=(request, 60.0), daemon=True).start()
    while True:
        time.sleep(1)
else:  # idle workers: two taken, and a spare started ahead (a warm fork, or one of its own)
    key = sandbox.PoolKey("cpu", "eager", None, False, frozenset(os.sched_getaffinity(0)))
    with sandbox.spare_workers():
        taken = [sandbox.POOL.take(key), sandbox.POOL.take(key)]
        sandbox.POOL.restock(key)  # as run_worker does once a request is sent (forked spares)
        print("ready", flush=True)
        time.sleep(600)
"""

_HANG = '''"""Hang: starts a child process, then spins at import, after leaving a file in its
working directory (the worker's private TMPDIR) that tells the test it is spinning."""

import subprocess

subprocess.Popen(["sleep", "120"])
open("spinning", "w").close()
while True:
    pass
'''


def _marked(token: str, driver: int) -> list[int]:
    """Live processes of this test's workers: a worker, its guardian, what its pass started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == driver:
            continue
        try:
            state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            try:
                mine = f"{MARK}={token}".encode() in (entry / "environ").read_bytes()
            except PermissionError:  # a zygote is not dumpable: only root reads its environ
                mine = int(ppid) == driver
        except OSError:
            continue
        if mine and state != "Z":
            found.append(int(entry.name))
    return found


def _worker_dirs(tmp_root: Path) -> list[Path]:
    return sorted(tmp_root.glob("passnet-worker-*"))


def _wait(condition, limit_s: float) -> bool:  # noqa: ANN001
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


class _Driver:
    """The driver process of one test, and the cleanup of whatever it and its workers left."""

    def __init__(self, tmp_path: Path, args: list[str], **env: str) -> None:
        self.forked = env.get("PASSNET_FORK_SERVER", "1") == "1"
        self.token = uuid.uuid4().hex
        self.tmp_root = tmp_path / "tmp"
        self.tmp_root.mkdir()
        script = tmp_path / "driver.py"
        script.write_text(_DRIVER)
        self.proc = subprocess.Popen(
            [sys.executable, str(script), str(self.tmp_root), *args],
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env={
                **os.environ,
                MARK: self.token,
                "PASSNET_SPARE_WORKERS": "1",
                "PASSNET_FORK_SERVER": "1",
                **env,
            },  # fmt: skip
        )

    def workers(self) -> list[int]:
        return _marked(self.token, self.proc.pid)

    def named(self, name: str) -> list[int]:
        """Its processes named ``name`` (``passnet-worker``, ``-guard``, ``-zygote``)."""
        return [p for p in self.workers() if _comm(p) == name]

    def kill(self, sig: int = signal.SIGKILL) -> None:
        os.kill(self.proc.pid, sig)
        if sig == signal.SIGKILL:
            self.proc.wait()

    def close(self) -> None:
        """Kill the driver and, by pid, every marked process left (they are this test's)."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.kill()
            self.proc.wait()
        for pid in self.workers():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _hang_request(tmp_path: Path) -> Path:
    """A request whose pass spins forever (policy off: only the process limits can stop it)."""
    folder = tmp_path / "hang"
    folder.mkdir()
    (folder / "sorted_output_pass_rule_names.json").write_text('["Hang"]')
    (folder / "Hang.py").write_text(_HANG)
    variant = bert_variant(tmp_path / "v")
    request = WorkerRequest(
        graph=variant.graph,
        path=str(variant.path),
        dtype=variant.dtype,
        device="cpu",
        seed=1,
        recheck_seed=2,
        candidate=CandidateSpec(kind="pass", pass_dir=str(folder)).model_dump(),
        parameters=Parameters(policy=False, runtime_checks=False, audit_hook=False).model_dump(),
    )
    path = tmp_path / "request.json"
    path.write_text(request.model_dump_json())
    return path


def _spinning(driver: _Driver) -> bool:
    """The worker is inside the hanging pass."""
    assert _wait(lambda: any(d.joinpath("spinning").exists() for d in _worker_dirs(
        driver.tmp_root)), 90), "the worker never reached the hanging pass"  # fmt: skip
    return True


@pytest.mark.parametrize(
    "pdeathsig, guardian, fork",
    [("1", True, "1"), ("0", True, "1"), ("1", False, "1"), ("1", True, "0")],
    ids=["both", "guardian-alone", "pdeathsig-alone", "both-no-fork-server"],
)
def test_a_hanging_worker_dies_with_its_killed_driver(
    tmp_path: Path, pdeathsig: str, guardian: bool, fork: str
) -> None:
    """``kill -9`` of the driver while its worker spins: the worker, its zygote, the process
    its pass started and its TMPDIR are gone within seconds, long before its 60 s limit. Each
    defence suffices for the worker: the guardian where no parent-death signal exists
    (``PASSNET_WORKER_PDEATHSIG=0``: the zygote ends on the EOF of its control socket), the
    signal with the guardian killed first (the TMPDIR and the pass's child are then the
    guardian's loss)."""
    request = _hang_request(tmp_path)
    driver = _Driver(tmp_path, ["run", str(request), "60"], PASSNET_WORKER_PDEATHSIG=pdeathsig,
                     PASSNET_FORK_SERVER=fork)  # fmt: skip
    try:
        _spinning(driver)
        worker = _child_of(driver)
        assert len(driver.named("passnet-zygote")) == (1 if driver.forked else 0)
        if not guardian:
            (guard,) = driver.named("passnet-guard")
            os.kill(guard, signal.SIGKILL)
            assert _wait(lambda: guard not in driver.workers(), 2)
        driver.kill()
        assert _wait(lambda: worker not in driver.workers(), 5), "the worker still runs"
        assert _wait(lambda: not driver.named("passnet-zygote"), 5), "the zygote still runs"
        if guardian:
            assert _wait(lambda: not driver.workers(), 5), f"still running: {driver.workers()}"
            assert _wait(lambda: not _worker_dirs(driver.tmp_root), 2), _worker_dirs(
                driver.tmp_root
            )
    finally:
        driver.close()


def test_ctrl_c_of_a_driver_running_workers_from_pool_threads(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) of a driver whose worker runs from a daemon thread, as in
    ``passnet bench``: the driver exits at once and the worker and its TMPDIR go with it."""
    request = _hang_request(tmp_path)
    driver = _Driver(tmp_path, ["pool", str(request)])
    try:
        _spinning(driver)
        driver.kill(signal.SIGINT)
        assert driver.proc.wait(timeout=10) != 0  # KeyboardInterrupt in the main thread
        assert _wait(lambda: not driver.workers(), 5), f"still running: {driver.workers()}"
        assert _wait(lambda: not _worker_dirs(driver.tmp_root), 2), _worker_dirs(driver.tmp_root)
    finally:
        driver.close()


@pytest.mark.parametrize("fork", ["1", "0"], ids=["forked", "spares"])
@pytest.mark.parametrize("when", ["idle", "starting"])
def test_idle_workers_and_spares_die_with_their_killed_driver(
    tmp_path: Path, when: str, fork: str
) -> None:
    """Workers waiting for a request (two taken and a spare started ahead: forked from their
    zygote, the spare warm, or started on their own), or still starting (the driver killed as soon as
    they are forked), die with the driver, as does their zygote, and remove their TMPDIRs; the
    shared Inductor folder linked into them stays intact."""
    shared = tmp_path / "cc"
    (shared / "tmp").mkdir(parents=True)
    (shared / "tmp" / "headers.gch").write_text("precompiled")
    driver = _Driver(tmp_path, ["idle"], PASSNET_COMPILE_CACHE=str(shared),
                     PASSNET_FORK_SERVER=fork)  # fmt: skip
    try:
        assert driver.proc.stdout is not None and driver.proc.stdout.readline() == b"ready\n"
        if when == "idle":
            links = [p for d in _worker_dirs(driver.tmp_root) for p in d.iterdir()
                     if p.is_symlink()]  # fmt: skip
            assert len(links) == 3  # all share Inductor's folder
            _wait(lambda: _idle(driver.workers()), 60)  # past torch's import, reading stdin
            assert len(driver.named("passnet-zygote")) == (1 if driver.forked else 0)
        driver.kill()
        assert _wait(lambda: not driver.workers(), 5), f"still running: {driver.workers()}"
        assert _wait(lambda: not _worker_dirs(driver.tmp_root), 2), _worker_dirs(driver.tmp_root)
        assert (shared / "tmp" / "headers.gch").read_text() == "precompiled"
    finally:
        driver.close()


def _idle(pids: list[int]) -> bool:
    """Every process asleep with its CPU time unchanged for a second."""

    def cpu() -> list[str]:
        out = []
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out.append(fields[0] + fields[11] + "/" + fields[12])
        return out

    before = cpu()
    time.sleep(1.0)
    return bool(pids) and before == cpu() and all(s.startswith("S") for s in before)


def test_a_frozen_driver_cannot_keep_a_hanging_worker_alive(tmp_path: Path) -> None:
    """A driver that is alive but stopped (SIGSTOP) enforces nothing: the worker ends itself
    shortly after its 8 s limit; resumed, the driver reports a timeout and removes the TMPDIR.
    The worker's RLIMIT_CPU derives from the same limit."""
    request = _hang_request(tmp_path)
    driver = _Driver(tmp_path, ["run", str(request), "8"])
    try:
        _spinning(driver)
        worker = _child_of(driver)
        limits = Path(f"/proc/{worker}/limits").read_text()
        cpu = [line.split()[3] for line in limits.splitlines() if line.startswith("Max cpu time")]
        cores = len(os.sched_getaffinity(worker))
        assert cpu and 10 * cores < int(cpu[0]) < 10 * cores + 30, cpu  # (8 s + 2 s) x cores
        driver.kill(signal.SIGSTOP)
        stopped = time.monotonic()
        assert worker in driver.workers(), "the worker ended before the driver was stopped"
        assert _wait(lambda: worker not in driver.workers(), 15), "it outlived its limit"
        assert time.monotonic() - stopped < 14
        driver.kill(signal.SIGCONT)
        out, _ = driver.proc.communicate(timeout=30)
        result = json.loads(out)
        assert result["status"] == "timeout", result["error"]
        assert not _worker_dirs(driver.tmp_root)
        assert _wait(lambda: not driver.workers(), 5), f"still running: {driver.workers()}"
    finally:
        driver.close()


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _child_of(driver: _Driver) -> int:
    """The worker the driver started (forked by its zygote, or its direct child)."""
    workers = driver.named("passnet-worker")
    assert len(workers) == 1, f"no single worker of driver {driver.proc.pid}: {workers}"
    ppid = int(Path(f"/proc/{workers[0]}/stat").read_text().rsplit(")", 1)[1].split()[1])
    assert _comm(ppid) == "passnet-zygote" if driver.forked else ppid == driver.proc.pid
    return workers[0]


def test_a_worker_killed_from_outside_is_not_called_out_of_memory(tmp_path: Path) -> None:
    """SIGKILL from outside (not our timeout, no memory pressure) is reported as such."""
    request = _hang_request(tmp_path)
    driver = _Driver(tmp_path, ["run", str(request), "60"])
    try:
        _spinning(driver)
        os.kill(_child_of(driver), signal.SIGKILL)
        out, _ = driver.proc.communicate(timeout=30)
        result = json.loads(out)
        assert result["status"] == "crash", result
        error = result["error"]
        assert "SIGKILL" in error and "outside" in error, error
        assert "out of memory" not in error, error
        assert _wait(lambda: not driver.workers(), 5) and not _worker_dirs(driver.tmp_root)
    finally:
        driver.close()


@pytest.mark.parametrize("fork", ["1", "0"], ids=["forked", "own-process"])
def test_workers_outlive_the_thread_that_asked_and_keep_its_cpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fork: str
) -> None:
    """The parent-death signal follows the thread that forked a worker (or its zygote), and
    pool threads end while workers they started are still in use: a worker asked for by a
    short-lived thread pinned to one CPU lives on after that thread ends, pinned to that CPU."""
    import threading

    from passnet.evaluation import sandbox

    monkeypatch.setenv("PASSNET_FORK_SERVER", fork)

    cpus = sorted(os.sched_getaffinity(0))
    pin = frozenset(cpus[-1:])
    got: list = []

    def pool_thread() -> None:
        os.sched_setaffinity(0, pin)
        got.append(sandbox.POOL.take(sandbox.PoolKey("cpu", "pass", None, False, pin)))

    t = threading.Thread(target=pool_thread)
    t.start()
    t.join()
    (worker,) = got
    try:
        time.sleep(1.0)
        assert worker.proc.poll() is None, "the worker died with the thread that asked for it"
        deadline = time.monotonic() + 20  # a worker of its own pins itself once Python is up
        while os.sched_getaffinity(worker.proc.pid) != pin and time.monotonic() < deadline:
            time.sleep(0.1)
        assert os.sched_getaffinity(worker.proc.pid) == pin
        assert sorted(os.sched_getaffinity(0)) == cpus
    finally:
        worker.discard()
    assert not Path(worker.tmpdir).exists()


def test_folders_of_dead_drivers_are_swept_and_no_others(tmp_path: Path) -> None:
    """A driver killed outright leaves its workers' folders behind (their guardian threads die
    with them); the next driver's first worker removes those, never a live driver's, one that
    names no driver, a link, or another name."""
    from passnet.evaluation import lifetime

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    parent = os.getppid()

    def folder(name: str, owner: str | None) -> Path:
        d = tmp_path / f"passnet-worker-{name}"
        d.mkdir()
        (d / "worker.log").write_text("")
        if owner is not None:
            (d / lifetime.DRIVER_FILE).write_text(owner)
        return d

    gone = folder("gone", f"{dead.pid} \n")
    reused = folder("reused", f"{parent} 1\n")  # the pid is alive but started at another time
    live = folder("live", f"{parent} {lifetime._start_time(parent) or ''}\n")
    mine = folder("mine", f"{os.getpid()} \n")
    unnamed = folder("unnamed", None)
    garbled = folder("garbled", "not a pid\n")
    (tmp_path / "passnet-worker-link").symlink_to(gone)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / lifetime.DRIVER_FILE).write_text(f"{dead.pid} \n")
    removed = lifetime.sweep_orphans(str(tmp_path))
    assert sorted(removed) == sorted([str(gone), str(reused)])
    assert all(d.is_dir() for d in (live, mine, unnamed, garbled, other))
    made = Path(lifetime.worker_dir())  # a real one names this process
    try:
        assert (made / lifetime.DRIVER_FILE).read_text().split()[0] == str(os.getpid())
    finally:
        shutil.rmtree(made)


def test_a_worker_forks_its_guardian_before_it_imports_torch() -> None:
    """A worker started on its own reaches its guardian and parent-death signal before any
    heavy import: a driver killed while its workers start takes them along at once, not after
    torch's import (seconds on a loaded host)."""
    code = "import sys, passnet.evaluation.worker; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
