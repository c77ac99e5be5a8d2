"""The suite runner with real workers: local pool, kill -9 and resume, baseline cache, Ray.

The suite is two tasks cut from the bundled BERT example (three 1x12 variants: fp32, fp16 in
one task, bf16 in the other); each worker process takes ~3-5 s on a 2-core CPU.
"""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from helpers.store import EXAMPLE_PASS, PARAMS, make_suite

from passnet.dataset.suite import DEFAULT_SUITE, SuiteError, load_suite, resolve_suite_path
from passnet.evaluation.devices import ExecutorError, device_slots
from passnet.reports import build_leaderboard
from passnet.runner.bench import BenchConfig, bench
from passnet.runner.pool import LocalPool
from passnet.runner.store import Store

ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = ("eager", f"passes:{EXAMPLE_PASS}")
CLI_ARGS = ["--warmup", "1", "--trials", "5", "--rounds", "2", "--no-report"]
"""Must give the same Parameters as PARAMS plus rounds=2 (kept in sync by the tests)."""
RUN_PARAMS = PARAMS.model_copy(update={"rounds": 2, "max_reruns": 2})  # CLI defaults on CPU


def comparable(board) -> dict:
    """What must match between an interrupted-and-resumed run and an uninterrupted one:
    statuses and counts, not the noisy timings."""
    keys = ("statuses", "done", "planned", "n_tasks", "n_subgraphs")
    keys += ("subgraph_correct", "task_correct", "complete")
    return {r.kind: {k: r.summary()[k] for k in keys} for r in board.rows}


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    return make_suite(tmp_path_factory.mktemp("runner"))


@pytest.fixture(scope="module")
def reference(suite, tmp_path_factory):
    """An uninterrupted run through the local pool (two concurrent CPU workers)."""
    db = tmp_path_factory.mktemp("reference") / "passnet.db"
    cfg = BenchConfig(suite=suite, candidates=CANDIDATES, parameters=RUN_PARAMS)
    with Store(db) as st:
        summary = bench(cfg, st, LocalPool("cpu", jobs=2))
        board = build_leaderboard(st, [summary.run_id])
    return db, summary, board


# ---- suites and slots (no workers) --------------------------------------------------------


def test_suite_discovery_filter_and_limit(suite):
    s = load_suite(suite)
    assert [t.name for t in s.tasks] == ["task_a", "task_b"] and s.n_variants == 3
    assert [t.name for t in load_suite(suite / "task_b").tasks] == ["task_b"]  # one task
    assert [t.name for t in load_suite(suite, filters=("*_b",)).tasks] == ["task_b"]
    assert [t.name for t in load_suite(suite, limit=1).tasks] == ["task_a"]
    with pytest.raises(SuiteError, match="no task matches"):
        load_suite(suite, filters=("zzz*",))
    with pytest.raises(SuiteError, match="no such suite"):
        load_suite(suite / "missing")
    assert resolve_suite_path(None).is_dir()  # the default suite ships with the repository
    assert resolve_suite_path(None).as_posix().endswith(DEFAULT_SUITE)
    # ids follow content: the same task in another folder has the same variant ids
    assert load_suite(suite / "task_a").tasks[0].task_id == s.tasks[0].task_id


def test_default_suite_and_dtype_filter():
    """The bundled suite is the default; --dtype keeps one dtype's variants of every task."""
    full = load_suite()
    assert len(full.tasks) == 30 and full.n_variants == 198
    f32 = load_suite(dtypes=("torch.float32",))
    assert [t.name for t in f32.tasks] == [t.name for t in full.tasks]
    assert {v.variant.dtype for t in f32.tasks for v in t.variants} == {"float32"}
    assert f32.n_variants == sum(
        v.variant.dtype == "float32" for t in full.tasks for v in t.variants
    )
    # a variant keeps its id (cached baselines are shared); the task, now smaller, does not
    assert f32.tasks[0].variants[0].variant_id in {v.variant_id for v in full.tasks[0].variants}
    assert f32.tasks[0].task_id != full.tasks[0].task_id
    assert len(load_suite(dtypes=("bfloat16",), limit=2).tasks) == 2
    with pytest.raises(SuiteError, match="dtype float64"):
        load_suite(dtypes=("float64",))


def test_device_slots():
    assert device_slots("cpu") == ["cpu"]
    assert device_slots("cpu", 3) == ["cpu"] * 3
    with pytest.raises(ExecutorError):
        device_slots("cpu", 0)
    with pytest.raises(ExecutorError, match="unknown device"):
        device_slots("tpu")
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(ExecutorError, match="no CUDA GPU"):
            device_slots("cuda")


def test_slots_pin_their_workers_to_disjoint_cpus():
    import os
    import threading

    from passnet.evaluation.cpus import pin_thread, split_cpus

    cpus = sorted(os.sched_getaffinity(0))
    assert split_cpus(1, reserve=0) is None and split_cpus(len(cpus) + 1, reserve=0) is None
    if len(cpus) < 2:
        pytest.skip("needs 2 CPUs")
    _, sets = split_cpus(2, reserve=0)
    assert sets[0] and sets[1] and not sets[0] & sets[1]
    seen = {}

    def slot() -> None:  # what a pool thread does before spawning workers
        pin_thread(sets[1])
        code = "import os; print(sorted(os.sched_getaffinity(0)))"
        seen["child"] = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True
        ).stdout.strip()

    t = threading.Thread(target=slot)
    t.start()
    t.join()
    assert seen["child"] == str(sorted(sets[1]))  # the worker inherits the slot's CPUs
    assert sorted(os.sched_getaffinity(0)) == cpus  # the driver itself is untouched


# ---- real workers -------------------------------------------------------------------------


def test_local_pool_runs_every_item(reference):
    db, summary, board = reference
    assert (summary.planned, summary.measured, summary.errors) == (6, 6, [])
    rows = comparable(board)
    assert rows["eager"]["statuses"] == {"ok": 3}
    # The pass's own status is the evaluator's business (tests/test_passes.py); here: every
    # item has exactly one result, scored over both tasks.
    assert sum(rows["pass"]["statuses"].values()) == 3 and rows["pass"]["n_tasks"] == 2
    with Store(db) as st:
        ms = st.measurements(summary.run_id)
    assert all(m["device_name"] and m["env_id"] for m in ms)
    assert all(m["worker_seconds"] > 0 for m in ms)
    assert all(m["speedup"] > 0 for m in ms if m["status"] == "ok")
    # the summary adds up every measured item's phases (each item's sum is its worker time)
    assert set(summary.phase_seconds) >= {"setup", "build"}
    assert sum(summary.phase_seconds.values()) == pytest.approx(
        sum(m["worker_seconds"] for m in ms), rel=0.05
    )
    if Path("/proc/stat").exists():  # host CPU steal, one share per item that was timed
        assert len(summary.cpu_steal) >= sum(m["status"] == "ok" for m in ms) > 0
        assert all(0.0 <= x <= 1.0 for x in summary.cpu_steal)
    # noisy timings counted over items whose timing means something (the eager items on CPU;
    # passes run in Triton's interpreter there)
    meaningful = [json.loads(m["result_json"]) for m in ms if m["status"] == "ok"]
    meaningful = [r for r in meaningful if r["timing_meaningful"] and r.get("candidate")]
    assert summary.timed == len(meaningful) > 0
    assert summary.noisy == sum(
        r["reference"]["wall"]["noisy"] or r["candidate"]["wall"]["noisy"] for r in meaningful
    )


def _rows(db: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute(
            "SELECT measurement_id, candidate_id, variant_id, result_json FROM measurements "
            "ORDER BY measurement_id"
        ).fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        conn.close()


@pytest.mark.slow
def test_kill_9_then_rerun_loses_nothing_and_measures_nothing_twice(suite, reference, tmp_path):
    db = tmp_path / "passnet.db"
    cmd = [sys.executable, "-m", "passnet.cli", "bench", str(suite), "-c", ",".join(CANDIDATES)]
    cmd += ["--store", str(db), *CLI_ARGS]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    deadline = time.monotonic() + 120
    while not (db.is_file() and _rows(db)):
        assert proc.poll() is None, "bench ended before the kill"
        assert time.monotonic() < deadline, "no result within 120 s"
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _rows(db)
    assert 1 <= len(before) < 6

    again = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{len(before)} already done" in again.stdout
    for d in Path(tempfile.gettempdir()).glob("passnet-worker-*"):  # swept by the rerun
        owner = d / ".passnet-driver"
        assert not (owner.is_file() and owner.read_text().split()[0] == str(proc.pid)), d
    assert "worker time" in again.stdout and "build" in again.stdout
    if Path("/proc/stat").exists():
        assert "host CPU steal while evaluating: mean" in again.stdout + again.stderr
    after = _rows(db)
    assert len(after) == 6
    assert len({(r[1], r[2]) for r in after}) == 6  # one measurement per work item
    assert after[: len(before)] == before  # what was measured before the kill is untouched

    with Store(db) as st:
        run_id = st.resolve_run("latest")
        sessions = st.sessions(run_id)
        board = build_leaderboard(st, [run_id])
        assert st.run(run_id)["parameters"] == RUN_PARAMS.model_dump(mode="json")
    assert [s["status"] for s in sessions] == ["killed", "complete"]
    assert sessions[0]["host"] == socket.gethostname()
    assert sessions[0]["measured"] == len(before)  # counted in the same transaction
    assert sessions[1]["skipped"] == len(before)
    assert sum(s["measured"] + s["cached"] for s in sessions) == 6  # nothing measured twice
    assert comparable(board) == comparable(reference[2])
    assert run_id == reference[1].run_id  # same command, same run id, any store


def test_new_candidate_reuses_cached_baselines(suite, reference):
    db, summary, _ = reference
    add_relu = ROOT / "tests" / "passes" / "add_relu"  # matches nothing in these graphs
    cfg = BenchConfig(
        suite=suite, candidates=("eager", f"passes:{add_relu}"), parameters=RUN_PARAMS
    )
    t0 = time.perf_counter()
    with Store(db) as st:
        second = bench(cfg, st, LocalPool("cpu", jobs=2))
        board = build_leaderboard(st, [second.run_id])
    assert second.run_id != summary.run_id
    assert (second.cached, second.measured) == (3, 3)  # eager from cache, the pass measured
    assert second.statuses == {"ok": 3, "no_match": 3}
    rows = {r.kind: r for r in board.rows}
    assert rows["pass"].statuses == {"no_match": 3}
    assert 0.1 < rows["pass"].scores["pooled_AS"] < 0.12  # b, relieved at t >= 3
    assert rows["eager"].cached == 3
    assert time.perf_counter() - t0 < 60


@pytest.mark.slow
def test_ray_executor_on_a_local_ray_instance(suite, reference, tmp_path):
    ray = pytest.importorskip("ray")
    from passnet.runner.ray_executor import RayExecutor

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        cfg = BenchConfig(suite=suite, candidates=CANDIDATES, parameters=RUN_PARAMS)
        with Store(tmp_path / "ray.db") as st:
            summary = bench(cfg, st, RayExecutor("cpu"))
            board = build_leaderboard(st, [summary.run_id])
            sessions = st.sessions(summary.run_id)
    finally:
        ray.shutdown()
    assert (summary.measured, summary.errors) == (6, [])
    assert sessions[0]["executor"] == "ray"
    assert comparable(board) == comparable(reference[2])
    assert summary.run_id == reference[1].run_id  # the executor is not part of the run


@pytest.mark.gpu
def test_local_pool_uses_every_gpu_once(suite, tmp_path):
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    gpus = [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    pool = LocalPool("cuda")  # prepares ahead: several slots a GPU, every GPU alike
    assert sorted(set(pool.slots)) == gpus
    assert pool.slots == [g for g in gpus for _ in range(pool.prepare_ahead)]
    assert LocalPool("cuda", prepare_ahead=1).slots == gpus
    with pytest.raises(ExecutorError, match="never shares a GPU"):
        LocalPool("cuda", jobs=torch.cuda.device_count() + 1)
    cfg = BenchConfig(suite=suite, candidates=CANDIDATES, device="cuda", parameters=RUN_PARAMS)
    with Store(tmp_path / "gpu.db") as st:
        summary = bench(cfg, st, pool)
        ms = st.measurements(summary.run_id)
    assert summary.statuses == {"ok": 6}
    assert all(m["device"].startswith("cuda:") for m in ms)


def test_local_pool_prepares_ahead_by_default_on_a_gpu_only(monkeypatch):
    """`passnet bench` with no --prepare-ahead: one worker per CPU slot (a second would share
    the timed cores), and on GPUs the workers `passnet eval` starts, shared among the GPUs."""
    from passnet.evaluation import evaluator
    from passnet.runner.pool import default_prepare_ahead

    assert LocalPool("cpu").slots == ["cpu"] and LocalPool("cpu").prepare_ahead == 1
    assert LocalPool("cpu", jobs=2, prepare_ahead=3).slots == ["cpu"] * 6
    for cores, devices, want in [
        (16, ["cuda:0"], 8),
        (16, ["cuda:0", "cuda:1"], 4),
        (4, ["cuda:0"], 3),
        (2, ["cuda:0", "cuda:1"], 1),
        (16, ["cpu", "cpu"], 1),
    ]:
        monkeypatch.setattr(evaluator.os, "sched_getaffinity", lambda _, n=cores: set(range(n)))
        assert default_prepare_ahead(devices) == want, (cores, devices)
    with pytest.raises(ExecutorError, match="at least 1"):
        LocalPool("cpu", prepare_ahead=0)
