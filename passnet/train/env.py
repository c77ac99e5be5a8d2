"""A Gymnasium environment over PassBench tasks: the agent's loop, one turn per ``step``.

``reset`` picks a task (``options={"task": name}``, else the next in a seeded order) and gives
the system prompt and task statement; ``step`` takes one assistant turn (the model's raw text
with Hermes ``<tool_call>`` blocks, a dict ``{"name", "arguments"}``, or a list of them), runs
its tool calls with the agent's own tools (``view_task``, ``file_editor``, ``pass_evaluator``,
``finish``) and returns the tool replies. The episode ends at ``finish`` (terminated) or when
the step budget is spent (truncated); the last files are then evaluated if they never were,
and the final reward is the best snapshot's score (``score_result``). Intermediate steps give
0, so the return of an episode is its score, as for an agent attempt.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import gymnasium as gym

from passnet.agent.hf_backend import parse_tool_calls
from passnet.agent.llm import Completion, ToolCall
from passnet.agent.loop import AttemptState, dispatch_turn
from passnet.agent.prompting import initial_messages
from passnet.agent.tools import TOOLS, Evaluator, ToolEnv
from passnet.agent.trajectory import Budget, folder_hash
from passnet.core.results import Parameters, TaskResult
from passnet.dataset.task import Task
from passnet.train.reward import score_result

MAX_TEXT = 1 << 20


def _calls(action: Any, step: int) -> tuple[str | None, list[ToolCall]]:
    """An action as (content, tool calls)."""
    if isinstance(action, str):
        content, _, calls = parse_tool_calls(action, f"env{step}")
        return content, calls
    items = action if isinstance(action, list) else [action]
    calls = []
    for i, item in enumerate(items):
        if isinstance(item, ToolCall):
            calls.append(item)
            continue
        fn = item.get("function", item)
        args = fn.get("arguments", {})
        calls.append(ToolCall(id=f"call_env{step}_{i}", name=str(fn.get("name", "")),
                              arguments=args if isinstance(args, str) else json.dumps(args)))  # fmt: skip
    return None, calls


class PassBenchEnv(gym.Env):
    """One task per episode; see the module docstring. Observations and actions are text."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        tasks: list[Task],
        evaluator: Evaluator | None = None,
        max_steps: int = 50,
        device: str = "cpu",
        parameters: Parameters | None = None,
        integrity_penalty: float = 1.0,
        work_dir: Path | None = None,
    ) -> None:
        if not tasks:
            raise ValueError("PassBenchEnv needs at least one task")
        self.tasks = {t.name: t for t in tasks}
        if evaluator is None:
            from passnet.core.results import default_parameters
            from passnet.evaluation.devices import DevicePool

            evaluator = DevicePool([device], parameters or default_parameters(device))
        self.evaluate = evaluator
        self.budget = Budget(max_steps=max_steps, max_context_tokens=None)
        self.device, self.integrity_penalty = device, integrity_penalty
        self.b = (parameters or Parameters()).b
        self.action_space = gym.spaces.Text(MAX_TEXT)
        self.observation_space = gym.spaces.Text(MAX_TEXT)
        self._root = Path(work_dir or tempfile.mkdtemp(prefix="passnet-env-"))
        self._episode = 0
        self._order: list[str] = []
        self.tool_env: ToolEnv | None = None
        self.state: AttemptState | None = None
        self.task: Task | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation so far (OpenAI format, as in a trajectory record)."""
        return self.state.messages if self.state else []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        name = (options or {}).get("task")
        if name is None:
            if not self._order or seed is not None:
                self._order = sorted(self.tasks)
                random.Random(seed).shuffle(self._order)
            name = self._order.pop(0)
        if name not in self.tasks:
            raise KeyError(f"no task {name!r}; tasks: {', '.join(sorted(self.tasks))}")
        self.task = self.tasks[name]
        self._episode += 1
        work = self._root / f"episode-{self._episode}"
        shutil.rmtree(work, ignore_errors=True)
        self.tool_env = ToolEnv(self.task, work / "pass_dir", work / "snapshots", self.evaluate)
        self.state = AttemptState(initial_messages(self.task, self.budget.max_steps, self.b,
                                                   self.device))  # fmt: skip
        obs = "\n\n".join(m["content"] for m in self.state.messages)
        return obs, {"task": name, "messages": self.messages, "tools": TOOLS}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.state is None or self.tool_env is None:
            raise RuntimeError("call reset() before step()")
        step = len(self.state.steps)
        content, calls = _calls(action, step)
        completion = Completion(content=content, tool_calls=calls)
        self.state.messages.append(completion.message())
        start = len(self.state.messages)
        terminated = dispatch_turn(self.tool_env, completion, self.state, self.budget)
        truncated = not terminated and len(self.state.steps) >= self.budget.max_steps
        obs = "\n\n".join(m["content"] for m in self.state.messages[start:])
        info: dict[str, Any] = {"task": self.task.name if self.task else None,
                                "messages": self.messages}  # fmt: skip
        reward = 0.0
        if terminated or truncated:
            reward, info["score"] = self.final_score()
        return obs, reward, terminated, truncated, info

    def final_score(self) -> tuple[float, dict[str, Any]]:
        """Evaluate the last files if never evaluated; the best snapshot's reward and details."""
        env = self.tool_env
        assert env is not None
        if folder_hash(env.pass_dir) not in {e.snapshot for e in env.evaluations}:
            env.evaluate_snapshot(step=-1)
        best = env.best_record
        result: TaskResult | None = env._results[best.snapshot][1] if best else None
        if result is None:
            return 0.0, {"AS": None, "correct": False, "findings": 0}
        return score_result(result, self.integrity_penalty)

    def close(self) -> None:
        shutil.rmtree(self._root, ignore_errors=True)
