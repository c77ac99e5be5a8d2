"""PassAgent end to end against a scripted OpenAI-compatible server on 127.0.0.1.

The scripted model works the 1x12 graphs of the bundled BERT add + LayerNorm task: it first
writes a pass with a wrong pattern literal (no_match; the closest partial match comes back),
then fixes it into a numerically wrong kernel (incorrect), then fixes the kernel (ok), and
finishes. Along the way it sends malformed tool calls and the server answers 429 and 500.
Evaluations are real (Triton interpreter on CPU), so the tests keep them few.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from agent_server import API_KEY, MODEL, Fault, ScriptedServer, call, reply, step_of
from helpers.agent import (
    BAD_KERNEL,
    BAD_LITERAL,
    BUGGY,
    CORRECT,
    FAST,
    GOOD_KERNEL,
    GOOD_LITERAL,
    KEY_ENV,
    ROOT,
    gen_config,
    small_task,
)
from typer.testing import CliRunner

from passnet.agent.llm import (
    ContextLengthExceeded,
    GenerateConfig,
    LLMConfigError,
    LLMUnavailable,
    get_backend,
)
from passnet.agent.loop import AgentConfig, AttemptSpec, run_attempt
from passnet.agent.openai_backend import OpenAIBackend
from passnet.agent.replay import replay_attempt
from passnet.agent.run import RunPlan, run_agent
from passnet.agent.trajectory import TRAJECTORIES, AttemptRecord, Budget, read_trajectories
from passnet.core.results import (
    CandidateSpec,
    Environment,
    Scores,
    Status,
    TaskResult,
    VariantResult,
)
from passnet.dataset.task import Task
from passnet.evaluation.devices import DevicePool

RULES = call(
    "file_editor",
    {
        "command": "create",
        "path": "sorted_output_pass_rule_names.json",
        "file_text": '["FuseAddLayerNorm"]\n',
    },
)


def _edit(old: str, new: str) -> tuple[str, str]:
    return call(
        "file_editor",
        {"command": "str_replace", "path": "FuseAddLayerNorm.py", "old_str": old, "new_str": new},
    )


TWO_FIXES = [
    reply(
        "Looking at the task first.",
        [
            call("file_editor", '{"command": "view", "path": '),  # malformed JSON
            call("run_shell", {"cmd": "ls"}),  # unknown tool
            call("view_task", {}),
        ],
    ),
    reply(
        None,
        [
            RULES,
            call(
                "file_editor",
                {"command": "create", "path": "FuseAddLayerNorm.py", "file_text": BUGGY},
            ),
            call("pass_evaluator"),
        ],
    ),
    reply("The eps literal differs.", [_edit(BAD_LITERAL, GOOD_LITERAL), call("pass_evaluator")]),
    reply(
        "A stray offset in the kernel.", [_edit(BAD_KERNEL, GOOD_KERNEL), call("pass_evaluator")]
    ),
    reply("Done.", [call("finish", {"summary": "fused add + layer_norm"})]),
]


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, API_KEY)


@pytest.fixture(scope="module")
def two_fixes_run(tmp_path_factory: pytest.TempPathFactory):
    """One real attempt of the TWO_FIXES script (3 graphs x 3 evaluations)."""
    work = tmp_path_factory.mktemp("agent")
    task = small_task(work / "task")
    faults = [Fault(429, retry_after="0"), Fault(500)]
    with pytest.MonkeyPatch.context() as mp, ScriptedServer(TWO_FIXES, faults) as server:
        mp.setenv(KEY_ENV, API_KEY)
        config = AgentConfig(
            backend="openai", generate=gen_config(server.url), parameters=FAST, run_id="test"
        )
        backend = OpenAIBackend()
        plan = RunPlan(
            tasks=[task],
            config=config,
            out=work / "run",
            attempts=1,
            concurrency=1,
            make_backend=lambda spec: backend,
            make_evaluator=lambda spec: DevicePool(["cpu"], FAST),
        )
        summary = run_agent(plan)
    (record,) = read_trajectories(work / "run" / TRAJECTORIES)
    return record, server.requests, work / "run", task, summary


def _tool_messages(record: AttemptRecord) -> list[dict]:
    return [m for m in record.messages if m["role"] == "tool"]


def test_loop_two_fixes_feedback_and_final_files(two_fixes_run) -> None:
    record, requests, out, task, summary = two_fixes_run
    assert record.stop_reason == "finish"
    assert len(record.steps) == 5
    statuses = [set(e.statuses) for e in record.evaluations]
    assert statuses == [{"no_match"}, {"incorrect"}, {"ok"}]
    assert [e.step for e in record.evaluations] == [1, 2, 3]
    # The closest partial match of the unmatched rule reached the model.
    step2 = next(r for r in requests if step_of(r) == 2)
    fed_back = step2["messages"][-1]["content"]
    assert "no_match" in fed_back and "pattern has 1e-05, graph has 1e-12" in fed_back
    step3 = next(r for r in requests if step_of(r) == 3)
    assert "incorrect" in step3["messages"][-1]["content"]
    # The last files are the example, and the correct snapshot is the best: correct first, and
    # its interpreter timings count as speedup 1.0, so it also outscores the incorrect one
    # (~0.147); before, interpreter speedups (0.001x) made the incorrect snapshot the best.
    assert record.last_files["FuseAddLayerNorm.py"] == CORRECT
    scores = [e.AS for e in record.evaluations]
    assert record.best_evaluation == 2 == scores.index(max(scores)) and record.final_correct
    assert record.final_AS == max(scores) and record.first_AS == scores[0]
    best = record.evaluations[record.best_evaluation]
    best_dir = out / "attempts" / "bert_small" / "0" / "best"
    assert (
        record.final_files
        == {p.name: p.read_text() for p in best_dir.iterdir()}
        == {p.name: p.read_text() for p in (best_dir.parent / best.snapshot_dir).iterdir()}
    )
    assert summary.tasks[0].best_AS == record.final_AS and summary.tasks[0].attempts == 1


def test_loop_malformed_calls_and_retries(two_fixes_run) -> None:
    record, requests, *_ = two_fixes_run
    tools = _tool_messages(record)
    assert "not valid JSON" in tools[0]["content"]
    assert "unknown tool 'run_shell'" in tools[1]["content"]
    assert "view_task" in tools[1]["content"]  # the error lists the real tools
    assert "# Task `bert_small`" in tools[2]["content"]
    assert record.steps[0].tool_errors == 2
    # 429 then 500 before the first answer: two retries, three requests for step 0.
    assert record.steps[0].retries == 2
    assert sum(1 for r in requests if step_of(r) == 0) == 3


def test_trajectory_format(two_fixes_run) -> None:
    record, requests, out, task, _ = two_fixes_run
    line = json.loads((out / TRAJECTORIES).read_text().splitlines()[0])
    assert line["sample_dir"] == str(task.path) and line["messages"] == record.messages
    roles = [m["role"] for m in record.messages]
    assert roles[:2] == ["system", "user"]
    # Every tool call is answered by one tool message with its id, in order.
    for i, m in enumerate(record.messages):
        if m["role"] == "assistant" and m.get("tool_calls"):
            ids = [c["id"] for c in m["tool_calls"]]
            answers = record.messages[i + 1 : i + 1 + len(ids)]
            assert [a["tool_call_id"] for a in answers] == ids
    assert record.prompt_tokens == sum(s.usage.prompt_tokens for s in record.steps) > 0
    assert record.completion_tokens > 0
    assert all(e.result is not None for e in record.evaluations)
    assert record.config.api_key_env == KEY_ENV and API_KEY not in (out / TRAJECTORIES).read_text()


def test_replay_reproduces_final_score(two_fixes_run, tmp_path: Path) -> None:
    record, *_ = two_fixes_run
    replayed, report = replay_attempt(record, tmp_path / "replay")
    assert report.same_score and report.same_files and report.same_messages, report
    assert replayed.final_AS == record.final_AS
    assert replayed.stop_reason == "finish"


# -- best snapshot, budgets (scripted model, fake evaluator: no measurement) ---------------


def _fake_result(task: Task, pass_dir: Path) -> TaskResult:
    text = (pass_dir / "Rule.py").read_text() if (pass_dir / "Rule.py").is_file() else ""
    score = float(text.split("score ")[1]) if "score " in text else 0.1
    variants = [
        VariantResult(graph=v.graph, dtype=v.dtype, status=Status.OK, speedup=score)
        for v in task.variants
    ]
    env = Environment(
        device="cpu", device_name="fake", torch="-", triton=None, python="-", platform="-"
    )
    return TaskResult(
        task=str(task.path),
        candidate=CandidateSpec(kind="pass", pass_dir=str(pass_dir)),
        parameters=FAST,
        environment=env,
        scores=Scores(
            AS=score,
            ES={},
            S={},
            fast_p=0.0,
            subgraph_correct_rate=1.0,
            gmean_speedup_correct=score,
        ),
        task_correct=True,
        variants=variants,
        wall_seconds=0.0,
    )


class CountingEvaluator:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, task: Task, pass_dir: Path) -> TaskResult:
        self.calls += 1
        return _fake_result(task, pass_dir)


def _rule(score: float) -> tuple[str, str]:
    return call(
        "file_editor", {"command": "create", "path": "Rule.py", "file_text": f"# score {score}\n"}
    )


@pytest.fixture(scope="module")
def tiny_task(tmp_path_factory: pytest.TempPathFactory) -> Task:
    return small_task(tmp_path_factory.mktemp("tiny") / "task", ("float32",), "tiny")


def _attempt(task: Task, script, work: Path, budget: Budget | None = None):
    evaluator = CountingEvaluator()
    with ScriptedServer(script) as server:
        config = AgentConfig(
            backend="openai",
            generate=gen_config(server.url),
            budget=budget or Budget(),
            parameters=FAST,
        )
        spec = AttemptSpec(task, "tiny", 0, work)
        record = run_attempt(spec, config, OpenAIBackend(), evaluator)
    return record, evaluator, server


def test_best_snapshot_rule(tiny_task: Task, tmp_path: Path) -> None:
    script = [
        reply(None, [_rule(0.9), call("pass_evaluator")]),
        reply(None, [call("pass_evaluator")]),  # unchanged: cached, not re-measured
        reply(None, [_rule(0.3), call("pass_evaluator")]),
        reply(None, [_rule(0.2), call("finish")]),  # never evaluated: scored at the end
    ]
    record, evaluator, _ = _attempt(tiny_task, script, tmp_path / "a")
    assert [e.AS for e in record.evaluations] == [0.9, 0.9, 0.3, 0.2]
    assert [e.cached for e in record.evaluations] == [False, True, False, False]
    assert [e.step for e in record.evaluations] == [0, 1, 2, -1]
    assert evaluator.calls == 3
    assert record.final_AS == 0.9 and record.best_evaluation == 0
    assert record.final_files == {"Rule.py": "# score 0.9\n"}
    assert record.last_files == {"Rule.py": "# score 0.2\n"}
    assert (tmp_path / "a" / "best" / "Rule.py").read_text() == "# score 0.9\n"
    feedback = _tool_messages(record)[4]["content"]
    assert feedback.startswith("AS = 0.3000 (best so far 0.9000, correct)")


def test_budgets_stop_the_attempt(tiny_task: Task, tmp_path: Path) -> None:
    record, evaluator, _ = _attempt(
        tiny_task, [reply(None, [call("view_task")])], tmp_path / "s", Budget(max_steps=3)
    )
    assert record.stop_reason == "max_steps" and len(record.steps) == 3
    notes = [m["content"] for m in _tool_messages(record) if "turn(s) left" in m["content"]]
    assert len(notes) == 2 and "[1 turn(s) left" in notes[-1]
    assert evaluator.calls == 1 and record.evaluations[0].step == -1  # the empty folder
    record, _, _ = _attempt(tiny_task, [reply("I think...")], tmp_path / "i")
    assert record.stop_reason == "no_tool_calls" and len(record.steps) == 3
    assert sum("no tool call" in str(m["content"]) for m in record.messages) == 3


def test_context_overflow_stops_attempt(tiny_task: Task, tmp_path: Path) -> None:
    faults = [Fault(400, message="This model's maximum context length is 32768 tokens")]
    evaluator = CountingEvaluator()
    with ScriptedServer([reply(None, [call("finish")])], faults) as server:
        config = AgentConfig(backend="openai", generate=gen_config(server.url))
        record = run_attempt(
            AttemptSpec(tiny_task, "tiny", 0, tmp_path), config, OpenAIBackend(), evaluator
        )
    assert record.stop_reason == "context_length" and record.steps == []


def test_concurrent_attempts_share_one_device(tmp_path: Path, monkeypatch) -> None:
    """Attempts run side by side (their LLM calls overlap); evaluations on one device never do."""
    tasks = [small_task(tmp_path / name, ("float32",), name) for name in ("c1", "c2")]
    lock = threading.Lock()
    active = {"llm": 0, "eval": 0}
    peak = {"llm": 0, "eval": 0}

    overlapped = threading.Event()

    def track(kind: str, seconds: float) -> None:
        with lock:
            active[kind] += 1
            peak[kind] = max(peak[kind], active[kind])
            if kind == "llm" and active[kind] >= 2:
                overlapped.set()
        if kind == "llm":
            # Wait (bounded) for a second call to arrive: concurrent attempts make one arrive
            # at once; serialised calls never would. Deterministic on a loaded machine.
            overlapped.wait(timeout=10)
        time.sleep(seconds)
        with lock:
            active[kind] -= 1

    def fake_evaluate_task(task, candidate, *, device, parameters, prepare_ahead=1):  # noqa: ANN001, ANN202
        track("eval", 0.2)
        return _fake_result(task, Path(candidate.pass_dir))

    monkeypatch.setattr("passnet.evaluation.devices.evaluate_task", fake_evaluate_task)
    script = [reply(None, [_rule(0.5), call("pass_evaluator")]), reply(None, [call("finish")])]
    with ScriptedServer(script, gate=lambda body, step: track("llm", 0.3)) as server:
        config = AgentConfig(backend="openai", generate=gen_config(server.url), parameters=FAST)
        backend, pool = OpenAIBackend(), DevicePool(["cpu"], FAST)
        plan = RunPlan(
            tasks=tasks,
            config=config,
            out=tmp_path / "run",
            attempts=2,
            concurrency=4,
            make_backend=lambda spec: backend,
            make_evaluator=lambda spec: pool,
        )
        summary = run_agent(plan)
    assert not summary.errors, summary.errors
    assert peak["llm"] >= 2 and peak["eval"] == 1
    rows = [(t.task, t.attempts, t.best_AS, t.mean_AS) for t in summary.tasks]
    assert rows == [("c1", 2, 0.5, 0.5), ("c2", 2, 0.5, 0.5)]
    work_dirs = {r.task_name + str(r.attempt) for r in read_trajectories(plan.out / TRAJECTORIES)}
    assert work_dirs == {"c10", "c11", "c20", "c21"}
    assert (plan.out / "attempts" / "c2" / "1" / "best" / "Rule.py").is_file()


# -- backends ------------------------------------------------------------------------------

MESSAGES = [{"role": "user", "content": "hi"}]


def test_openai_backend_retries_429_500_and_timeout() -> None:
    faults = [Fault(429, retry_after="0"), Fault(500), Fault(200, delay_s=2.0)]
    with ScriptedServer([reply("hello")], faults) as server:
        backend = OpenAIBackend()
        completion = backend.generate(MESSAGES, [], gen_config(server.url, timeout_s=0.5))
        assert completion.content == "hello" and completion.retries == 3
        assert completion.usage.prompt_tokens and completion.usage.completion_tokens
        assert len(server.requests) == 4


def test_openai_backend_gives_up_after_retries() -> None:
    with ScriptedServer([reply("hello")], [Fault(503)] * 3) as server:
        with pytest.raises(LLMUnavailable, match="HTTP 503"):
            OpenAIBackend().generate(MESSAGES, [], gen_config(server.url, max_retries=2))


def test_openai_backend_clear_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedServer([reply("hello")]) as server:
        with pytest.raises(LLMConfigError, match="unknown-model.*not found.*It serves: scripted"):
            OpenAIBackend().generate(MESSAGES, [], gen_config(server.url, model="unknown-model"))
        monkeypatch.setenv(KEY_ENV, "wrong")
        with pytest.raises(LLMConfigError, match=f"rejected the API key.*{KEY_ENV}"):
            OpenAIBackend().generate(MESSAGES, [], gen_config(server.url))
        context = [Fault(400, message="maximum context length exceeded")]
    with ScriptedServer([reply("x")], context) as server:
        monkeypatch.setenv(KEY_ENV, API_KEY)
        with pytest.raises(ContextLengthExceeded):
            OpenAIBackend().generate(MESSAGES, [], gen_config(server.url))
    t0 = time.monotonic()
    with pytest.raises(LLMConfigError, match="cannot reach"):
        OpenAIBackend().generate(MESSAGES, [], gen_config("http://127.0.0.1:9/v1"))
    assert time.monotonic() - t0 < 10  # no retry storm on a server that never answered
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY is not set"):
        OpenAIBackend().generate(MESSAGES, [], GenerateConfig(model="gpt-x"))


def test_backend_registry_lists_known_names() -> None:
    with pytest.raises(LLMConfigError, match="known: anthropic, hf, openai, replay"):
        get_backend("vertex")


def test_cli_bad_key_is_one_clear_paragraph(
    tiny_task: Task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from passnet.cli import app

    monkeypatch.setenv(KEY_ENV, "wrong")
    with ScriptedServer([reply("x")]) as server:
        result = CliRunner().invoke(
            app,
            [
                "agent",
                "run",
                str(tiny_task.path),
                "--model",
                MODEL,
                "--base-url",
                server.url,
                "--api-key-env",
                KEY_ENV,
                "--out",
                str(tmp_path / "run"),
                "--attempts",
                "3",
                "--concurrency",
                "1",
            ],
        )
    assert result.exit_code == 2, result.output
    assert "rejected the API key" in result.output and "Traceback" not in result.output
    assert read_trajectories(tmp_path / "run" / TRAJECTORIES) == []


# -- the CLI: two tasks, killed after the first attempt, resumed, replayed ---------------


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "passnet.cli", *args]


def test_cli_run_kill_resume_replay(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    small_task(suite / "a_f32", ("float32",), "a_f32")
    small_task(suite / "b_f16", ("float16",), "b_f16")
    script = [
        reply(
            None,
            [
                RULES,
                call(
                    "file_editor",
                    {"command": "create", "path": "FuseAddLayerNorm.py", "file_text": CORRECT},
                ),
                call("pass_evaluator"),
            ],
        ),
        reply("Done.", [call("finish")]),
    ]
    second_started, release = threading.Event(), threading.Event()
    starts: list[str] = []

    def gate(body: dict, step: int) -> None:
        if step == 0:
            starts.append(body["messages"][1]["content"].splitlines()[0])
            if len(starts) == 2:
                second_started.set()
                release.wait(120)

    out = tmp_path / "run"
    env = {**os.environ, KEY_ENV: API_KEY, "TRITON_INTERPRET": "1"}
    with ScriptedServer(script, gate=gate) as server:
        args = _cli(
            "agent",
            "run",
            str(suite),
            "--model",
            MODEL,
            "--base-url",
            server.url,
            "--api-key-env",
            KEY_ENV,
            "--out",
            str(out),
            "--concurrency",
            "1",
            "--warmup",
            "1",
            "--trials",
            "3",
        )
        proc = subprocess.Popen(
            args,
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            assert second_started.wait(180), "the second attempt never started"
            lines = (out / TRAJECTORIES).read_text().splitlines()
            assert len(lines) == 1  # the first attempt finished and was recorded
            os.killpg(proc.pid, signal.SIGKILL)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        first_line = lines[0]
        with open(out / TRAJECTORIES, "a") as f:
            f.write('{"sample_dir": "torn by the kill", "mess')  # a write cut short
        release.set()
        starts.clear()
        done = subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    assert starts == ["# Task `b_f16`"]  # only the unfinished attempt ran again
    lines = (out / TRAJECTORIES).read_text().splitlines()
    assert len(lines) == 2 and lines[0] == first_line
    records = read_trajectories(out / TRAJECTORIES)
    assert sorted(r.key for r in records) == [("a_f32", 0), ("b_f16", 0)]
    assert all(r.stop_reason == "finish" and r.final_AS for r in records)
    assert "best@k AS" in done.stdout and "mean AS" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert [t["task"] for t in summary["tasks"]] == ["a_f32", "b_f16"]
    replay = subprocess.run(
        _cli("agent", "replay", str(out / TRAJECTORIES), "--out", str(tmp_path / "replay")),
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert replay.stdout.count("files same; messages same") == 2


def test_cli_task_prompt_and_submit(tiny_task: Task, tmp_path: Path) -> None:
    from passnet.cli import app

    result = CliRunner().invoke(app, ["task", "prompt", str(tiny_task.path)])
    assert result.exit_code == 0, result.output
    assert "## The pass contract" in result.output and "passnet task submit" in result.output
    assert "# Task `tiny`" in result.output and "[1, 12, 128]" in result.output
    pass_dir = tmp_path / "mine"
    pass_dir.mkdir()
    (pass_dir / "sorted_output_pass_rule_names.json").write_text('["FuseAddLayerNorm"]')
    (pass_dir / "FuseAddLayerNorm.py").write_text(CORRECT.replace(GOOD_KERNEL, BAD_KERNEL))
    result = CliRunner().invoke(
        app,
        ["task", "submit", str(tiny_task.path), str(pass_dir), "--warmup", "1", "--trials", "3"],
    )
    assert result.exit_code == 1, result.output  # ran, not correct (test_agent_reliability.py)
    assert "AS = " in result.output and "incorrect" in result.output
