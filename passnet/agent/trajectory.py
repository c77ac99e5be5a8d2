"""Typed trajectories: one JSONL line per finished attempt, plus a checkpoint per running one.

Each line is an :class:`AttemptRecord`: upstream's ``{"sample_dir", "messages"}`` (OpenAI
message format, tool calls included) plus what training and analysis need: every evaluator
result, per-step tokens and timings, the stop reason, the best snapshot, its pass files and AS.
A killed run loses nothing finished: lines are appended whole and fsync'ed; a torn last line is
cut off on the next open; attempts without a line restart from scratch.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, computed_field

from passnet.agent.llm import GenerateConfig, Usage
from passnet.core.results import Parameters, Status, TaskResult
from passnet.dataset.suite import ignored
from passnet.scores.metrics import rank_key

SCHEMA_VERSION = 1
TRAJECTORIES = "trajectories.jsonl"


class Budget(BaseModel):
    """When an attempt stops if the model never calls ``finish`` (upstream: 50 steps)."""

    max_steps: int = 50
    max_context_tokens: int | None = Field(
        default=131072, description="stop once one turn's prompt + completion reaches this"
    )
    max_total_tokens: int | None = Field(default=None, description="sum over all turns")
    max_wall_s: float | None = None
    max_idle_turns: int = Field(default=3, description="turns in a row without a tool call")


class EvaluationRecord(BaseModel):
    """One ``pass_evaluator`` call (or the final evaluation of unevaluated last files)."""

    step: int = Field(description="turn that asked for it; -1 for the final evaluation")
    snapshot: str = Field(description="SHA-256 of the pass folder's files")
    snapshot_dir: str = Field(description="copy of the evaluated files, relative to the attempt")
    AS: float
    statuses: dict[str, int]
    cached: bool = Field(default=False, description="same files as an earlier evaluation")
    seconds: float = 0.0
    result: TaskResult | None = Field(
        default=None, description="the evaluator's result (timing samples dropped); None if cached"
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def correct(self) -> bool:
        """Correct on every variant (all statuses ok): the task_correct of the result."""
        return bool(self.statuses) and set(self.statuses) == {Status.OK.value}

    @property
    def rank(self) -> tuple[bool, float]:
        """Correct first, then AS (``rank_key``): how the best snapshot is chosen."""
        return rank_key(self.correct, self.AS)


class StepRecord(BaseModel):
    step: int
    llm_seconds: float
    retries: int = 0
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    tool_calls: list[str] = Field(default_factory=list)
    tool_errors: int = 0
    tool_seconds: float = 0.0


class AttemptRecord(BaseModel):
    schema_version: int = SCHEMA_VERSION
    sample_dir: str = Field(description="the task folder (upstream field name)")
    messages: list[dict[str, Any]]
    task_name: str
    attempt: int
    run_id: str = ""
    backend: str
    config: GenerateConfig
    budget: Budget
    parameters: Parameters
    device: str
    tools: list[dict[str, Any]] = Field(default_factory=list)
    steps: list[StepRecord] = Field(default_factory=list)
    evaluations: list[EvaluationRecord] = Field(default_factory=list)
    stop_reason: str
    best_evaluation: int | None = Field(
        default=None, description="index into evaluations of the best snapshot"
    )
    final_AS: float | None = Field(description="AS of the best snapshot: the attempt's score")
    first_AS: float | None = None
    final_files: dict[str, str] = Field(
        default_factory=dict, description="the best snapshot's files (what is scored)"
    )
    last_files: dict[str, str] = Field(default_factory=dict, description="files when it stopped")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    wall_seconds: float = 0.0
    llm_seconds: float = 0.0
    eval_seconds: float = 0.0
    started_at: str = ""
    finished_at: str = ""
    passnet_version: str = ""

    @property
    def key(self) -> tuple[str, int]:
        return (self.task_name, self.attempt)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def final_correct(self) -> bool:
        """The best snapshot is correct on every variant: a successful attempt."""
        if self.best_evaluation is None or self.best_evaluation >= len(self.evaluations):
            return False
        return self.evaluations[self.best_evaluation].correct

    @property
    def rank(self) -> tuple[bool, float]:
        """Correct first, then AS (``rank_key``): how the best of k attempts is chosen."""
        return rank_key(self.final_correct, self.final_AS)


def training_records(records: list[AttemptRecord]) -> list[AttemptRecord]:
    """The records to fine-tune on: the successful ones, whose best snapshot is correct on
    every variant (``final_correct``). Not upstream's ``final_AS > 0.1``: an incorrect pass
    scores ~0.147 (relieved from t = 1 on), so that filter keeps failures, and on CPU it drops
    correct passes whose interpreter timings scored ~0.0004 before timings there were neutral."""
    return [r for r in records if r.final_correct]


def strip_samples(result: TaskResult) -> TaskResult:
    """The result without per-call timing samples (medians and spreads stay)."""
    data = result.model_dump(mode="json")
    for v in data["variants"]:
        for side in ("reference", "candidate"):
            for kind in ("wall", "cuda_event"):
                if v.get(side) and v[side].get(kind):
                    v[side][kind]["samples_us"] = []
    return TaskResult.model_validate(data)


def folder_files(folder: Path) -> dict[str, str]:
    """Text of every file below ``folder`` (caches and hidden files skipped), by relative path."""
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and not path.is_symlink() and not ignored(rel):
            out[rel.as_posix()] = path.read_bytes().decode("utf-8", errors="replace")
    return out


def folder_hash(folder: Path) -> str:
    """Content hash of a pass folder: file names and bytes (caches and hidden files skipped)."""
    h = hashlib.sha256()
    if folder.is_dir():
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if path.is_file() and not path.is_symlink() and not ignored(rel):
                h.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON through a temporary file and rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    os.replace(tmp, path)


def read_trajectories(path: Path) -> list[AttemptRecord]:
    """Every complete record of a JSONL file; a torn or invalid line is skipped."""
    records = []
    if not path.is_file():
        return records
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            records.append(AttemptRecord.model_validate_json(line))
        except ValidationError:
            continue
    return records


class TrajectoryWriter:
    """Appends finished attempts to ``trajectories.jsonl``; thread-safe, crash-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._repair()

    def _repair(self) -> None:
        """Cut a torn last line (a kill during a write) so the next line starts clean."""
        if not self.path.is_file():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(self.path, "r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)

    def finished(self) -> dict[tuple[str, int], AttemptRecord]:
        return {r.key: r for r in read_trajectories(self.path)}

    def append(self, record: AttemptRecord) -> None:
        line = record.model_dump_json() + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
