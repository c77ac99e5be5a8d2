"""Leaderboard numbers, speedup vs Inductor by ratio of ratios, plots, HTML and the CLI.

Stores are filled by the scripted executor with known speedups, so every number is exact.
"""

from __future__ import annotations

import json
import re

import pytest
from helpers.store import EXAMPLE_PASS, PARAMS, make_suite, result, scripted_speedups
from typer.testing import CliRunner

from passnet.core.results import Status
from passnet.reports import build_leaderboard, write_report
from passnet.runner.bench import BenchConfig, bench
from passnet.runner.scripted import ScriptedExecutor
from passnet.runner.store import Store

PASS = f"passes:{EXAMPLE_PASS}"


def run(st: Store, suite, *cands: str, script=scripted_speedups, **kw) -> str:
    cfg = BenchConfig(suite=suite, candidates=cands, parameters=PARAMS, **kw)
    return bench(cfg, st, ScriptedExecutor(script)).run_id


def rows(board) -> dict[str, dict]:
    return {r.kind: r.summary() for r in board.rows}


def test_leaderboard_numbers(tmp_path):
    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        rid = run(st, suite, "eager", "inductor", PASS)
        board = build_leaderboard(st, [rid])
    r = rows(board)
    # correct at every level with speedup s: ES_t = s for all t, so AS = s exactly
    assert r["pass"]["AS"] == pytest.approx(2.0)
    assert r["pass"]["mean_task_AS"] == pytest.approx(2.0)
    assert r["pass"]["gmean_vs_eager"] == pytest.approx(2.0)
    assert r["pass"]["gmean_vs_inductor"] == pytest.approx(4.0)  # 2.0 / 0.5
    assert r["pass"]["fast_1"] == 1.0 and r["pass"]["task_correct"] == 1.0
    assert r["inductor"]["AS"] == pytest.approx(0.5)  # p = 0: r = s for s < 1
    assert r["inductor"]["gmean_vs_inductor"] == pytest.approx(1.0)
    assert r["eager"]["AS"] == pytest.approx(1.0)
    assert r["eager"]["fast_1"] == 0.0  # not faster than eager
    assert r["pass"]["vs_inductor_sources"] == [rid]
    assert (r["pass"]["done"], r["pass"]["planned"], r["pass"]["n_tasks"]) == (3, 3, 2)
    assert set(r["pass"]["task_AS"]) == {"task_a", "task_b"}
    assert r["pass"]["task_gmean_vs_eager"] == pytest.approx({"task_a": 2.0, "task_b": 2.0})
    assert r["inductor"]["task_gmean_vs_eager"] == pytest.approx({"task_a": 0.5, "task_b": 0.5})


def test_vs_inductor_from_another_runs_baseline(tmp_path):
    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        base = run(st, suite, "inductor")
        only_pass = run(st, suite, PASS)
        board = build_leaderboard(st, [only_pass])
    r = rows(board)["pass"]
    assert r["gmean_vs_inductor"] == pytest.approx(4.0)
    assert r["vs_inductor_sources"] == [base]
    assert r["vs_inductor_covered"] == 3


def test_failures_partial_runs_and_score_overrides(tmp_path):
    suite = make_suite(tmp_path)

    def one_bad(item):
        if item.variant.variant.graph.endswith("bfloat16"):
            raise RuntimeError("harness fault")  # left unmeasured: a partial run
        if item.variant.variant.graph.endswith("float16") and item.candidate.spec.kind == "pass":
            return result(item, Status.NO_MATCH, None)
        return scripted_speedups(item)

    with Store(tmp_path / "s.db") as st:
        rid = run(st, suite, "eager", PASS, script=one_bad)
        default = rows(build_leaderboard(st, [rid]))["pass"]
        harsh = rows(build_leaderboard(st, [rid], b=0.001))["pass"]
    assert default["statuses"] == {"no_match": 1, "ok": 1}
    assert (default["done"], default["planned"], default["complete"]) == (2, 3, False)
    assert default["subgraph_correct"] == 0.5 and default["task_correct"] == 0.0
    assert default["n_tasks"] == 1  # task_b has no measured variant yet
    assert harsh["AS"] < default["AS"] < 2.0
    assert harsh["b"] == 0.001


def test_report_files_are_self_contained(tmp_path):
    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        rid = run(st, suite, "eager", "inductor", PASS)
        board = build_leaderboard(st, [rid])
    files = write_report(board, tmp_path / "report")
    assert set(files) == {"leaderboard.json", "es_curve.png", "speedups.png", "index.html"}
    for name in ("es_curve.png", "speedups.png"):
        assert files[name].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = files["index.html"].read_text()
    assert page.count("data:image/png;base64,") == 2
    assert not re.search(r'(src|href)="(?!data:)', page)  # nothing fetched from elsewhere
    embedded = re.search(r'<script type="application/json" id="leaderboard">(.*?)</script>', page)
    assert json.loads(embedded.group(1))["rows"][2]["AS"] == pytest.approx(2.0)
    data = json.loads(files["leaderboard.json"].read_text())
    assert data["schema"] == "passnet-leaderboard/1"
    assert "ratio of ratios" in data["speedup_vs_inductor_method"]


def test_report_of_a_run_with_nothing_measured_yet(tmp_path):
    """A run whose items all failed to dispatch (a synth candidate that used its whole budget
    before any item ran) still gets its report: empty plots say so instead of crashing."""
    suite = make_suite(tmp_path)

    def nothing(item):
        raise RuntimeError("harness fault")

    with Store(tmp_path / "s.db") as st:
        rid = run(st, suite, "eager", PASS, script=nothing)
        board = build_leaderboard(st, [rid])
    assert [r.done for r in board.rows] == [0, 0]
    files = write_report(board, tmp_path / "report")
    assert files["speedups.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_cli_compares_runs_side_by_side(tmp_path):
    from passnet.cli import app

    suite = make_suite(tmp_path)
    db = tmp_path / "s.db"
    with Store(db) as st:
        a = run(st, suite, "eager", "inductor")
        b = run(st, suite, "eager", PASS)
    out = tmp_path / "cmp"
    res = CliRunner().invoke(
        app, ["report", a, b[:10], "--store", str(db), "--out", str(out)], terminal_width=200
    )
    assert res.exit_code == 0, res.output
    assert a in res.output and b in res.output and "per task: AS" in res.output
    assert "2.0000 (2.000x)" in res.output or "0.5000 (0.500x)" in res.output
    data = json.loads((out / "leaderboard.json").read_text())
    assert [r["run_id"] for r in data["rows"]] == [a, a, b, b]
    missing = CliRunner().invoke(app, ["report", "nope", "--store", str(db)])
    assert missing.exit_code == 2 and "known runs" in missing.output


def test_suite_table_script_puts_runs_side_by_side(tmp_path):
    """scripts/suite_table.py: per-task ok counts, G-mean with min-max, one column per run."""
    import subprocess
    import sys
    from pathlib import Path

    def by_dtype(item):
        dtype = item.variant.variant.dtype
        if dtype == "bfloat16":
            return result(item, Status.INCORRECT, None)
        return result(item, speedup={"float32": 2.0, "float16": 0.5}[dtype])

    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        first = run(st, suite, "inductor", script=by_dtype, run="first")
        second = run(st, suite, "inductor", run="second", use_cache=False)
    script = Path(__file__).resolve().parents[1] / "scripts" / "suite_table.py"
    cmd = [sys.executable, str(script), f"a={tmp_path / 's.db'}:{first}",
           f"b={tmp_path / 's.db'}:{second}", "--suite", str(suite)]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    lines = {ln.split("|")[1].strip(): ln for ln in out.splitlines() if ln.startswith("| `")}
    assert "| 2/2 | 1.00x (0.50-2.00) | 2/2 | 0.50x (0.50-0.50) |" in lines["`task_a`"]
    assert "| 0/1 | - (0/1 ok) | 1/1 | 0.50x (0.50-0.50) |" in lines["`task_b`"]
    assert "a inductor: G-mean 1.000x over 2 correct of 3 measured variants" in out
    assert "b inductor: G-mean 0.500x over 3 correct of 3 measured variants" in out
    missing = subprocess.run(cmd[:2] + [str(tmp_path / "none.db")], capture_output=True, text=True)
    assert missing.returncode != 0 and "no results store" in missing.stderr
    out = subprocess.run(cmd[:3] + ["--suite", str(suite), "--by-dtype"], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    lines = {ln.split("|")[1].strip(): ln for ln in out.splitlines() if ln.startswith("| `")}
    assert "| 2/2 | 2.00 / 0.50 / - |" in lines["`task_a`"]  # per dtype: f32 / f16 / bf16
    assert "| 0/1 | - / - / x |" in lines["`task_b`"]  # its one variant incorrect
    assert (
        "a inductor: float32 G-mean 2.000x (1 correct), not faster than eager on 0 of 1 "
        "tasks; float16 G-mean 0.500x (1 correct), not faster than eager on 1 of 1 tasks; "
        "bfloat16 G-mean - (0 correct), not faster than eager on 1 of 1 tasks"
    ) in out


def test_interpreter_timings_never_reach_the_speedup_columns(tmp_path):
    """A pass timed in Triton's interpreter (CPU) has no speed: its 0.002x is not a speedup."""

    def interpreted(item):
        v = scripted_speedups(item)
        if item.candidate.spec.kind == "pass":
            v.speedup, v.timing_meaningful = 0.002, False
        return v

    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        rid = run(st, suite, "eager", PASS, script=interpreted)
        r = rows(build_leaderboard(st, [rid]))["pass"]
    assert r["AS"] == pytest.approx(1.0)  # correct everywhere, scored as speedup 1.0
    assert r["gmean_vs_eager"] is None and r["task_gmean_vs_eager"] == {
        "task_a": None, "task_b": None}  # fmt: skip


def test_terminal_leaderboard_shows_labels_with_brackets(tmp_path):
    """``inductor[mode=reduce-overhead]`` is a label, not Rich markup: it was printed as
    ``inductor`` (indistinguishable from the default mode)."""
    from rich.console import Console

    from passnet.reports.leaderboard import print_leaderboard

    suite = make_suite(tmp_path)
    with Store(tmp_path / "s.db") as st:
        rid = run(st, suite, "inductor", "inductor:reduce-overhead")
        board = build_leaderboard(st, [rid])
    console = Console(record=True, width=250)
    print_leaderboard(board, console)
    text = console.export_text()
    assert "inductor[mode=reduce-overhead]" in text
