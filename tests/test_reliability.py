"""Reliability of the runner (issue 11): transient failures retried and re-measurable, store
and output problems as one-line errors before work starts, schema migration, and the
run-opening race. Scripted executors or rows written directly: no evaluation is needed to
test the bookkeeping, so these take seconds.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers.store import EXAMPLE_TASK, PARAMS, config, make_suite, result, scripted_speedups
from typer.testing import CliRunner

from passnet.core.results import Status
from passnet.runner.bench import bench
from passnet.runner.export import run_document
from passnet.runner.scripted import ScriptedExecutor
from passnet.runner.store import Store, StoreError

ROOT = Path(__file__).resolve().parents[1]
OLD_STORE = ROOT / "docs" / "results" / "h200-2026-12-02-bench" / "gpu.db"
"""A committed store of schema 1 (before retries)."""


def graph(item) -> str:
    return item.variant.variant.graph.rsplit("/", 1)[-1]


def flaky(failures: dict[str, list[Status]]):
    """A script whose items named in ``failures`` fail with those statuses, in order, then
    succeed (eager candidate only)."""
    left = {k: list(v) for k, v in failures.items()}

    def script(item):
        todo = left.get(graph(item))
        if todo:
            return result(item, todo.pop(0), None)
        return scripted_speedups(item)

    return script


# ---- retries ------------------------------------------------------------------------------


def test_crash_and_timeout_are_retried_and_every_attempt_is_kept(tmp_path):
    suite = make_suite(tmp_path)  # three variants: 0_cut_1x12, 1_cut_..._float16, 2_..._bfloat16
    script = flaky(
        {
            "0_cut_1x12": [Status.CRASH, Status.TIMEOUT],  # transient: third attempt is ok
            "1_cut_1x12_float16": [Status.CRASH] * 5,  # never recovers: final after 3
            "2_cut_1x12_bfloat16": [Status.COMPILE_ERROR],  # deterministic: never retried
        }
    )
    ex = ScriptedExecutor(script)
    with Store(tmp_path / "s.db") as st:
        s = bench(config(suite, "eager"), st, ex)
        ms = {graph_of(st, m): m for m in st.measurements(s.run_id)}
        attempts = st.attempts(s.run_id)
        session = st.sessions(s.run_id)[-1]
    assert len(ex.calls) == 3 + 2 + 2  # retried in rounds after the first pass
    assert (s.measured, s.retried, s.statuses) == (3, 4, {"ok": 1, "crash": 1, "compile_error": 1})
    assert s.complete
    assert {k: (m["status"], m["attempts"]) for k, m in ms.items()} == {
        "0_cut_1x12": ("ok", 3),
        "1_cut_1x12_float16": ("crash", 3),
        "2_cut_1x12_bfloat16": ("compile_error", 1),
    }
    assert sorted(a["status"] for a in attempts) == ["crash", "crash", "crash", "timeout"]
    assert all(a["measurement_id"] is None and a["session_id"] for a in attempts)
    assert session["retried"] == 4 and session["measured"] == 3


def test_retries_zero_keeps_the_first_result(tmp_path):
    suite = make_suite(tmp_path)
    ex = ScriptedExecutor(flaky({"0_cut_1x12": [Status.CRASH]}))
    with Store(tmp_path / "s.db") as st:
        s = bench(config(suite, "eager", retries=0), st, ex)
        assert st.attempts(s.run_id) == []
    assert (len(ex.calls), s.retried, s.statuses) == (3, 0, {"ok": 2, "crash": 1})


def graph_of(st: Store, m: dict) -> str:
    return m["graph"].rsplit("/", 1)[-1]


# ---- re-measuring failed items ------------------------------------------------------------


def test_rerun_failed_replaces_only_the_failed_results(tmp_path):
    suite = make_suite(tmp_path)
    first = flaky({"0_cut_1x12": [Status.CRASH], "1_cut_1x12_float16": [Status.TIMEOUT]})
    with Store(tmp_path / "s.db") as st:
        a = bench(config(suite, "eager", retries=0), st, ScriptedExecutor(first))
        before = {m["measurement_id"]: m for m in st.measurements(a.run_id)}
        again = ScriptedExecutor(scripted_speedups)
        b = bench(config(suite, "eager", rerun=("crash", "timeout")), st, again)
        after = st.measurements(a.run_id)
        attempts = st.attempts(a.run_id)
        run = st.run(a.run_id)
        doc = run_document(st, a.run_id)
    assert b.run_id == a.run_id
    assert (b.rerun, b.skipped, b.measured) == (2, 1, 2)
    assert sorted(graph(i) for i in again.calls) == ["0_cut_1x12", "1_cut_1x12_float16"]
    kept = [m for m in after if m["measurement_id"] in before]
    assert [m["status"] for m in kept] == ["ok"]  # what was done is untouched
    assert kept[0] == before[kept[0]["measurement_id"]]
    assert sorted((m["status"], m["attempts"]) for m in after) == [("ok", 1), ("ok", 2), ("ok", 2)]
    # the replaced results are kept as earlier attempts, with their old measurement ids
    assert sorted(a["status"] for a in attempts) == ["crash", "timeout"]
    assert {a["measurement_id"] for a in attempts} <= set(before)
    assert run["status"] == "complete"
    assert len(doc["attempts"]) == 2 and doc["attempts"][0]["result"]["status"] == "crash"
    assert {m["attempts"] for m in doc["measurements"]} == {1, 2}


def test_rerun_refuses_unknown_statuses(tmp_path):
    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st, pytest.raises(ValueError, match="cannot re-measure"):
        bench(config(suite, "eager", rerun=("ok",)), st, ScriptedExecutor(scripted_speedups))


def cli(*args: str):  # noqa: ANN201 - click Result
    from passnet.cli import app

    return CliRunner().invoke(app, [str(a) for a in args], terminal_width=200)


def test_cli_retries_and_rerun_failed(tmp_path, scripted_pool):
    suite = make_suite(tmp_path)
    db = tmp_path / "s.db"
    base = ["bench", suite, "-c", "eager", "--store", db, "--no-report", "--run", "r"]
    scripted_pool["executor"] = ScriptedExecutor(flaky({"0_cut_1x12": [Status.CRASH] * 2}))
    res = cli(*base, "--retries", "1")
    assert res.exit_code == 0, res.output
    assert "3 measured, 1 failed attempts retried" in res.stdout
    assert "crash, retry 1" in res.stderr
    with Store(db) as st:
        assert sorted(m["status"] for m in st.measurements("r")) == ["crash", "ok", "ok"]

    scripted_pool["executor"] = again = ScriptedExecutor(scripted_speedups)
    res = cli(*base)  # a plain rerun: the crash is a final result, nothing to do
    assert res.exit_code == 0 and again.calls == []
    assert "1 crash in this run, final after retries: add --rerun-failed" in res.stderr
    res = cli(*base, "--rerun-failed")
    assert res.exit_code == 0, res.output
    assert "2 already done, 1 set aside to re-measure" in res.stdout
    assert [graph(i) for i in again.calls] == ["0_cut_1x12"]
    with Store(db) as st:
        ms = st.measurements("r")
        assert sorted((m["status"], m["attempts"]) for m in ms) == [("ok", 1), ("ok", 1), ("ok", 3)]
        assert len(st.attempts("r")) == 2
    bad = cli(*base, "--rerun-failed", "--rerun-status", "crash,nope")
    assert bad.exit_code == 2 and "cannot re-measure status 'nope'" in bad.stderr


# ---- store problems -----------------------------------------------------------------------


def bad_stores(tmp_path: Path) -> dict[str, Path]:
    """Every kind of unusable --store path."""
    (tmp_path / "not_a_db.db").write_text("hello, I am not a database\n" * 100)
    truncated = tmp_path / "truncated.db"
    data = OLD_STORE.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    (tmp_path / "plain_file").write_text("x")
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    return {
        "not a database": tmp_path / "not_a_db.db",
        "truncated": truncated,
        "under a regular file": tmp_path / "plain_file" / "passnet.db",
        "a folder": tmp_path,
        "foreign sqlite": foreign,
    }


def one_error_line(res) -> str:  # noqa: ANN001 - click Result or CompletedProcess
    err = res.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("error:"), err
    return err


@pytest.mark.parametrize("command", ["bench", "runs", "report", "export"])
def test_store_problems_are_one_line_errors(tmp_path, command, scripted_pool):
    (tmp_path / "suite_root").mkdir()
    suite = make_suite(tmp_path / "suite_root")
    scripted_pool["executor"] = ex = ScriptedExecutor(scripted_speedups)
    args = {
        "bench": ["bench", suite, "-c", "eager", "--no-report"],
        "runs": ["runs"],
        "report": ["report", "latest", "--out", tmp_path / "rep"],
        "export": ["export", "latest", "--out", tmp_path / "x.json"],
    }[command]
    for what, path in bad_stores(tmp_path).items():
        res = cli(*args, "--store", path)
        assert res.exit_code == 2, (what, res.output, res.exception)
        line = one_error_line(res)
        assert str(path) in line, (what, line)
    assert ex.calls == []  # nothing was evaluated


def test_store_problem_from_a_real_process(tmp_path):
    truncated = bad_stores(tmp_path)["truncated"]
    for args in (["runs"], ["bench", EXAMPLE_TASK, "-c", "eager"]):
        proc = subprocess.run(
            [sys.executable, "-m", "passnet.cli", *map(str, args), "--store", str(truncated)],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert "is damaged" in one_error_line(proc) or "not a usable" in proc.stderr


def test_schema_versions_newer_and_older(tmp_path):
    newer = tmp_path / "newer.db"
    with Store(newer) as st, st.tx() as c:
        c.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    for readonly in (False, True):
        with pytest.raises(StoreError, match="store schema 99"):
            Store(newer, readonly=readonly)

    old = tmp_path / "old.db"
    shutil.copyfile(OLD_STORE, old)
    digest = hashlib.sha256(old.read_bytes()).hexdigest()
    with Store(old, readonly=True) as st:  # reports read an old store as it is
        assert st.version == 1 and st.attempts(st.resolve_run("latest")) == []
        before = run_document(st, st.resolve_run("latest"))
    assert hashlib.sha256(old.read_bytes()).hexdigest() == digest
    with Store(old) as st:  # opened for writing: migrated in place
        assert st.version == 2
        after = run_document(st, st.resolve_run("latest"))
        cols = {r[1] for r in st.conn.execute("PRAGMA table_info(measurements)")}
    assert "attempts" in cols
    assert [m["result"] for m in after["measurements"]] == [
        m["result"] for m in before["measurements"]
    ]
    assert {m["attempts"] for m in after["measurements"]} == {1}
    with Store(old, readonly=True) as st:
        assert st.version == 2


def test_migrated_store_continues_a_run(tmp_path):
    suite = make_suite(tmp_path)
    db = tmp_path / "s.db"
    with Store(db) as st:
        a = bench(config(suite, "eager", limit=1), st, ScriptedExecutor(scripted_speedups))
    # turn it back into a schema-1 store (what stores committed before retries look like)
    conn = sqlite3.connect(db)
    conn.executescript(
        "ALTER TABLE measurements DROP COLUMN attempts; ALTER TABLE sessions DROP COLUMN retried;"
        "DROP TABLE attempts; UPDATE meta SET value='1' WHERE key='schema_version';"
    )
    conn.close()
    ex = ScriptedExecutor(flaky({"0_cut_1x12": [Status.CRASH]}))
    with Store(db) as st:
        b = bench(config(suite, "eager", limit=1), st, ex)
        c = bench(config(suite, "eager", use_cache=False), st, ex)
    assert b.run_id == a.run_id and b.skipped == 2
    assert c.retried == 1 and c.statuses == {"ok": 3}


# ---- output paths -------------------------------------------------------------------------


def test_eval_json_path_is_checked_before_evaluating(tmp_path, monkeypatch):
    import passnet.evaluation.evaluator as evaluator

    def never(*a, **k):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("evaluated although --json cannot be written")

    monkeypatch.setattr(evaluator, "evaluate_task", never)
    (tmp_path / "plain_file").write_text("x")
    for bad in (tmp_path / "plain_file" / "r.json", tmp_path):
        res = cli("eval", EXAMPLE_TASK, "--compiler", "eager", "--json", bad)
        assert res.exit_code == 2, (res.output, res.exception)
        assert str(bad) in one_error_line(res)


def test_eval_result_survives_a_json_write_failure(tmp_path, monkeypatch):
    import passnet.evaluation.evaluator as evaluator
    from passnet.core.results import VariantResult

    out_dir = tmp_path / "out"

    def evaluate_then_break_the_folder(task, candidate, **kw):  # noqa: ANN001, ANN003, ANN202
        v = task.variants[0]
        vr = VariantResult(graph=v.graph, dtype=v.dtype, status=Status.CRASH, error="scripted")
        shutil.rmtree(out_dir)
        out_dir.write_text("now a file")  # the --json folder is gone by the time we write
        return evaluator.task_result(
            task, candidate, [vr], device="cpu", parameters=kw["parameters"], wall_seconds=1.0
        )

    monkeypatch.setattr(evaluator, "evaluate_task", evaluate_then_break_the_folder)
    res = cli("eval", EXAMPLE_TASK, "--compiler", "eager", "--json", out_dir / "r.json")
    assert res.exit_code == 2, (res.output, res.exception)
    line = one_error_line(res)
    saved = Path(line.rsplit("the result is in ", 1)[1])
    try:
        data = json.loads(saved.read_text())
        assert data["candidate"]["kind"] == "eager" and len(data["variants"]) == 1
    finally:
        saved.unlink()


def test_report_and_export_out_paths_are_checked_first(tmp_path):
    suite = make_suite(tmp_path)
    db = tmp_path / "s.db"
    with Store(db) as st:
        bench(config(suite, "eager"), st, ScriptedExecutor(scripted_speedups))
    (tmp_path / "plain_file").write_text("x")
    under = tmp_path / "plain_file"
    res = cli("report", "latest", "--store", db, "--out", under / "rep")
    assert res.exit_code == 2 and str(under / "rep") in one_error_line(res)
    res = cli("export", "latest", "--store", db, "--out", under / "x.json")
    assert res.exit_code == 2 and str(under / "x.json") in one_error_line(res)
    res = cli("export", "latest", "--store", db, "--out", tmp_path / "ok" / "x.json")
    assert res.exit_code == 0, res.output


# ---- the run-opening race -----------------------------------------------------------------


def test_concurrent_open_run_all_succeed(tmp_path):
    """Threads with their own connections open the same new runs at once: one creates each
    run, the others find it; none fails (before: IntegrityError from read-then-insert)."""
    db = tmp_path / "race.db"
    with Store(db) as st:
        pid = st.put_parameters(PARAMS)
    n_threads, n_runs = 6, 20
    barrier = threading.Barrier(n_threads)
    created: list[str] = []
    errors: list[BaseException] = []
    items = [("c", f"v{i}", "t") for i in range(50)]

    def hammer() -> None:
        with Store(db) as st:
            for r in range(n_runs):
                try:
                    barrier.wait(timeout=60)
                    new = st.open_run(
                        f"run-{r}", suite="s", device="cpu", params_id=pid,
                        config={"r": r}, candidates=["c"], items=items,
                    )  # fmt: skip
                    if new:
                        created.append(f"run-{r}")
                except Exception as exc:  # noqa: BLE001 - collected, asserted below
                    errors.append(exc)

    threads = [threading.Thread(target=hammer) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(created) == sorted(f"run-{r}" for r in range(n_runs))  # each created once
    with Store(db) as st:
        (n,) = st.conn.execute("SELECT COUNT(*) FROM run_items").fetchone()
    assert n == n_runs * len(items)
