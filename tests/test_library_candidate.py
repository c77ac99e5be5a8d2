"""``passnet bench -c library:DIR``: each task's pass from a pass library, measured like a
submitted pass; a task the library has no pass for scores as no match."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from passnet.cli import app
from passnet.evaluation.candidates import parse_candidate
from passnet.runner.store import Store
from passnet.runner.suite import candidate_id

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "examples" / "synth_passes"
WITH, WITHOUT = "fusible_mul_add_445849cd", "fusible_embedding_arange_6a42a969"
FAST = ["--warmup", "1", "--trials", "3", "--rounds", "1", "--no-report", "--device", "cpu",
        "--dtype", "float32"]  # fmt: skip


def test_a_library_candidate_runs_each_tasks_own_pass(tmp_path: Path) -> None:
    library = tmp_path / "library"
    shutil.copytree(LIBRARY / WITH, library / WITH)
    db = tmp_path / "runs.db"
    res = CliRunner().invoke(app, ["bench", str(ROOT / "examples" / "suite"), "-c",
                                   f"library:{library}", "--store", str(db), "-k", f"*{WITH}",
                                   "-k", f"*{WITHOUT}", *FAST], terminal_width=200)  # fmt: skip
    assert res.exit_code == 0, res.output
    cid = candidate_id(parse_candidate(f"library:{library}"))[0]
    with Store(db, readonly=True) as st:
        rows = st.measurements(st.runs()[0]["run_id"])
    assert rows and {m["candidate_id"] for m in rows} == {cid}
    by_task: dict[str, list[dict]] = {}
    for m in rows:
        by_task.setdefault(m["task"], []).append(json.loads(m["result_json"]))
    assert set(by_task) == {WITH, WITHOUT}
    for r in by_task[WITH]:  # the library's pass for this task, run in a worker
        assert r["status"] == "ok", r["error"]
        assert sum(r["matches"].values()) >= 1 and r["comparison"]["tightest_passing_t"] <= -4
    for r in by_task[WITHOUT]:  # none in the library: stored without a worker
        assert r["status"] == "no_match" and r["error"].startswith("skipped: no pass in the")
    # a changed pass in the library is another candidate
    (library / WITH / "pass" / "note.txt").write_text("changed")
    assert candidate_id(parse_candidate(f"library:{library}"))[0] != cid


def test_a_library_is_a_bench_candidate_only(tmp_path: Path) -> None:
    task = ROOT / "examples" / "suite" / WITH
    res = CliRunner().invoke(app, ["eval", str(task), "--compiler", f"library:{LIBRARY}"])
    assert res.exit_code != 0 and "--pass-dir DIR/<task>/pass" in res.output, res.output
    res = CliRunner().invoke(app, ["bench", str(task.parent), "-c", "library:",
                                   "--store", str(tmp_path / "x.db"), *FAST])  # fmt: skip
    assert res.exit_code != 0 and "needs a pass library folder" in res.output, res.output
    res = CliRunner().invoke(app, ["bench", str(task.parent), "-c", f"library:{tmp_path}/none",
                                   "--store", str(tmp_path / "x.db"), *FAST])  # fmt: skip
    assert res.exit_code != 0 and "does not exist" in res.output, res.output
