"""The fork server: every worker is a fresh fork of a clean zygote that never ran pass code.

Real processes throughout (``sandbox.run_worker``, the zygotes of this test process): a probe
pass reports from inside what a forked worker inherited, a segfaulting pass shows that a
worker's crash leaves its zygote serving, and a zygote killed from outside (idle, or under a
running worker) is restarted for the next variant. Dying with the driver is in
``tests/test_worker_lifetime.py``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

import pytest
from helpers.integrity import EXPLOITS, bert_variant

from passnet.core.results import CandidateSpec, Parameters
from passnet.evaluation import forkserver, isolation, sandbox, zygote
from passnet.evaluation.worker import WorkerRequest

pytestmark = pytest.mark.skipif(not forkserver.enabled(), reason="no fork server here")

QUICK = Parameters(
    warmup=1, trials=4, rounds=1, max_reruns=0, fresh_trials=0, policy=False, audit_hook=False
)  # the sandbox alone: no layer refuses the exploit first

_PROBE = '''"""Probe: reports what its forked worker inherited, then leaves state for the next one."""

import json
import os
import sys
import tempfile

import passnet.evaluation.timing as harness

here = os.path.dirname(os.path.abspath(__file__))
facts = {
    "pid": os.getpid(),
    "ppid": os.getppid(),
    "tmpdir": tempfile.gettempdir(),
    "env_tmpdir": os.environ["TMPDIR"],
    "cwd": os.getcwd(),
    "leak": getattr(harness, "_probe_leak", None),
    "pass_modules": sorted(n for n, m in list(sys.modules.items()) if n != __name__
                           and (getattr(m, "__file__", None) or "").startswith(here)),
}
harness._probe_leak = os.getpid()  # what a forked sibling must never see
raise RuntimeError("PROBE " + json.dumps(facts) + " END")
'''

_SPIN = '''"""Spin at import after telling the test (a file in the worker's private TMPDIR)."""

open("spinning", "w").close()
while True:
    pass
'''


def _pass_dir(tmp_path: Path, name: str, source: str) -> str:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "sorted_output_pass_rule_names.json").write_text(json.dumps([name]))
    (folder / f"{name}.py").write_text(source)
    (folder / "helper.py").write_text("VALUE = 1\n")
    return str(folder)


def _request(tmp_path: Path, candidate: CandidateSpec, rows: int = 12) -> WorkerRequest:
    variant = bert_variant(tmp_path / f"v{rows}", rows=rows)
    return WorkerRequest(
        graph=variant.graph,
        path=str(variant.path),
        dtype=variant.dtype,
        device="cpu",
        seed=1,
        recheck_seed=2,
        candidate=candidate.model_dump(),
        parameters=QUICK.model_dump(),
    )


def _zygote(role: str = "pass") -> int:
    return forkserver.zygote_pids()[("cpu", role)]


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def test_each_worker_is_a_fresh_fork_of_a_clean_zygote(tmp_path: Path, private_tmp: Path) -> None:
    """Two workers forked from the same zygote: each has its own pid, its own TMPDIR (cwd,
    environment, ``tempfile``), no module of the pass in ``sys.modules`` before it imports it,
    and no module-level state the previous pass set; the zygote stays single-threaded."""
    request = _request(tmp_path, CandidateSpec(kind="pass", pass_dir=_pass_dir(
        tmp_path, "Probe", _PROBE)))  # fmt: skip
    seen = []
    for _ in range(2):
        out = sandbox.run_worker(request, 120, isolate_network=False)
        match = re.search(r"PROBE (\{.*\}) END", out["error"] or "")
        assert match, out
        seen.append(json.loads(match[1]))
    first, second = seen
    pid = _zygote()
    assert first["ppid"] == second["ppid"] == pid  # both forked from the same live zygote
    assert len({first["pid"], second["pid"], pid}) == 3
    for facts in seen:
        assert Path(facts["tmpdir"]).name.startswith("passnet-worker-")
        assert facts["tmpdir"] == facts["env_tmpdir"] == facts["cwd"]
        assert facts["leak"] is None  # the first pass's module-level write did not survive
        assert facts["pass_modules"] == []  # the zygote never imported pass code
        assert not Path(facts["tmpdir"]).exists()
    assert first["tmpdir"] != second["tmpdir"]
    assert _threads(pid) == 1 and not list(private_tmp.iterdir())


def test_a_worker_crash_leaves_its_zygote_serving(tmp_path: Path) -> None:
    """A segfault in one worker is that variant's crash; the zygote forks the next."""
    crash = CandidateSpec(kind="pass", pass_dir=str(EXPLOITS / "crash_by_shape"))
    sandbox.run_worker(_request(tmp_path, crash), 120)  # the zygote exists
    pid = _zygote()
    out = sandbox.run_worker(_request(tmp_path, crash, rows=5), 120)
    assert out["status"] == "crash" and "SIGSEGV" in out["error"], out["error"]
    assert _zygote() == pid and _threads(pid) == 1
    out = sandbox.run_worker(_request(tmp_path, crash), 120)
    assert out["status"] == "ok", out["error"]
    assert _zygote() == pid


def test_a_dead_zygote_is_restarted(tmp_path: Path, private_tmp: Path) -> None:
    """A zygote killed while idle is replaced on the next request; one killed under a running
    worker takes that worker with it (a crash, retried by ``passnet bench``), and the next
    variant gets a new zygote."""
    eager = _request(tmp_path, CandidateSpec(kind="eager"))
    assert sandbox.run_worker(eager, 120)["status"] == "ok"
    old = _zygote("eager")
    os.kill(old, signal.SIGKILL)
    out = sandbox.run_worker(eager, 120)
    assert out["status"] == "ok", out["error"]
    assert _zygote("eager") != old

    spin = _request(tmp_path, CandidateSpec(kind="pass", pass_dir=_pass_dir(
        tmp_path, "Spin", _SPIN)))  # fmt: skip
    got: list[dict] = []
    runner = threading.Thread(target=lambda: got.append(sandbox.run_worker(spin, 120)))
    runner.start()
    end = time.monotonic() + 90
    while not list(private_tmp.glob("passnet-worker-*/spinning")) and time.monotonic() < end:
        time.sleep(0.1)
    old = _zygote()
    os.kill(old, signal.SIGKILL)
    runner.join(30)
    (out,) = got
    assert out["status"] == "crash" and "zygote died" in out["error"], out["error"]
    assert not list(private_tmp.iterdir())
    probe = _request(tmp_path, CandidateSpec(kind="pass", pass_dir=_pass_dir(
        tmp_path, "Probe", _PROBE)))  # fmt: skip
    out = sandbox.run_worker(probe, 120)
    assert "PROBE" in out["error"] and _zygote() != old


def test_preloaded_paths_under_the_zygote_tmpdir_follow_each_worker() -> None:
    """Inductor derives its precompiled-header folder from TMPDIR at import: the zygote finds
    such module attributes and environment variables, and each worker re-points them to its
    own TMPDIR (where baseline workers have the link to the shared compile cache)."""
    base = "/tmp/passnet-zygote-abc"
    module = types.ModuleType("passnet_test_fake_inductor")
    module.HEADERS = base + "/torchinductor_me/precompiled_headers"  # type: ignore[attr-defined]
    module.OTHER = "/elsewhere"  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    os.environ["PASSNET_TEST_CACHE"] = base + "/cache"
    try:
        attrs, env = zygote._tmp_references(base)
    finally:
        del sys.modules[module.__name__]
        del os.environ["PASSNET_TEST_CACHE"]
    assert (module.__name__, "HEADERS") in attrs and (module.__name__, "OTHER") not in attrs
    assert env == ["PASSNET_TEST_CACHE"]


def test_a_worker_discarded_at_once_is_killed(tmp_path: Path) -> None:
    """The zygote answers only once the child leads its own process group, so a worker
    killed the moment it is forked (``discard``) is found by ``killpg`` (it hung before)."""
    key = sandbox.PoolKey("cpu", "pass", None, False, frozenset(os.sched_getaffinity(0)))
    for _ in range(5):
        worker = sandbox.POOL.take(key)
        assert os.getpgid(worker.proc.pid) == worker.proc.pid
        worker.discard()
        assert worker.proc.returncode == -signal.SIGKILL


_LAUNCH_PRELOAD = """
import sys
from triton.runtime.cache import triton_key
from passnet.evaluation.worker import preload
from passnet.evaluation.zygote import _settle
preload(launch=True)
import torch
static = [m for m in sys.modules if m.startswith("torch._inductor.runtime.static_")]
gluon = "triton.experimental.gluon" in sys.modules
print(repr(_settle()), torch.cuda.is_initialized(), bool(static), triton_key.cache_info().currsize,
      gluon)
"""


def test_a_cuda_pass_zygote_warms_the_launch_path_and_stays_forkable() -> None:
    """Pass workers on CUDA find PyTorch's static launcher and Triton's Gluon imported and
    Triton's cache key computed (the fixed cost of a first launch), in an image that is still single-threaded
    with CUDA uninitialised; other kinds preload as before."""
    assert forkserver.preload_args("pass", "cuda") == ["--preload-launch"]
    assert forkserver.preload_args("pass", "cpu") == []
    assert forkserver.preload_args("inductor", "cuda") == ["--preload-inductor", "--preload-cuda"]
    assert forkserver.preload_args("inductor", "cpu") == ["--preload-inductor"]
    assert forkserver.preload_args("eager", "cuda") == []
    import subprocess

    out = subprocess.run([sys.executable, "-c", _LAUNCH_PRELOAD], capture_output=True,
                         text=True, timeout=240, check=True).stdout.split()  # fmt: skip
    assert out == ["''", "False", "True", "1", "True"]


_CUDA_PRELOAD = """
import sys, torch
def driver():
    raise RuntimeError("asked the driver")
torch.cuda.is_available = driver
from passnet.evaluation.worker import cuda_known_available, preload
with cuda_known_available():
    inside = torch.cuda.is_available()
preload(inductor=True, cuda=True)  # Inductor imported under it: never asks the driver
from passnet.evaluation.zygote import _settle
print(inside, torch.cuda.is_available is driver, "torch._inductor.compile_fx" in sys.modules,
      repr(_settle()))
"""


def test_an_inductor_zygote_for_a_gpu_tells_inductor_cuda_is_there() -> None:
    """On a GPU host Inductor's import asked ``torch.cuda.is_available()``, whose answer (NVML's
    init) started a driver thread: the Inductor zygote could not fork (H100, 2026-12-05,
    scripts/trace_cuda_init.py). Its image now imports Inductor with the answer given, and the
    real function is back afterwards."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", _CUDA_PRELOAD], capture_output=True,
                         text=True, timeout=240, check=True).stdout.split()  # fmt: skip
    assert out == ["True", "True", "True", "''"]


def test_an_evaluator_pool_prewarms_the_zygote_its_workers_fork_from(tmp_path: Path) -> None:
    """``DevicePool`` (the agent's and the RL environment's evaluator) starts its pass
    zygote when it is made; the first evaluation forks from that one (no restart, no other
    environment retiring it), so it does not wait for an interpreter and torch to load."""
    from passnet.dataset.task import load_task
    from passnet.evaluation.devices import DevicePool

    forkserver.stop_all()  # no zygote of this process is left from earlier tests
    assert ("cpu", "pass") not in forkserver.zygote_pids()
    pool = DevicePool(["cpu"], QUICK)
    assert pool.prewarmed is not None
    pool.prewarmed.join(timeout=forkserver.READY_S + 30)
    pid = _zygote()  # started before any evaluation asked for it
    task = load_task(bert_variant(tmp_path / "v", rows=12).path)
    root = Path(__file__).resolve().parents[1]
    result = pool(task, root / "examples" / "passes" / "add_layer_norm")
    assert [v.status.value for v in result.variants] == ["ok"]
    assert _zygote() == pid
    assert DevicePool(["cpu"], QUICK, prewarm=False).prewarmed is None


_THREAD_AT_INDUCTOR = '''
import sys
import threading


class _StartsAThread:
    """Stands in for the CUDA driver: a thread started while Inductor's compiler imports."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch._inductor.compile_fx":
            threading.Thread(target=threading.Event().wait, daemon=True, name="fake-cuda").start()
        return None


sys.meta_path.insert(0, _StartsAThread())
'''


def test_an_unforkable_full_preload_falls_back_to_a_light_zygote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When a kind's full preload leaves a thread behind (on the GPU: Inductor's import ran
    cuInit), its zygote refuses to serve; the kind then gets a zygote that preloads torch and
    the evaluator only, and its workers are still forked (they import the rest themselves)
    rather than each started on its own. Workers on CUDA ask NVML, not the CUDA runtime,
    whether a GPU is there, which keeps ``torch.cuda.is_available()`` from running cuInit."""
    assert isolation.worker_env("cuda", str(tmp_path))["PYTORCH_NVML_BASED_CUDA_CHECK"] == "1"
    assert "PYTORCH_NVML_BASED_CUDA_CHECK" not in isolation.worker_env("cpu", str(tmp_path))
    assert forkserver.preload_args("inductor", "cuda", light=True) == []
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_THREAD_AT_INDUCTOR)
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setattr(forkserver, "_LIGHT", set())
    monkeypatch.setattr(forkserver, "_UNAVAILABLE", set())
    forkserver.stop_all()
    light = "cannot fork safely: 2 threads.*preloading torch and the evaluator only"
    with pytest.warns(UserWarning, match=light):
        out = sandbox.run_worker(_request(tmp_path, CandidateSpec(kind="inductor")), 300)
    assert out["status"] == "ok", out["error"]
    pid = _zygote("inductor")
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        args = f.read().split(b"\0")
    assert b"passnet.evaluation.zygote" in args and b"--preload-inductor" not in args
    assert _threads(pid) == 1 and forkserver._LIGHT == {("cpu", "inductor")}
    env = isolation.worker_env("cpu", str(tmp_path), trusted=True)
    assert forkserver._zygote("cpu", "inductor", env).light  # it keeps serving the kind
    assert _zygote("inductor") == pid
    forkserver.stop_all()
