"""Replay a recorded attempt: its assistant turns drive the real loop again.

By default the evaluator answers from the recording, looked up by the content hash of the
evaluated files, so a faithful trajectory reproduces its final score exactly; a replay whose
files drift from the recording fails loudly. With a live evaluator the same pass files are
measured again (statuses should agree; timings move with noise).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from passnet.agent.loop import AgentConfig, AttemptSpec, run_attempt
from passnet.agent.replay_backend import ReplayBackend
from passnet.agent.tools import Evaluator
from passnet.agent.trajectory import AttemptRecord, folder_hash
from passnet.core.results import TaskResult
from passnet.dataset.task import Task, load_task


class ReplayDiverged(Exception):
    """The replay produced pass files the recording never evaluated."""


class RecordedEvaluator:
    """An Evaluator that returns the recording's result for the same files."""

    def __init__(self, record: AttemptRecord) -> None:
        self._results = {e.snapshot: e.result for e in record.evaluations if e.result}

    def __call__(self, task: Task, pass_dir: Path) -> TaskResult:
        digest = folder_hash(pass_dir)
        if digest not in self._results:
            raise ReplayDiverged(
                f"replayed files (hash {digest[:16]}) were never evaluated in the recording"
            )
        return self._results[digest]


class ReplayReport(BaseModel):
    task_name: str
    attempt: int
    recorded_AS: float | None
    replayed_AS: float | None
    recorded_stop: str
    replayed_stop: str
    same_score: bool
    same_files: bool
    same_messages: bool
    first_difference: str = ""


def _first_difference(a: list[dict], b: list[dict]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"message {i} ({x.get('role')}): {str(x.get('content'))[:160]!r} != {str(y.get('content'))[:160]!r}"
    if len(a) != len(b):
        return f"{len(a)} recorded messages, {len(b)} replayed"
    return ""


def replay_attempt(
    record: AttemptRecord,
    work_dir: Path,
    task: Task | None = None,
    evaluator: Evaluator | None = None,
) -> tuple[AttemptRecord, ReplayReport]:
    """Run the recorded turns again in ``work_dir`` and compare with the recording."""
    task = task or load_task(record.sample_dir)
    budget = record.budget.model_copy(update={"max_wall_s": None})
    config = AgentConfig(
        backend="replay",
        generate=record.config,
        budget=budget,
        parameters=record.parameters,
        device=record.device,
        run_id=record.run_id,
    )
    backend = ReplayBackend(record.messages, [s.usage for s in record.steps])
    spec = AttemptSpec(task, record.task_name, record.attempt, work_dir)
    replayed = run_attempt(spec, config, backend, evaluator or RecordedEvaluator(record))
    live = evaluator is not None
    same_messages = replayed.messages == record.messages
    report = ReplayReport(
        task_name=record.task_name,
        attempt=record.attempt,
        recorded_AS=record.final_AS,
        replayed_AS=replayed.final_AS,
        recorded_stop=record.stop_reason,
        replayed_stop=replayed.stop_reason,
        same_score=replayed.final_AS == record.final_AS,
        same_files=replayed.final_files == record.final_files
        and replayed.last_files == record.last_files,
        same_messages=same_messages,
        first_difference=""
        if same_messages or live
        else _first_difference(record.messages, replayed.messages),
    )
    return replayed, report
