"""Isolation: a pass cannot break the harness, see secrets, reach the network or fake a result.

The done-criterion of the integrity issue: one task evaluation in which one variant segfaults,
one hangs and one allocates 100 GB still reports every other variant, and the process that ran
the evaluation is unharmed. Plus what a pass sees from inside its sandbox, and the worker
enforcing the static policy on its own.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
import torch
from helpers.integrity import EXPLOITS, HAS_CUDA, bert_variant

from passnet.core.results import CandidateSpec, Parameters, Status
from passnet.dataset.task import write_task
from passnet.evaluation import compile_cache, forkserver, sandbox
from passnet.evaluation.evaluator import evaluate_task
from passnet.evaluation.isolation import default_memory_limit, is_trusted, worker_env
from passnet.evaluation.sandbox import POOL, PoolKey, run_worker
from passnet.evaluation.worker import WorkerRequest
from passnet.integrity.process_probes import child_pids

ROOT = Path(__file__).resolve().parents[1]

QUICK = Parameters(
    warmup=1, trials=4, rounds=1, max_reruns=0, fresh_trials=0, policy=False, audit_hook=False
)  # the sandbox alone: no layer refuses the exploit first


def _breaker_task(tmp: Path, rows: list[int]) -> Path:
    variants = [bert_variant(tmp / f"rows{r}", rows=r).path for r in rows]
    return write_task(tmp / "task", variants, name="breaker").path


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Workers' private TMPDIRs go here (the machine's /tmp is shared with other runs)."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def _assert_parent_unharmed(threads_before: int, kids_before: list[int], tmp_root: Path) -> None:
    kids = set(child_pids()) - set(forkserver.zygote_pids().values())  # zygotes stay, idle
    assert kids <= set(kids_before), "a worker (or a child of one) is still running"
    assert threading.active_count() <= threads_before + 1  # reader threads are gone
    assert not list(tmp_root.iterdir()), "a worker's private TMPDIR was left behind"
    x = torch.randn(64, 64)
    torch.testing.assert_close((x @ torch.eye(64)), x)  # the parent still computes


@pytest.mark.slow
def test_segfault_hang_and_100gb_do_not_stop_the_evaluation(
    tmp_path: Path, private_tmp: Path
) -> None:
    """One evaluation: rows 12 and 16 are honest, 5 segfaults, 6 hangs, 7 allocates 100 GB."""
    task = _breaker_task(tmp_path, [12, 5, 6, 7, 16])
    threads, kids = threading.active_count(), child_pids()
    seen: list[str] = []
    result = evaluate_task(
        task,
        CandidateSpec(kind="pass", pass_dir=str(EXPLOITS / "crash_by_shape")),
        parameters=QUICK.model_copy(update={"timeout_s": 10.0}),  # honest rows: ~0.3 s
        on_variant=lambda variant, v: seen.append(v.status.value),
    )
    by_rows = {int(re.search(r"rows(\d+)", v.graph)[1]): v for v in result.variants}  # type: ignore[index]
    assert set(by_rows) == {12, 5, 6, 7, 16} and len(seen) == 5
    for rows in (12, 16):
        assert by_rows[rows].status == Status.OK, by_rows[rows].error
        assert by_rows[rows].speedup and by_rows[rows].speedup > 0
    assert by_rows[5].status == Status.CRASH and "SIGSEGV" in (by_rows[5].error or "")
    assert by_rows[6].status == Status.TIMEOUT and "10 s" in (by_rows[6].error or "")
    hog = by_rows[7]
    assert hog.status in (Status.RUNTIME_ERROR, Status.CRASH), hog.error
    assert re.search(r"memory|allocat", hog.error or "", re.IGNORECASE), hog.error
    assert result.scores.subgraph_correct_rate == pytest.approx(2 / 5)
    _assert_parent_unharmed(threads, kids, private_tmp)


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_gpu_crashes_do_not_stop_the_evaluation(tmp_path: Path, private_tmp: Path) -> None:
    """On a GPU: illegal memory access (8) and 100 GB on the device (7) next to honest rows."""
    task = _breaker_task(tmp_path, [12, 8, 7, 5, 16])
    threads, kids = threading.active_count(), child_pids()
    result = evaluate_task(
        task,
        CandidateSpec(kind="pass", pass_dir=str(EXPLOITS / "crash_by_shape")),
        device="cuda",
        parameters=QUICK.model_copy(update={"timeout_s": 120.0}),
    )
    by_rows = {int(re.search(r"rows(\d+)", v.graph)[1]): v for v in result.variants}  # type: ignore[index]
    assert by_rows[12].status == Status.OK and by_rows[16].status == Status.OK
    assert by_rows[8].status in (Status.RUNTIME_ERROR, Status.CRASH), by_rows[8].error
    assert by_rows[7].status in (Status.RUNTIME_ERROR, Status.CRASH), by_rows[7].error
    assert "memory" in (by_rows[7].error or "").lower()
    assert by_rows[5].status == Status.CRASH
    assert by_rows[12].sandbox and by_rows[12].sandbox.cuda_memory_fraction == 0.5
    _assert_parent_unharmed(threads, kids, private_tmp)


def test_what_a_pass_sees_from_inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PASSNET_TEST_API_KEY", "sk-not-for-passes")
    monkeypatch.setenv("SOME_SECRET_TOKEN", "nope")
    task = write_task(tmp_path / "task", [bert_variant(tmp_path / "v").path])
    result = evaluate_task(
        task, CandidateSpec(kind="pass", pass_dir=str(EXPLOITS / "sandbox_probe")),
        parameters=QUICK,
    )  # fmt: skip
    (v,) = result.variants
    assert v.status == Status.RUNTIME_ERROR
    facts = json.loads(re.search(r"SANDBOX (\{.*\})", v.error or "")[1])  # type: ignore[index]
    assert not [k for k in facts["env"] if re.search("KEY|TOKEN|SECRET", k)], facts["env"]
    assert Path(facts["tmpdir"]).name.startswith("passnet-worker-")
    assert facts["cwd"] == facts["tmpdir"]
    # Triton compiles into this pass's own cache, never the user's ~/.triton shared by all
    probe_cache = _pass_cache_of(EXPLOITS / "sandbox_probe")
    assert probe_cache is not None and facts["triton_cache"] == str(probe_cache)
    assert "--result-fd" not in " ".join(facts["argv"])  # the channel is not advertised
    assert facts["core"] == 0 and facts["oom_score_adj"] == "1000"
    assert v.sandbox is not None
    assert v.sandbox.memory_limit_bytes == default_memory_limit("cpu")
    if v.sandbox.network_isolated:  # where the platform allows a network namespace
        assert facts["network"].startswith("blocked") and facts["interfaces"] == ["lo"]


def _pass_cache_of(folder: Path) -> Path | None:
    """The Triton cache the evaluator gives the workers of the pass in ``folder``."""
    from passnet.evaluation.evaluator import _content

    content = _content(str(folder))
    return compile_cache.pass_cache_dir(content) if content else None


def test_each_pass_gets_its_own_triton_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Keyed by the pass folder's content: two folders with the same files share compiled
    kernels, another pass (or the baselines' cache) is elsewhere; off means private."""
    monkeypatch.setenv("PASSNET_COMPILE_CACHE", str(tmp_path / "cc"))
    a, b, c = (tmp_path / n for n in "abc")
    for folder, body in ((a, "x = 1\n"), (b, "x = 1\n"), (c, "x = 2\n")):
        folder.mkdir()
        (folder / "P.py").write_text(body)
    ca, cb, cc = (_pass_cache_of(f) for f in (a, b, c))
    assert ca == cb and ca != cc
    assert ca is not None and ca.is_relative_to(tmp_path / "cc" / "pass")
    assert not ca.is_relative_to(tmp_path / "cc" / "triton")
    assert _pass_cache_of(tmp_path / "missing") is None
    monkeypatch.setenv("PASSNET_COMPILE_CACHE", "off")
    assert _pass_cache_of(a) is None
    monkeypatch.setenv("TRITON_CACHE_DIR", "/elsewhere")
    compile_cache.use_pass_cache("", str(tmp_path / "private"))
    assert os.environ["TRITON_CACHE_DIR"] == str(tmp_path / "private" / "triton-cache")


def test_worker_env_drops_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("HF_TOKEN", "hf-x")
    monkeypatch.setenv("PASSNET_HARMLESS", "1")
    env = worker_env("cpu", "/tmp/private")
    assert "OPENAI_API_KEY" not in env and "HF_TOKEN" not in env
    assert env["PASSNET_HARMLESS"] == "1" and env["TMPDIR"] == "/tmp/private"
    assert env["TRITON_INTERPRET"] == "1"


def test_only_baseline_workers_share_the_compile_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Eager/Inductor workers reuse one Inductor cache; a worker running a pass never sees it
    (nor a cache dir inherited from the parent), so it cannot plant what a baseline loads."""
    monkeypatch.setenv("PASSNET_COMPILE_CACHE", str(tmp_path / "cc"))
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/tmp/inherited")
    trusted = worker_env("cpu", "/tmp/private", trusted=True)
    assert trusted["TORCHINDUCTOR_CACHE_DIR"] == str(tmp_path / "cc" / "inductor")
    assert trusted["TRITON_CACHE_DIR"] == str(tmp_path / "cc" / "triton")
    untrusted = worker_env("cpu", "/tmp/private")
    assert "TORCHINDUCTOR_CACHE_DIR" not in untrusted and "TRITON_CACHE_DIR" not in untrusted
    monkeypatch.setenv("PASSNET_COMPILE_CACHE", "off")
    assert "TORCHINDUCTOR_CACHE_DIR" not in worker_env("cpu", "/tmp/private", trusted=True)
    base = dict(graph="g", path="p", dtype="float32", device="cpu", seed=1, recheck_seed=2,
                parameters={})  # fmt: skip
    assert is_trusted(WorkerRequest(candidate={"kind": "inductor"}, **base))
    assert not is_trusted(WorkerRequest(candidate={"kind": "pass", "pass_dir": "x"}, **base))


def test_worker_enforces_the_policy_itself(tmp_path: Path) -> None:
    """``run_worker`` bypasses the parent's fast policy check: the worker rejects on its own,
    before importing the pass; with ``isolate_network=False`` nothing claims isolation."""
    variant = bert_variant(tmp_path / "v")
    request = WorkerRequest(
        graph=variant.graph,
        path=str(variant.path),
        dtype=variant.dtype,
        device="cpu",
        seed=1,
        recheck_seed=2,
        candidate=CandidateSpec(kind="pass", pass_dir=str(EXPLOITS / "patch_compare")).model_dump(),
        parameters=Parameters().model_dump(),
    )
    out = run_worker(request, timeout_s=120, isolate_network=False)
    assert out["status"] == "rejected" and out["worker_seconds"] > 0
    assert out["integrity"] and all(f["phase"] == "policy" for f in out["integrity"])
    assert "monkey-patch" in out["error"]
    assert out["sandbox"]["network_isolated"] is None
    assert os.environ.get("TRITON_INTERPRET") in (None, "1")  # parent env untouched


def _eager_evaluations(tmp_path: Path, less: int) -> tuple:
    """One eager evaluation of a BERT variant per call, at a memory limit ``less`` bytes under
    the default (a worker key of its own: no spare from other tests); and that key."""
    task = tmp_path / "t"
    write_task(task, [bert_variant(tmp_path / "v").path])
    spec, params = CandidateSpec(kind="eager"), QUICK.model_copy(update={"seed": 3})
    limit = default_memory_limit("cpu") - less

    def one() -> None:
        from passnet.dataset.task import load_task
        from passnet.evaluation.evaluator import evaluate_variant

        v = load_task(task).variants[0]
        r = evaluate_variant(v, spec, device="cpu", parameters=params, memory_limit=limit)
        assert r.status == Status.OK, r.error

    return one, PoolKey("cpu", "eager", limit, True, frozenset(os.sched_getaffinity(0)))


def test_spare_workers_are_fresh_and_used_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the fork server: from a key's second use on, a spare (sandboxed, torch
    imported, no pass code run) waits; the next request goes to it, and it is never reused."""
    monkeypatch.setenv("PASSNET_FORK_SERVER", "0")
    one, key = _eager_evaluations(tmp_path, 4096)
    one()
    one()
    assert key not in POOL.spares()  # outside spare_workers(): every worker starts cold
    with sandbox.spare_workers():
        one()
        assert key not in POOL.spares()  # first use in the scope: nothing started ahead
        one()
        (spare,) = POOL.spares()[key]
        assert spare.proc.poll() is None  # waiting for a request, in its own session
        assert os.getpgid(spare.proc.pid) == spare.proc.pid
        one()
        assert spare.proc.poll() is not None  # it ran that request and exited
        (last,) = POOL.spares()[key]
        assert last.proc.pid != spare.proc.pid
        assert "--preload-inductor" not in last.proc.args  # only Inductor baselines import it
    assert not POOL.spares() and last.proc.poll() is not None  # stopped with the scope
    assert not Path(spare.tmpdir).exists() and not Path(last.tmpdir).exists()


def _gone(pid: int, wait_s: float = 10.0) -> bool:
    """Whether the process ``pid`` has exited and been reaped (by its zygote), within wait_s."""
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_warm_spares_are_forked_ahead_and_each_used_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the fork server: inside ``spare_workers(2)`` two warm spares of a kind wait after
    its first request (forked from the zygote, each in its own session, no request yet); the
    next request takes the oldest, which serves it and exits, and the stock is topped up;
    leaving the scope stops the rest. Outside a scope nothing is forked ahead."""
    monkeypatch.setenv("PASSNET_FORK_SERVER", "1")
    one, key = _eager_evaluations(tmp_path, 8192)
    one()
    assert key not in sandbox.warm_spares()
    with sandbox.spare_workers(2):
        one()
        first = sandbox.warm_spares()[key]
        assert len(first) == 2
        assert all(os.getpgid(pid) == pid for pid in first)  # alive, own session each
        one()
        after = sandbox.warm_spares()[key]
        assert _gone(first[0])  # the oldest spare served that request, then exited
        assert after[0] == first[1] and len(after) == 2 and first[0] not in after
    assert not sandbox.warm_spares() and not POOL.starting()
    assert all(_gone(pid) for pid in after)
    forkserver.stop_all()  # the zygote of this test's memory limit


@pytest.mark.parametrize("fork", ["1", "0"], ids=["forked", "own-process"])
def test_baseline_workers_share_compiler_state_and_pass_workers_do_not(tmp_path, monkeypatch,
                                                                       fork):  # fmt: skip
    """An Inductor baseline worker (its zygote, or a spare) imports Inductor ahead, and
    baseline workers find Inductor's TMPDIR folder (CPU precompiled headers) linked to the
    shared cache; eager and pass workers do not preload, and a pass worker's TMPDIR stays
    wholly private."""
    monkeypatch.setenv("PASSNET_COMPILE_CACHE", str(tmp_path / "cc"))
    monkeypatch.setenv("PASSNET_FORK_SERVER", fork)
    aff = frozenset(os.sched_getaffinity(0))
    for role, preloads, shares in (
        ("inductor", True, True),
        ("eager", False, True),
        ("pass", False, False),
    ):
        worker = POOL.take(PoolKey("cpu", role, None, False, aff))
        assert isinstance(worker.proc, forkserver.ForkedProcess) is (fork == "1")
        try:
            assert ("--preload-inductor" in worker.proc.args) is preloads
            links = [p for p in Path(worker.tmpdir).iterdir() if p.is_symlink()]
            if shares:
                assert [p.name.startswith("torchinductor_") for p in links] == [True]
                assert links[0].resolve() == (tmp_path / "cc" / "tmp").resolve()
            else:
                assert links == []
        finally:
            worker.discard()
    assert (tmp_path / "cc" / "tmp").is_dir()  # discarding a worker leaves the shared folder
    forkserver.stop_all()  # zygotes of this test's environment
    code = (
        "import sys; from passnet.evaluation.worker import preload; "
        "preload({}); print('torch._inductor.compile_fx' in sys.modules)"
    )
    for arg, expected in (("inductor=True", "True"), ("", "False")):
        out = subprocess.run([sys.executable, "-c", code.format(arg)], capture_output=True,
                             text=True, check=True, cwd=ROOT)  # fmt: skip
        assert out.stdout.strip() == expected
