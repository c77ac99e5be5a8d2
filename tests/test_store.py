"""The results store: schema, one row per work item, resume, baseline cache, sessions, export.

These tests use the scripted executor (no worker processes) so they are fast and exact;
tests/test_runner.py runs the same machinery with real workers.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys

import pytest
from helpers.store import (  # noqa: E402
    EXAMPLE_PASS,
    PARAMS,
    config,
    make_suite,
    result,
    scripted_speedups,
    timed,
)

from passnet.core.results import (
    Environment,
    Status,
    VariantResult,
)
from passnet.runner.bench import bench, context_key
from passnet.runner.export import export_json, export_parquet
from passnet.runner.scripted import SCRIPTED_ENVIRONMENT, ScriptedExecutor
from passnet.runner.store import Measurement, Store, StoreError
from passnet.runner.suite import candidate_id


def test_schema_is_wal_and_versioned(tmp_path):
    with Store(tmp_path / "s.db") as st:
        assert st.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in st.conn.execute("SELECT name FROM sqlite_master")}
    for t in ("runs", "candidates", "tasks", "variants", "measurements", "environments"):
        assert t in tables
    assert {"parameters", "sessions", "run_items"} <= tables
    with Store(tmp_path / "s.db") as st:  # reopening an existing store is fine
        assert st.runs() == []


def test_resume_measures_only_missing_items(tmp_path):
    suite = make_suite(tmp_path)
    broken = {"graphs/float16/1_cut_1x12_float16"}

    def flaky(item):
        if item.variant.variant.graph in broken and item.candidate.spec.kind == "pass":
            raise OSError("disk full")  # a harness fault: not stored, item stays pending
        return scripted_speedups(item)

    cfg = config(suite, "eager", f"passes:{EXAMPLE_PASS}")
    with Store(tmp_path / "s.db") as st:
        first = bench(cfg, st, ScriptedExecutor(flaky))
        assert (first.planned, first.measured, len(first.errors)) == (6, 5, 1)
        assert not first.complete
        again = ScriptedExecutor(scripted_speedups)
        second = bench(cfg, st, again)
        assert second.run_id == first.run_id
        assert (second.skipped, second.measured, second.duplicates) == (5, 1, 0)
        assert [(i.candidate.spec.kind, i.variant.variant.graph) for i in again.calls] == [
            ("pass", "graphs/float16/1_cut_1x12_float16")
        ]
        rows = st.measurements(first.run_id)
        assert len(rows) == 6
        assert len({(r["candidate_id"], r["variant_id"]) for r in rows}) == 6
        sessions = st.sessions(first.run_id)
        assert [s["status"] for s in sessions] == ["partial", "complete"]
        assert sum(s["measured"] + s["cached"] for s in sessions) == 6
        assert st.run(first.run_id)["status"] == "complete"


def test_baselines_are_served_from_cache_across_runs(tmp_path):
    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        base = bench(config(suite, "eager", "inductor"), st, ScriptedExecutor(scripted_speedups))
        assert base.measured == 6
        ex = ScriptedExecutor(scripted_speedups)
        new = bench(config(suite, "eager", "inductor", f"passes:{EXAMPLE_PASS}"), st, ex)
        assert new.run_id != base.run_id
        assert (new.cached, new.measured) == (6, 3)
        assert {i.candidate.spec.kind for i in ex.calls} == {"pass"}
        cached = [r for r in st.measurements(new.run_id) if r["source"] == "cache"]
        assert len(cached) == 6 and all(r["cached_from"] for r in cached)
        # --no-cache re-measures baselines (a distinct run name keeps both)
        ex2 = ScriptedExecutor(scripted_speedups)
        fresh = bench(config(suite, "eager", run="fresh", use_cache=False), st, ex2)
        assert (fresh.cached, fresh.measured) == (0, 3)


def test_cache_never_serves_transient_failures(tmp_path):
    suite = make_suite(tmp_path)

    def timeouts(item):
        return result(item, Status.TIMEOUT, None)

    with Store(tmp_path / "s.db") as st:
        bench(config(suite, "eager", run="a"), st, ScriptedExecutor(timeouts))
        ex = ScriptedExecutor(lambda item: result(item, Status.COMPILE_ERROR, None))
        b = bench(config(suite, "eager", run="b"), st, ex)
        assert (b.cached, b.measured) == (0, 3)  # timeouts were re-measured
        c = bench(config(suite, "eager", run="c"), st, ScriptedExecutor(timeouts))
        assert (c.cached, c.measured) == (3, 0)  # a compile error is deterministic: cached


def test_duplicate_measurement_is_refused_and_counted(tmp_path):
    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        s = bench(config(suite, "eager"), st, ScriptedExecutor(scripted_speedups))
        row = st.measurements(s.run_id)[0]
        session = st.start_session(s.run_id, "test")
        vr = VariantResult.model_validate_json(row["result_json"])
        m = Measurement(
            s.run_id, row["candidate_id"], row["variant_id"], row["task_id"], "k", vr, None, None
        )
        assert st.add(m, session) is False
        assert st.sessions(s.run_id)[-1]["duplicates"] == 1
        assert len(st.measurements(s.run_id)) == 3


def test_run_config_mismatch_and_names(tmp_path):
    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        bench(config(suite, "eager", run="mine"), st, ScriptedExecutor(scripted_speedups))
        with pytest.raises(StoreError, match="different configuration"):
            bench(config(suite, "inductor", run="mine"), st, ScriptedExecutor(scripted_speedups))
        other = bench(config(suite, "inductor"), st, ScriptedExecutor(scripted_speedups))
        assert st.resolve_run("mine") == "mine"
        assert st.resolve_run("latest") == other.run_id
        assert st.resolve_run(other.run_id[:8]) == other.run_id
        with pytest.raises(StoreError, match="known runs"):
            st.resolve_run("nope")


def test_session_refuses_a_live_driver_and_marks_dead_ones_killed(tmp_path):
    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        s = bench(config(suite, "eager"), st, ScriptedExecutor(scripted_speedups))
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            import socket

            with st.tx() as c:
                c.execute(
                    "INSERT INTO sessions (run_id, started, host, pid, executor, status) "
                    "VALUES (?, 0, ?, ?, 'local', 'running')",
                    (s.run_id, socket.gethostname(), sleeper.pid),
                )
            with pytest.raises(StoreError, match="being measured by process"):
                st.start_session(s.run_id, "local")
        finally:
            sleeper.kill()
            sleeper.wait()
        st.start_session(s.run_id, "local")
        assert [x["status"] for x in st.sessions(s.run_id)][-2:] == ["killed", "running"]


def test_ids_follow_content_not_paths(tmp_path):
    from passnet.evaluation.candidates import parse_candidate

    copy = tmp_path / "pass"
    shutil.copytree(EXAMPLE_PASS, copy)
    a = candidate_id(parse_candidate(f"passes:{EXAMPLE_PASS}"))[0]
    assert candidate_id(parse_candidate(f"passes:{copy}"))[0] == a  # moved: same candidate
    (copy / "FuseAddLayerNorm.py").write_text(
        (copy / "FuseAddLayerNorm.py").read_text() + "\n# edited\n"
    )
    assert candidate_id(parse_candidate(f"passes:{copy}"))[0] != a  # edited: new candidate

    env = SCRIPTED_ENVIRONMENT
    key = context_key("v", env, PARAMS)
    assert context_key("v", env, PARAMS.model_copy(update={"seed": 3, "b": 0.001})) == key
    assert context_key("v", env, PARAMS.model_copy(update={"trials": 6})) != key
    assert context_key("v", env, PARAMS.model_copy(update={"cpu_threads": 0})) != key
    other = Environment(**{**env.model_dump(), "device_name": "NVIDIA H200"})
    assert context_key("v", other, PARAMS) != key


def test_export_json_and_parquet(tmp_path):
    import pyarrow.parquet as pq

    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        s = bench(config(suite, "eager", "inductor"), st, ScriptedExecutor(scripted_speedups))
        doc_path = export_json(st, [s.run_id], tmp_path / "out" / "run.json")
        pq_path = export_parquet(st, [s.run_id], tmp_path / "out" / "run.parquet")
    doc = json.loads(doc_path.read_text())
    assert doc["schema"] == "passnet-run-export/1"
    assert doc["planned_items"] == len(doc["measurements"]) == 6
    assert doc["run"]["parameters"]["trials"] == 5
    assert {m["result"]["status"] for m in doc["measurements"]} == {"ok"}
    table = pq.read_table(pq_path)
    assert table.num_rows == 6
    assert {"task", "graph", "candidate", "status", "speedup", "result_json"} <= set(
        table.column_names
    )
    assert sorted(table.column("speedup").to_pylist()) == [0.5] * 3 + [1.0] * 3


def test_store_file_is_plain_sqlite(tmp_path):
    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        s = bench(config(suite, "eager"), st, ScriptedExecutor(scripted_speedups))
    conn = sqlite3.connect(tmp_path / "s.db")
    (n,) = conn.execute("SELECT COUNT(*) FROM measurements WHERE run_id=?", (s.run_id,)).fetchone()
    assert n == 3


def test_outliers_are_measured_again_and_eager_off_one_is_named(tmp_path):
    """Eager against itself at 0.4x, or a reference median far off the variant's others, is a
    disturbed measurement: measured once more before it is stored; what stays off is named."""
    suite = make_suite(tmp_path)
    calls: dict[tuple, int] = {}

    def script(item) -> VariantResult:
        n = calls[item.key] = calls.get(item.key, 0) + 1
        graph = item.variant.variant.graph
        if item.candidate.spec.kind == "eager":
            # one graph is off only once (re-measured to 1.0x), one stays off
            off = ("float16" in graph and n == 1) or "bfloat16" in graph
            return timed(item, 10.0, 25.0 if off else 10.0)
        ref = 40.0 if "float32" in graph and n == 1 else 10.0  # a disturbed reference
        return timed(item, ref, 5.0)

    with Store(tmp_path / "s.db") as st:
        summary = bench(config(suite, "eager", "inductor"), st, ScriptedExecutor(script))
        ms = st.measurements(summary.run_id)
    assert summary.remeasured == 3  # f16 eager, bf16 eager, f32 inductor (its reference)
    assert len(summary.eager_off) == 1 and "bfloat16" in summary.eager_off[0]
    assert "0.40x" in summary.eager_off[0]
    f32 = [m for m in ms if m["candidate"].startswith("inductor") and "float32" in m["graph"]]
    assert f32 and all(abs(m["speedup"] - 2.0) < 1e-9 for m in f32)  # the re-measured value
