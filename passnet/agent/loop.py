"""One attempt of the agent on one task: turn, dispatch, stop rule, best snapshot.

    messages = [system: contract + worked example, user: task statement]
    until a stop rule fires:
        turn      the model answers (text and tool calls)
        dispatch  every tool call runs, in order; each answer goes back as a tool message
    final evaluation of the last files if they were never evaluated
    score = AS of the best evaluated snapshot: correct on every variant first, then AS
            (upstream keeps the best AS; a later, worse snapshot never lowers it)

Stop rules: ``finish`` called, or a budget spent (steps, tokens, wall time, turns without a
tool call), or the context overflowing. A fatal LLM error (bad key, server gone) propagates:
the attempt is left unfinished and a resumed run redoes it.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from passnet.agent.llm import Backend, Completion, ContextLengthExceeded, GenerateConfig
from passnet.agent.prompting import initial_messages
from passnet.agent.replay_backend import ReplayExhausted
from passnet.agent.tools import TOOLS, Evaluator, ToolEnv
from passnet.agent.trajectory import AttemptRecord, Budget, StepRecord, folder_files, folder_hash
from passnet.core.results import Parameters
from passnet.dataset.task import Task

NUDGE = (
    "Your last message had no tool call. Use the tools: write your pass with file_editor, "
    "run pass_evaluator, and call finish when you are done."
)


class AttemptCancelled(Exception):
    """The run is stopping (another attempt hit a fatal error, or the user interrupted)."""


class AgentConfig(BaseModel):
    """Everything an attempt needs besides the task, the model and the evaluator."""

    backend: str
    generate: GenerateConfig
    budget: Budget = Budget()
    parameters: Parameters = Parameters()
    device: str = "cpu"
    run_id: str = ""


@dataclass
class AttemptSpec:
    task: Task
    task_name: str
    attempt: int
    work_dir: Path

    @property
    def pass_dir(self) -> Path:
        return self.work_dir / "pass_dir"


@dataclass
class AttemptState:
    messages: list[dict[str, Any]]
    steps: list[StepRecord] = field(default_factory=list)
    idle_turns: int = 0
    t0: float = field(default_factory=time.monotonic)
    started_at: str = field(default_factory=lambda: _now())

    @property
    def total_tokens(self) -> int:
        return sum(s.usage.total_tokens for s in self.steps)

    @property
    def last_context(self) -> int:
        return self.steps[-1].usage.total_tokens if self.steps else 0


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _version() -> str:
    try:
        return metadata.version("passnet")
    except metadata.PackageNotFoundError:
        return ""


def stop_rule(state: AttemptState, budget: Budget) -> str | None:
    """Why the attempt must stop before the next turn, or None."""
    if len(state.steps) >= budget.max_steps:
        return "max_steps"
    if budget.max_total_tokens and state.total_tokens >= budget.max_total_tokens:
        return "max_total_tokens"
    if budget.max_context_tokens and state.last_context >= budget.max_context_tokens:
        return "max_context_tokens"
    if budget.max_wall_s is not None and time.monotonic() - state.t0 >= budget.max_wall_s:
        return "max_wall_time"
    if state.idle_turns >= budget.max_idle_turns:
        return "no_tool_calls"
    return None


def take_turn(backend: Backend, state: AttemptState, config: GenerateConfig) -> Completion:
    """Ask the model once; its message joins the history."""
    completion = backend.generate(state.messages, TOOLS, config)
    state.messages.append(completion.message())
    return completion


def dispatch_turn(
    env: ToolEnv, completion: Completion, state: AttemptState, budget: Budget
) -> bool:
    """Run every tool call of the turn; True when one of them was ``finish``."""
    step = len(state.steps)
    finished, errors, seconds = False, 0, 0.0
    for call in completion.tool_calls:
        result = env.dispatch(call, step)
        finished |= result.finished
        errors += result.is_error
        seconds += result.seconds
        state.messages.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
    left = budget.max_steps - step - 1
    if completion.tool_calls:
        state.idle_turns = 0
        if 0 < left <= 2 and not finished:
            state.messages[-1]["content"] += (
                f"\n[{left} turn(s) left: evaluate your best version and call finish]"
            )
    else:
        state.idle_turns += 1
        state.messages.append({"role": "user", "content": NUDGE})
    state.steps.append(
        StepRecord(
            step=step,
            llm_seconds=completion.latency_s,
            retries=completion.retries,
            usage=completion.usage,
            finish_reason=completion.finish_reason,
            tool_calls=[c.name for c in completion.tool_calls],
            tool_errors=errors,
            tool_seconds=seconds,
        )
    )
    return finished


def build_record(
    spec: AttemptSpec, config: AgentConfig, env: ToolEnv, state: AttemptState, stop_reason: str
) -> AttemptRecord:
    """The attempt as a trajectory record (also used for in-progress checkpoints)."""
    best = env.best_record
    final_files: dict[str, str] = {}
    if best is not None:
        final_files = folder_files(spec.work_dir / best.snapshot_dir)
    costs = [s.usage.cost_usd for s in state.steps if s.usage.cost_usd is not None]
    return AttemptRecord(
        sample_dir=str(spec.task.path),
        messages=state.messages,
        task_name=spec.task_name,
        attempt=spec.attempt,
        run_id=config.run_id,
        backend=config.backend,
        config=config.generate,
        budget=config.budget,
        parameters=config.parameters,
        device=config.device,
        tools=TOOLS,
        steps=state.steps,
        evaluations=env.evaluations,
        stop_reason=stop_reason,
        best_evaluation=env.best,
        final_AS=best.AS if best else None,
        first_AS=env.evaluations[0].AS if env.evaluations else None,
        final_files=final_files,
        last_files=folder_files(spec.pass_dir),
        prompt_tokens=sum(s.usage.prompt_tokens or 0 for s in state.steps),
        completion_tokens=sum(s.usage.completion_tokens or 0 for s in state.steps),
        cost_usd=sum(costs) if costs else None,
        wall_seconds=time.monotonic() - state.t0,
        llm_seconds=sum(s.llm_seconds for s in state.steps),
        eval_seconds=sum(e.seconds for e in env.evaluations if not e.cached),
        started_at=state.started_at,
        finished_at=_now(),
        passnet_version=_version(),
    )


def run_attempt(
    spec: AttemptSpec,
    config: AgentConfig,
    backend: Backend,
    evaluate: Evaluator,
    checkpoint: Callable[[AttemptRecord], None] | None = None,
    cancel: threading.Event | None = None,
) -> AttemptRecord:
    """Run one attempt from a clean work folder to its record (see the module docstring)."""
    if spec.work_dir.exists():
        shutil.rmtree(spec.work_dir)  # an interrupted attempt restarts from scratch
    env = ToolEnv(spec.task, spec.pass_dir, spec.work_dir / "snapshots", evaluate)
    budget = config.budget
    b = config.parameters.b
    state = AttemptState(initial_messages(spec.task, budget.max_steps, b, config.device))
    while (reason := stop_rule(state, budget)) is None:
        if cancel is not None and cancel.is_set():
            raise AttemptCancelled(f"{spec.task_name} attempt {spec.attempt}")
        try:
            completion = take_turn(backend, state, config.generate)
        except ContextLengthExceeded:
            reason = "context_length"
            break
        except ReplayExhausted:
            reason = "replay_end"
            break
        if dispatch_turn(env, completion, state, budget):
            reason = "finish"
            break
        if checkpoint is not None:
            checkpoint(build_record(spec, config, env, state, "running"))
    if folder_hash(spec.pass_dir) not in {e.snapshot for e in env.evaluations}:
        env.evaluate_snapshot(step=-1)  # the last files are a snapshot too
    best = env.best_record
    if best is not None:
        shutil.copytree(spec.work_dir / best.snapshot_dir, spec.work_dir / "best")
    return build_record(spec, config, env, state, reason)
