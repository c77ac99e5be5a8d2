"""Rewards for RL: the evaluator's AS, minus a penalty for integrity findings.

``score_result`` is the reward of one evaluated pass: its AS, less ``penalty`` times the share
of graphs the integrity defences caught (a fatal finding, or a pass the static policy
rejected), so a pass that games the harness scores below an honest failure. ``PassReward``
is a reward function with the signature TRL's ``GRPOTrainer`` calls
(``prompts, completions, **dataset columns -> list[float]``): each completion is one
assistant turn that writes a pass folder with ``file_editor`` calls (Hermes ``<tool_call>``
blocks); the folders are evaluated concurrently in passnet's sandboxed worker processes.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from passnet.agent.editor import EditorError, PassFolderEditor
from passnet.agent.hf_backend import parse_tool_calls
from passnet.agent.tools import Evaluator
from passnet.core.results import Parameters, Status, TaskResult
from passnet.dataset.task import Task, TaskError, load_task
from passnet.passes.loader import RULES_FILE


def caught(result: TaskResult) -> int:
    """Graphs whose pass the integrity defences caught (fatal finding or policy rejection)."""
    return sum(
        v.status == Status.REJECTED or any(f.fatal for f in v.integrity) for v in result.variants
    )


def score_result(result: TaskResult, penalty: float = 1.0) -> tuple[float, dict[str, Any]]:
    """Reward of one evaluated pass and what it is made of."""
    n = max(1, len(result.variants))
    bad = caught(result)
    correct = bool(result.variants) and all(v.status == Status.OK for v in result.variants)
    reward = result.scores.AS - penalty * bad / n
    return reward, {"AS": result.scores.AS, "correct": correct, "findings": bad}


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or a list of chat messages (conversational)."""
    if isinstance(completion, str):
        return completion
    parts = []
    for m in completion or []:
        parts.append(str(m.get("content") or ""))
        for c in m.get("tool_calls") or []:
            fn = c.get("function", c)
            args = fn.get("arguments", {})
            args = args if isinstance(args, str) else json.dumps(args)
            parts.append(
                f'<tool_call>{{"name": "{fn.get("name", "")}", "arguments": {args}}}</tool_call>'
            )
    return "\n".join(parts)


def write_pass(text: str, folder: Path) -> int:
    """Apply the completion's ``file_editor`` calls to ``folder``; how many succeeded."""
    _, _, calls = parse_tool_calls(text, "reward")
    editor = PassFolderEditor(folder)
    done = 0
    for call in calls:
        if call.name != "file_editor":
            continue
        try:
            args = json.loads(call.arguments or "{}")
            command, path = args.get("command"), args.get("path")
            if command == "create":
                editor.create(path, args["file_text"])
            elif command == "str_replace":
                editor.str_replace(path, args["old_str"], args.get("new_str") or "")
            elif command == "insert":
                editor.insert(path, int(args["insert_line"]), args["new_str"])
            else:
                continue
            done += 1
        except (EditorError, KeyError, TypeError, ValueError, AttributeError):
            continue
    return done


class PassReward:
    """``reward(prompts, completions, task=[...]) -> list[float]`` for TRL's GRPOTrainer.

    ``task`` (a dataset column) names each row's task folder, or a name of ``tasks``. A
    completion that writes no rule list scores ``empty_reward`` without being evaluated."""

    def __init__(
        self,
        tasks: list[Task] | None = None,
        evaluator: Evaluator | None = None,
        device: str = "cpu",
        parameters: Parameters | None = None,
        concurrency: int = 4,
        penalty: float = 1.0,
        empty_reward: float = 0.0,
    ) -> None:
        if evaluator is None:
            from passnet.core.results import default_parameters
            from passnet.evaluation.devices import DevicePool

            devices = device.split(",")
            evaluator = DevicePool(devices, parameters or default_parameters(devices[0]))
        self.evaluate = evaluator
        self.tasks = {t.name: t for t in tasks or []}
        self.concurrency, self.penalty, self.empty_reward = concurrency, penalty, empty_reward
        self.__name__ = "passnet_AS"  # TRL logs each reward function under its name
        self.last: list[dict[str, Any]] = []

    def _task(self, ref: Any) -> Task:
        if isinstance(ref, Task):
            return ref
        if str(ref) in self.tasks:
            return self.tasks[str(ref)]
        try:
            task = load_task(ref)
        except TaskError as exc:
            raise ValueError(f"reward: unknown task {ref!r}: {exc}") from exc
        self.tasks[task.name] = task
        return task

    def _one(self, task: Task, text: str) -> tuple[float, dict[str, Any]]:
        with tempfile.TemporaryDirectory(prefix="passnet-reward-") as tmp:
            folder = Path(tmp) / "pass"
            folder.mkdir()
            write_pass(text, folder)
            if not (folder / RULES_FILE).is_file():
                return self.empty_reward, {"AS": None, "correct": False, "findings": 0,
                                           "note": f"no {RULES_FILE} written"}  # fmt: skip
            result = self.evaluate(task, folder)
            shutil.rmtree(folder, ignore_errors=True)
            return score_result(result, self.penalty)

    def __call__(
        self, prompts: list[Any] | None = None, completions: list[Any] | None = None, **kwargs: Any
    ) -> list[float]:
        completions = completions or []
        refs = kwargs.get("task")
        if refs is None:
            if len(self.tasks) != 1:
                raise ValueError("reward: give each row's task (a `task` dataset column)")
            refs = list(self.tasks) * len(completions)
        tasks = [self._task(r) for r in refs]
        texts = [completion_text(c) for c in completions]
        with ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool:
            scored = list(pool.map(self._one, tasks, texts))
        self.last = [detail for _, detail in scored]
        return [float(r) for r, _ in scored]


def grpo_rows(tasks: list[Task], device: str = "cpu", b: float = 0.1) -> list[dict[str, Any]]:
    """A GRPO prompt per task (conversational): the agent's system prompt and the task
    statement, answered in one turn that writes the pass; ``task`` is what ``PassReward`` reads."""
    from passnet.agent.prompting import initial_messages

    return [{"prompt": initial_messages(t, 1, b, device), "task": str(t.path)} for t in tasks]
