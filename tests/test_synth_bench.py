"""``passnet bench -c synth``: a synthesised pass per task, measured like any submitted pass.

Two one-variant tasks cut from the bundled suite (float32, the smallest graph): a pointwise
``mul, add`` that the synthesizer fuses, and ``scaled_dot_product_attention`` with its head
reshapes, which it skips (no template for SDPA; nothing else to fuse). Kernels run in
Triton's interpreter on CPU.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from passnet.agent.trajectory import AttemptRecord, read_trajectories, training_records
from passnet.dataset.task import load_task, write_task
from passnet.evaluation.candidates import parse_candidate
from passnet.graph.sample import load_sample
from passnet.runner.store import Store
from passnet.runner.suite import candidate_id

# The CPU-curated suite of 2026-11 (examples/suite until the GPU-curated one replaced it):
# its tasks hold the patterns these tests exercise.
SUITE = Path(__file__).resolve().parents[1] / "tests" / "data" / "suite-cpu"
FUSED = "fusible_mul_add_445849cd"
UNSUPPORTED = "fusible_scaled_dot_product_attention_reshape_transpose_contiguous_17d116f8"
SKIP_REASON = (
    "unsupported op scaled_dot_product_attention; nothing to fuse: at most one op eager runs "
    "as a kernel"
)
FAST = ["--warmup", "1", "--trials", "3", "--rounds", "1", "--no-report", "--device", "cpu"]


def _smallest(name: str, root: Path) -> Path:
    task = load_task(SUITE / name)
    fp32 = [v for v in task.variants if v.dtype == "float32"]
    small = min(fp32, key=lambda v: sum(math.prod(m.shape) for m in load_sample(v.path).metas))
    return write_task(root / name, [small.path], name=name).path


@pytest.fixture(scope="module")
def synth_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One bench run (eager + synth) over both tasks, then the same command again."""
    from passnet.cli import app

    root = tmp_path_factory.mktemp("synth_bench")
    for name in (FUSED, UNSUPPORTED, "fusible_add_mul_93e8ce5e"):
        _smallest(name, root / "suite")
    db = root / "runs" / "passnet.db"
    args = ["bench", str(root / "suite"), "-c", "eager,synth", "--store", str(db),
            "--filter", "*mul_add*", "--filter", "*scaled_dot*", *FAST]  # fmt: skip
    first = CliRunner().invoke(app, args, terminal_width=200)
    assert first.exit_code == 0, first.output
    cache = next((root / "runs" / "synth").iterdir())
    stamps = {p: p.stat().st_mtime_ns for p in cache.rglob("synth.json")}
    again = CliRunner().invoke(app, args, terminal_width=200)
    assert again.exit_code == 0, again.output
    return {"root": root, "db": db, "cache": cache, "first": first.output,
            "again": again.output, "stamps": stamps}  # fmt: skip


def _synth_results(db: Path) -> dict[str, dict]:
    cid = candidate_id(parse_candidate("synth"))[0]
    with Store(db, readonly=True) as st:
        run = st.runs()[0]["run_id"]
        rows = [m for m in st.measurements(run) if m["candidate_id"] == cid]
    return {m["task"]: json.loads(m["result_json"]) for m in rows}


def test_synth_pass_is_measured_like_a_submitted_pass(synth_run: dict) -> None:
    results = _synth_results(synth_run["db"])
    assert set(results) == {FUSED, UNSUPPORTED}  # --filter kept two of the three tasks
    fused = results[FUSED]
    assert fused["status"] == "ok", fused["error"]
    assert fused["comparison"]["tightest_passing_t"] <= -4
    assert sum(fused["matches"].values()) == 1 and all(
        k.startswith("synth_") for k in fused["matches"]
    )
    assert fused["timing_meaningful"] is False  # the interpreter: correct, speed unmeasured
    assert fused["integrity"] == [] and fused["sandbox"] is not None  # the pass worker's checks
    folder = next(synth_run["cache"].glob(f"{FUSED}-*"))
    assert json.loads((folder / "synth.json").read_text())["status"] == "written"
    assert (folder / "pass" / "sorted_output_pass_rule_names.json").is_file()


def test_unsupported_task_is_skipped_with_its_reason(synth_run: dict) -> None:
    skipped = _synth_results(synth_run["db"])[UNSUPPORTED]
    assert skipped["status"] == "no_match"
    assert skipped["error"] == f"skipped: {SKIP_REASON}", skipped["error"]
    assert f"synth {UNSUPPORTED}: skipped: {SKIP_REASON}" in synth_run["first"]


def test_rerun_measures_and_synthesises_nothing(synth_run: dict) -> None:
    assert "4 items; 4 already done" in synth_run["again"], synth_run["again"]
    assert "synth " not in synth_run["again"]  # no task was even looked at
    now = {p: p.stat().st_mtime_ns for p in synth_run["cache"].rglob("synth.json")}
    assert now == synth_run["stamps"] and len(now) == 2


def test_report_has_a_synth_row(synth_run: dict) -> None:
    from passnet.cli import app
    from passnet.reports import build_leaderboard

    with Store(synth_run["db"], readonly=True) as st:
        board = build_leaderboard(st, ["latest"])
    rows = {r.name: r.summary() for r in board.rows}
    assert set(rows) == {"eager", "synth"}
    synth = rows["synth"]
    assert synth["statuses"] == {"no_match": 1, "ok": 1} and synth["subgraph_correct"] == 0.5
    assert synth["gmean_vs_eager"] is None  # the only correct variant ran in the interpreter
    res = CliRunner().invoke(app, ["report", "latest", "--store", str(synth_run["db"]), "--out",
                                   str(synth_run["root"] / "report")], terminal_width=200)  # fmt: skip
    assert res.exit_code == 0, res.output
    assert any(line.strip("│┃ ").startswith("synth ") for line in res.output.splitlines()), (
        res.output
    )


def test_trajectory_is_an_agent_record_that_replays(synth_run: dict, tmp_path: Path) -> None:
    from passnet.agent.replay import replay_attempt

    folder = next(synth_run["cache"].glob(f"{FUSED}-*"))
    path = folder / "trajectory.json"
    record = AttemptRecord.model_validate_json(path.read_text())
    assert read_trajectories(path) == [record]  # also a one-line trajectories.jsonl
    calls = [c["function"]["name"] for m in record.messages if m["role"] == "assistant"
             for c in m["tool_calls"]]  # fmt: skip
    rules = json.loads((folder / "pass" / "sorted_output_pass_rule_names.json").read_text())
    assert calls == ["view_task", *["file_editor"] * (len(rules) + 1), "pass_evaluator", "finish"]
    assert record.stop_reason == "finish" and record.final_correct
    assert training_records([record]) == [record]
    assert record.final_files == {p.name: p.read_text() for p in (folder / "pass").iterdir()
                                  if p.is_file()}  # fmt: skip
    _, rep = replay_attempt(record, tmp_path / "replay", load_task(record.sample_dir), None)
    assert rep.same_files and rep.same_score and rep.same_messages, rep.first_difference
    assert not list(synth_run["cache"].glob(f"{UNSUPPORTED}-*/trajectory.json"))  # no pass


def test_synth_command_collects_trajectories(tmp_path: Path) -> None:
    from passnet.cli import app

    task = _smallest(FUSED, tmp_path / "suite")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["synth", str(task), "--out", str(out), "--trials", "3"])
    assert res.exit_code == 0, res.output
    records = read_trajectories(out / "trajectories.jsonl")
    assert [r.task_name for r in training_records(records)] == [FUSED]
    assert records[0].model_dump() == AttemptRecord.model_validate_json(
        (out / FUSED / "trajectory.json").read_text()).model_dump()  # fmt: skip


def test_cached_verdicts_are_reused_but_not_host_failures(tmp_path: Path) -> None:
    from passnet.dataset.suite import load_suite
    from passnet.runner.synth_candidate import synth_folder, synthesize_cached

    _smallest(UNSUPPORTED, tmp_path / "suite")
    task = load_suite(tmp_path / "suite").tasks[0]
    folder = synth_folder(tmp_path / "cache", task)
    folder.mkdir(parents=True)
    for reason, expect in (("unsupported op fake", "unsupported op fake"),
                           ("crash: graphs/x: killed", SKIP_REASON)):  # fmt: skip
        stale = {"task": "t", "name": UNSUPPORTED, "status": "skipped", "reason": reason}
        (folder / "synth.json").write_text(json.dumps(stale))
        r = synthesize_cached([task], tmp_path / "cache", "cpu", 60.0)[0]
        assert r.reason.startswith(expect), r.reason


def test_eval_refuses_synth_with_the_way_to_do_it(tmp_path: Path) -> None:
    from passnet.cli import app

    task = _smallest(FUSED, tmp_path / "suite")
    res = CliRunner().invoke(app, ["eval", str(task), "--compiler", "synth"], terminal_width=200)
    assert res.exit_code == 2 and "passnet synth TASK --out DIR" in res.output, res.output


def test_parallel_synthesis_gives_each_task_its_own_verdict_in_order(tmp_path: Path) -> None:
    """``--workers 2``: tasks run in spawned processes, results come back in task order and
    equal the serial run's (a worker's result is not another task's)."""
    from passnet.synth.driver import synthesize_tasks

    suite = tmp_path / "suite"
    paths = [_smallest(UNSUPPORTED, suite), _smallest(FUSED, suite)]
    jobs = [(p, None) for p in paths]
    seen: list[int] = []
    par = synthesize_tasks(jobs, tmp_path / "par", workers=2, verify=False,
                           on_result=lambda i, r: seen.append(i))  # fmt: skip
    ser = synthesize_tasks(jobs, tmp_path / "ser", workers=1, verify=False)
    assert sorted(seen) == [0, 1]
    assert [r.name for r in par] == [UNSUPPORTED, FUSED]
    assert [(r.status, r.reason, r.rules) for r in par] == [
        (r.status, r.reason, r.rules) for r in ser
    ]
    assert par[0].status == "skipped" and par[1].status == "written"
    assert (tmp_path / "par" / FUSED / "pass").is_dir()


def test_tasks_verified_side_by_side_share_the_evaluation_workers(monkeypatch) -> None:
    """8 tasks at once on a 16-core GPU host verify with one worker each, not 8 each (64
    CUDA contexts ran an H100 out of memory); on CPU always one."""
    from passnet.evaluation import evaluator
    from passnet.synth.driver import verify_workers

    monkeypatch.setattr(evaluator.os, "sched_getaffinity", lambda _: set(range(16)))
    assert [verify_workers("cuda", n) for n in (1, 2, 3, 8, 30)] == [8, 4, 2, 1, 1]
    assert verify_workers("cpu", 1) == 1 and verify_workers("cuda:0", 0) == 8


def test_keep_rules_name_distinct_candidates_with_their_own_caches() -> None:
    """``synth`` = ``synth:win`` (the id runs had before keep rules); ``synth:correct`` is
    another candidate whose synthesis never shares the default's cache folder."""
    from passnet.core.results import Environment
    from passnet.evaluation.candidates.synth import keep_rule
    from passnet.runner.synth_candidate import synth_cache_dir

    win, same, correct = (parse_candidate(t) for t in ("synth", "synth:win", "synth:correct"))
    assert candidate_id(win) == candidate_id(same) and win.options == {}
    assert candidate_id(correct)[0] != candidate_id(win)[0]
    assert (keep_rule(win), keep_rule(correct)) == ("win", "correct")
    assert correct.label == "synth[keep=correct]"
    with pytest.raises(ValueError, match="unknown synth keep rule 'fast'"):
        parse_candidate("synth:fast")
    env = Environment(device="cuda:0", device_name="NVIDIA H200", torch="2.11", triton="3.6",
                      python="3.12", platform="linux")  # fmt: skip
    root = Path("/cache")
    assert synth_cache_dir(root, "h", env) == synth_cache_dir(root, "h", env, "win")
    assert synth_cache_dir(root, "h", env, "correct") != synth_cache_dir(root, "h", env)


def test_keep_correct_keeps_a_correct_pass_that_loses_to_eager() -> None:
    from passnet.synth.driver import _verdict

    slow = {"gmean_speedup": 0.93, "variants": [
        {"graph": "g", "dtype": "float32", "status": "ok", "tightest_t": -6, "error": None}]}  # fmt: skip
    assert _verdict(slow, "cuda:0", "win") == "no win: 0.930x vs eager (gmean)"
    assert _verdict(slow, "cuda:0", "correct") is None
    loose = {**slow, "variants": [{**slow["variants"][0], "tightest_t": -2}]}
    assert _verdict(loose, "cuda:0", "win").startswith("numerics: g (float32)")
    assert _verdict(loose, "cuda:0", "correct") is None  # credited at t >= -2 by the score
    wrong = {**slow, "variants": [{**slow["variants"][0], "status": "incorrect", "tightest_t": None,
                                   "error": "allclose fails at t = 1"}]}  # fmt: skip
    assert _verdict(wrong, "cuda:0", "correct").startswith("numerics: g: allclose fails")


def test_synth_cli_refuses_an_unknown_keep_rule(tmp_path: Path) -> None:
    from passnet.cli import app

    task = _smallest(FUSED, tmp_path / "suite")
    res = CliRunner().invoke(app, ["synth", str(task), "--out", str(tmp_path / "o"), "--keep", "x"])
    assert res.exit_code != 0 and "unknown --keep 'x'" in res.output, res.output


def test_synth_cli_filters_are_a_union_of_globs(tmp_path: Path) -> None:
    from passnet.cli import app
    from passnet.cli.synth import _tasks

    tasks = _tasks(SUITE, "cpu", "win", ["*mul_add*", "*scaled_dot*"])
    assert tasks and all("mul_add" in t.name or "scaled_dot" in t.name for t in tasks)
    assert {t.name for t in _tasks(SUITE, "cpu", "win", ["*mul_add*"])} < {t.name for t in tasks}
    res = CliRunner().invoke(app, ["synth", str(SUITE), "--out", str(tmp_path / "o"),
                                   "-k", "*nothing*", "-k", "*nor_this*"])  # fmt: skip
    assert res.exit_code != 0 and "matching *nothing*, *nor_this*" in res.output, res.output
