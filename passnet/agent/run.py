"""Many tasks x k attempts: LLM calls concurrent, evaluations serialised per device, resumable.

A run folder::

    runs/agent/<id>/
      run.json                     what was asked (model, budget, parameters, tasks)
      trajectories.jsonl           one AttemptRecord per finished attempt
      summary.json                 best@k and mean AS per task
      attempts/<task>/<k>/
        pass_dir/                  the attempt's working pass folder (never the task's)
        snapshots/<hash>/          every evaluated state of it
        best/                      the best snapshot: what is scored
        checkpoint.json            the attempt so far (stop_reason "running")

Rerunning with the same ``--out`` skips finished attempts (those with a JSONL line) and
restarts unfinished ones from scratch.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

from pydantic import BaseModel, Field

from passnet.agent.llm import Backend, LLMError
from passnet.agent.loop import AgentConfig, AttemptCancelled, AttemptSpec, run_attempt
from passnet.agent.prompting import prompt_hash
from passnet.agent.tools import Evaluator
from passnet.agent.trajectory import (
    TRAJECTORIES,
    AttemptRecord,
    TrajectoryWriter,
    write_json_atomic,
)
from passnet.dataset.task import Task


class RunError(Exception):
    """A run folder or suite that cannot be used; the message says how to fix it."""


def load_suite(path: Path | str) -> list[Task]:
    """The tasks of SUITE, read as ``passnet bench`` reads it (a task folder or a folder of
    task folders)."""
    from passnet.dataset.suite import load_suite as load_bench_suite

    return [t.task for t in load_bench_suite(path).tasks]


def task_names(tasks: list[Task]) -> list[str]:
    """Unique, path-safe names for the tasks of a suite."""
    names: list[str] = []
    for task in tasks:
        base = "".join(c if c.isalnum() or c in "-_." else "_" for c in task.name) or "task"
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}_{n}"
        names.append(name)
    return names


class TaskSummary(BaseModel):
    task: str
    attempts: int
    best_AS: float | None = Field(
        description="best@k: the AS of the best attempt (correct on every variant first, then AS)"
    )
    best_attempt: int | None = None
    best_correct: bool = Field(default=False, description="the best attempt is correct")
    mean_AS: float | None
    first_AS_mean: float | None = Field(description="mean AS of each attempt's first evaluation")
    task_correct: int = Field(description="attempts whose best snapshot is correct everywhere")
    mean_steps: float
    stop_reasons: dict[str, int]
    tokens: int
    cost_usd: float | None = None


class RunSummary(BaseModel):
    run_id: str
    model: str
    backend: str
    tasks: list[TaskSummary]
    mean_best_AS: float | None = Field(description="mean over tasks of best@k AS")
    mean_AS: float | None = Field(description="mean over tasks of the mean attempt AS")
    attempts_finished: int
    errors: list[str] = Field(default_factory=list)


def summarize(
    records: list[AttemptRecord], names: list[str], config: AgentConfig, errors: list[str]
) -> RunSummary:
    rows = []
    for name in names:
        mine = sorted((r for r in records if r.task_name == name), key=lambda r: r.attempt)
        scores = [r.final_AS for r in mine if r.final_AS is not None]
        best = max((r for r in mine if r.final_AS is not None), key=lambda r: r.rank, default=None)
        firsts = [r.first_AS for r in mine if r.first_AS is not None]
        reasons: dict[str, int] = {}
        for r in mine:
            reasons[r.stop_reason] = reasons.get(r.stop_reason, 0) + 1
        costs = [r.cost_usd for r in mine if r.cost_usd is not None]
        rows.append(
            TaskSummary(
                task=name,
                attempts=len(mine),
                best_AS=best.final_AS if best else None,
                best_attempt=best.attempt if best else None,
                best_correct=best.final_correct if best else False,
                mean_AS=mean(scores) if scores else None,
                first_AS_mean=mean(firsts) if firsts else None,
                task_correct=sum(r.final_correct for r in mine),
                mean_steps=mean(len(r.steps) for r in mine) if mine else 0.0,
                stop_reasons=reasons,
                tokens=sum(r.prompt_tokens + r.completion_tokens for r in mine),
                cost_usd=sum(costs) if costs else None,
            )
        )
    bests = [t.best_AS for t in rows if t.best_AS is not None]
    means = [t.mean_AS for t in rows if t.mean_AS is not None]
    return RunSummary(
        run_id=config.run_id,
        model=config.generate.model,
        backend=config.backend,
        tasks=rows,
        mean_best_AS=mean(bests) if bests else None,
        mean_AS=mean(means) if means else None,
        attempts_finished=sum(t.attempts for t in rows),
        errors=errors,
    )


_MANIFEST_KEYS = ("backend", "model", "budget", "parameters", "prompt_hash")
"""What a resumed run must share with the original (a server may move: base_url may change)."""


def _manifest(config: AgentConfig, tasks: list[Task], names: list[str]) -> dict:
    params = config.parameters.model_dump(mode="json")
    return {
        "run_id": config.run_id,
        "backend": config.backend,
        "model": config.generate.model,
        "base_url": config.generate.base_url,
        "generate": config.generate.model_dump(mode="json"),
        "budget": config.budget.model_dump(mode="json"),
        "parameters": params,
        "device": config.device,
        "prompt_hash": prompt_hash(),
        "tasks": {n: str(t.path) for n, t in zip(names, tasks, strict=True)},
    }


def check_manifest(out: Path, manifest: dict) -> None:
    """Refuse to resume a run folder that was started with a different setup."""
    path = out / "run.json"
    if path.is_file():
        import json

        old = json.loads(path.read_text(encoding="utf-8"))
        diff = [k for k in _MANIFEST_KEYS if old.get(k) != manifest.get(k)]
        if diff:
            raise RunError(
                f"{out} holds a run with a different {', '.join(diff)}; resume it with the "
                "same options, or pass a new --out."
            )
        manifest = {**manifest, "tasks": {**old.get("tasks", {}), **manifest["tasks"]}}
        manifest["run_id"] = old.get("run_id", manifest["run_id"])
    write_json_atomic(path, manifest)


@dataclass
class RunPlan:
    """What to run: tasks x attempts, the model and evaluator per attempt, where to write."""

    tasks: list[Task]
    config: AgentConfig
    out: Path
    make_backend: Callable[[AttemptSpec], Backend]
    make_evaluator: Callable[[AttemptSpec], Evaluator]
    attempts: int = 1
    concurrency: int = 4
    on_event: Callable[[str, AttemptSpec, AttemptRecord | None], None] | None = None
    """Called with "start", "done" (with the record) or "error" for each attempt."""
    names: list[str] = field(default_factory=list)


def run_agent(plan: RunPlan) -> RunSummary:
    """Run every pending (task, attempt) of the plan; raise the first fatal LLM error."""
    out = plan.out
    out.mkdir(parents=True, exist_ok=True)
    names = plan.names or task_names(plan.tasks)
    check_manifest(out, _manifest(plan.config, plan.tasks, names))
    writer = TrajectoryWriter(out / TRAJECTORIES)
    done = writer.finished()
    specs = [
        AttemptSpec(task, name, k, out / "attempts" / name / str(k))
        for k in range(plan.attempts)
        for task, name in zip(plan.tasks, names, strict=True)
        if (name, k) not in done
    ]
    cancel = threading.Event()
    errors: list[str] = []
    fatal: list[LLMError] = []
    emit = plan.on_event or (lambda *a: None)

    def one(spec: AttemptSpec) -> AttemptRecord:
        emit("start", spec, None)

        def checkpoint(record: AttemptRecord) -> None:
            write_json_atomic(spec.work_dir / "checkpoint.json", record.model_dump(mode="json"))

        record = run_attempt(
            spec,
            plan.config,
            plan.make_backend(spec),
            plan.make_evaluator(spec),
            checkpoint=checkpoint,
            cancel=cancel,
        )
        writer.append(record)
        (spec.work_dir / "checkpoint.json").unlink(missing_ok=True)
        emit("done", spec, record)
        return record

    with ThreadPoolExecutor(max_workers=max(1, plan.concurrency)) as pool:
        futures: dict[Future, AttemptSpec] = {pool.submit(one, s): s for s in specs}
        pending = set(futures)
        while pending:
            try:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            except KeyboardInterrupt:
                cancel.set()  # running attempts stop after their current turn, unrecorded
                for f in pending:
                    f.cancel()
                raise
            for fut in finished:
                spec = futures[fut]
                if fut.cancelled():
                    continue
                exc = fut.exception()
                if exc is None or isinstance(exc, AttemptCancelled):
                    continue
                where = f"{spec.task_name} attempt {spec.attempt}"
                if isinstance(exc, LLMError):
                    fatal.append(exc)
                    cancel.set()  # the same error would hit every attempt
                    for f in pending:
                        f.cancel()
                else:
                    text = "".join(traceback.format_exception(exc))
                    errors.append(f"{where}: {type(exc).__name__}: {exc}\n{text}")
                emit("error", spec, None)
    summary = summarize(list(writer.finished().values()), names, plan.config, errors)
    write_json_atomic(out / "summary.json", summary.model_dump(mode="json"))
    if fatal:
        raise fatal[0]
    return summary
