"""Reliability of PassAgent and ``passnet task submit`` (issue 11).

A model server that answers 200 with a body that is not a completion is retried like a 5xx
and, after the retry budget, stops the run with one paragraph (a real HTTP server on
127.0.0.1). ``task submit`` tells correct, incorrect, unusable and failed apart by its exit
code (real CLI processes). Wherever a snapshot, an attempt or a training example is picked,
one correct on every variant ranks above any that is not (scripted model, fake evaluator).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from agent_server import MALFORMED_BODIES, MODEL, ScriptedServer, call, malformed, reply
from helpers.agent import BAD_KERNEL, CORRECT, FAST, GOOD_KERNEL, KEY_ENV, gen_config, small_task
from typer.testing import CliRunner

from passnet.agent.llm import GenerateConfig, LLMUnavailable
from passnet.agent.loop import AgentConfig, AttemptSpec, run_attempt
from passnet.agent.openai_backend import OpenAIBackend
from passnet.agent.run import summarize
from passnet.agent.trajectory import AttemptRecord, training_records
from passnet.core.results import (
    CandidateSpec,
    Environment,
    Scores,
    Status,
    TaskResult,
    VariantResult,
)
from passnet.dataset.task import Task

ROOT = Path(__file__).resolve().parents[1]
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_server import API_KEY

    monkeypatch.setenv(KEY_ENV, API_KEY)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Task:
    return small_task(tmp_path_factory.mktemp("tiny") / "task", ("float32",), "tiny")


# -- malformed 200 answers -----------------------------------------------------------------


def test_openai_backend_retries_malformed_200s() -> None:
    faults = [malformed(body) for body in MALFORMED_BODIES.values()]
    faults.append(malformed("<html><body>Sign in</body></html>", "text/html"))
    with ScriptedServer([reply("hello")], faults) as server:
        config = gen_config(server.url, max_retries=len(faults))
        completion = OpenAIBackend().generate(MESSAGES, [], config)
    assert completion.content == "hello" and completion.retries == len(faults)
    assert len(server.requests) == len(faults) + 1


def test_openai_backend_stops_after_malformed_retries() -> None:
    faults = [malformed(MALFORMED_BODIES["invalid JSON"])] * 3
    with ScriptedServer([reply("hello")], faults) as server:
        with pytest.raises(LLMUnavailable) as info:
            OpenAIBackend().generate(MESSAGES, [], gen_config(server.url, max_retries=2))
    text = str(info.value)
    assert "failed 3 time(s) in a row" in text and "--max-retries" in text
    assert "malformed response" in text and "HTTP 200, JSONDecodeError" in text
    assert "OpenAI-compatible API (it usually ends in /v1)" in text
    assert len(server.requests) == 3


def test_cli_malformed_answers_end_the_run_in_one_paragraph(tiny: Task, tmp_path: Path) -> None:
    from passnet.cli import app

    with ScriptedServer([reply("x")], [malformed("{")] * 5) as server:
        result = CliRunner().invoke(
            app,
            ["agent", "run", str(tiny.path), "--model", MODEL, "--base-url", server.url,
             "--api-key-env", KEY_ENV, "--out", str(tmp_path / "run"), "--max-retries", "1"],
        )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "malformed response" in result.output and "Traceback" not in result.output
    assert len(server.requests) == 2


class _Raw:
    """What ``with_raw_response.create`` returns: the body and its parse."""

    def __init__(self, text: str, parsed: object = None, error: Exception | None = None) -> None:
        self.text, self._parsed, self._error = text, parsed, error

    def parse(self) -> object:
        if self._error is not None:
            raise self._error
        return self._parsed


def _fake_anthropic(answers: list[_Raw]) -> SimpleNamespace:
    """The parts of the anthropic SDK the backend uses (the package is optional)."""

    class AnthropicError(Exception):
        pass

    class Client:
        def __init__(self, **kwargs: object) -> None:
            create = lambda **kw: answers.pop(0)  # noqa: E731
            self.messages = SimpleNamespace(with_raw_response=SimpleNamespace(create=create))

    errors = {n: type(n, (AnthropicError,), {}) for n in ("APITimeoutError", "APIConnectionError",
              "APIStatusError", "APIResponseValidationError")}  # fmt: skip
    return SimpleNamespace(AnthropicError=AnthropicError, Anthropic=Client, **errors)


def test_anthropic_backend_retries_malformed_then_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    from passnet.agent import anthropic_backend

    good = SimpleNamespace(
        content=[SimpleNamespace(type="text", text="hello")],
        usage=SimpleNamespace(input_tokens=3, output_tokens=1),
        stop_reason="end_turn",
    )
    bad = [
        _Raw("{", error=json.JSONDecodeError("Expecting value", "{", 1)),
        _Raw("<html>", parsed="<html>"),  # a non-JSON body comes back as text
        _Raw('{"id": 1}', parsed=SimpleNamespace(id=1)),  # no content
    ]
    answers = [*bad, _Raw("ok", parsed=good)]
    monkeypatch.setattr(anthropic_backend, "_import_anthropic", lambda: _fake_anthropic(answers))
    config = GenerateConfig(model="claude", base_url="http://127.0.0.1:9", backoff_s=0.01)
    completion = anthropic_backend.AnthropicBackend().generate(MESSAGES, [], config)
    assert completion.content == "hello" and completion.retries == 3 and not answers
    answers.extend(bad)
    with pytest.raises(LLMUnavailable, match="malformed response.*AttributeError"):
        anthropic_backend.AnthropicBackend().generate(
            MESSAGES, [], config.model_copy(update={"max_retries": 2})
        )


# -- task submit: exit codes ---------------------------------------------------------------


def _submit(task: Task, pass_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    return subprocess.run(
        [sys.executable, "-m", "passnet.cli", "task", "submit", str(task.path), str(pass_dir),
         *extra],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=600,
    )  # fmt: skip


def _pass(folder: Path, source: str) -> Path:
    folder.mkdir()
    (folder / "sorted_output_pass_rule_names.json").write_text('["FuseAddLayerNorm"]')
    (folder / "FuseAddLayerNorm.py").write_text(source)
    return folder


def test_task_submit_exit_codes(tiny: Task, tmp_path: Path) -> None:
    """0 correct, 1 incorrect, 2 usage or input error, 3 not evaluable (docs/agent.md)."""
    ok = _submit(tiny, _pass(tmp_path / "ok", CORRECT))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "correct 1/1" in ok.stdout and "interp" in ok.stdout
    wrong = _submit(tiny, _pass(tmp_path / "wrong", CORRECT.replace(GOOD_KERNEL, BAD_KERNEL)))
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert "incorrect" in wrong.stdout and "incorrect: 1 of 1 graph(s)" in wrong.stderr
    (tmp_path / "empty").mkdir()
    failed = _submit(tiny, tmp_path / "empty")
    assert failed.returncode == 3, failed.stdout + failed.stderr
    assert "failed: 1 of 1 graph(s)" in failed.stderr
    from passnet.cli import app  # usage errors need no process of their own

    submit = ["task", "submit", str(tiny.path)]
    assert CliRunner().invoke(app, [*submit, str(tmp_path / "missing")]).exit_code == 2
    assert (
        CliRunner().invoke(app, [*submit, str(tmp_path / "ok"), "--no-such-option"]).exit_code == 2
    )


# -- correct first: best snapshot, best attempt, training examples -------------------------


def _result(task: Task, pass_dir: Path) -> TaskResult:
    """A fake evaluation: Rule.py says the AS and whether the pass is correct."""
    words = (pass_dir / "Rule.py").read_text().split() if (pass_dir / "Rule.py").is_file() else []
    score = float(words[2]) if len(words) > 2 else 0.1
    ok = "incorrect" not in words
    status = Status.OK if ok else Status.INCORRECT
    variants = [
        VariantResult(graph=v.graph, dtype=v.dtype, status=status, speedup=score if ok else None)
        for v in task.variants
    ]
    env = Environment(device="cpu", device_name="-", torch="-", triton=None, python="-",
                      platform="-")  # fmt: skip
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
            subgraph_correct_rate=float(ok),
            gmean_speedup_correct=None,
        ),
        task_correct=ok,
        variants=variants,
        wall_seconds=0.0,
    )


def _rule(text: str) -> tuple[str, str]:
    args = {"command": "create", "path": "Rule.py", "file_text": f"# score {text}\n"}
    return call("file_editor", args)


def _attempt(task: Task, rules: list[str], work: Path, attempt: int = 0) -> AttemptRecord:
    script = [reply(None, [_rule(r), call("pass_evaluator")]) for r in rules]
    with ScriptedServer([*script, reply(None, [call("finish")])]) as server:
        config = AgentConfig(backend="openai", generate=gen_config(server.url), parameters=FAST)
        spec = AttemptSpec(task, "tiny", attempt, work)
        return run_attempt(spec, config, OpenAIBackend(), _result)


def test_best_snapshot_is_correct_first(tiny: Task, tmp_path: Path) -> None:
    rules = ["0.9 incorrect", "0.3", "0.95 incorrect", "0.5", "0.4"]
    record = _attempt(tiny, rules, tmp_path / "a")
    assert [e.AS for e in record.evaluations] == [0.9, 0.3, 0.95, 0.5, 0.4]
    assert record.best_evaluation == 3 and record.final_AS == 0.5  # not 0.95, incorrect
    assert [e.correct for e in record.evaluations] == [False, True, False, True, True]
    assert record.final_correct
    assert record.final_files == {"Rule.py": "# score 0.5\n"}
    assert (tmp_path / "a" / "best" / "Rule.py").read_text() == "# score 0.5\n"
    feedback = [m["content"] for m in record.messages if m["role"] == "tool"]
    assert feedback[3].startswith("AS = 0.3000 (best so far 0.3000, correct)")
    assert feedback[5].startswith("AS = 0.9500 (best so far 0.3000, correct)")
    line = json.loads(record.model_dump_json())
    assert line["final_correct"] is True and line["evaluations"][0]["correct"] is False


def test_best_attempt_and_training_filter(tiny: Task, tmp_path: Path) -> None:
    correct = _attempt(tiny, ["0.9 incorrect", "0.3"], tmp_path / "a", attempt=0)
    wrong = _attempt(tiny, ["0.147 incorrect"], tmp_path / "b", attempt=1)
    lost = _attempt(tiny, ["0.05"], tmp_path / "c", attempt=2)  # correct, slower than eager
    config = AgentConfig(backend="openai", generate=gen_config("http://127.0.0.1:9/v1"))
    (row,) = summarize([wrong, correct, lost], ["tiny"], config, []).tasks
    assert row.best_AS == 0.3  # not 0.9 (an incorrect snapshot), not 0.147 (an incorrect attempt)
    assert (row.best_attempt, row.best_correct) == (0, True)
    assert (correct.final_AS, correct.final_correct) == (0.3, True)
    assert (wrong.final_AS, wrong.final_correct) == (0.147, False)
    assert row.task_correct == 2 and row.attempts == 3
    (only_wrong,) = summarize([wrong], ["tiny"], config, []).tasks
    assert (only_wrong.best_AS, only_wrong.best_correct) == (0.147, False)
    # the training filter keeps exactly the successful attempts, whatever their AS
    assert training_records([wrong, correct, lost]) == [correct, lost]
    line = AttemptRecord.model_validate_json(wrong.model_dump_json())
    assert line.final_correct is False and training_records([line]) == []
