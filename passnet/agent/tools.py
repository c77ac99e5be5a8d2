"""The model's tools: schemas (OpenAI function format) and their dispatch.

``view_task`` shows the task, ``file_editor`` edits the attempt's pass folder (and nothing
else), ``pass_evaluator`` evaluates a snapshot of that folder and returns compact feedback,
``finish`` ends the attempt. Every problem with a call — arguments that are not JSON, an
unknown tool, a bad path, a missing argument — comes back as an error message for the model;
the run goes on.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from passnet.agent.editor import EditorError, PassFolderEditor
from passnet.agent.feedback import format_feedback
from passnet.agent.llm import ToolCall
from passnet.agent.prompting import graph_detail, task_statement
from passnet.agent.trajectory import EvaluationRecord, folder_hash, strip_samples
from passnet.core.results import TaskResult
from passnet.dataset.task import Task

Evaluator = Callable[[Task, Path], TaskResult]
"""Evaluates the pass folder at the given path on every variant of the task."""


def _fn(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


TOOLS: list[dict[str, Any]] = [
    _fn(
        "view_task",
        "Show the task: every graph's input shapes and dtypes and its model.py. With `graph` "
        "(a graph path as listed in the task), that graph's code and input statistics.",
        {"graph": {"type": "string", "description": "optional graph path, e.g. graphs/..."}},
        [],
    ),
    _fn(
        "file_editor",
        "View, create and edit files in your pass folder (paths relative to it). `view` shows "
        "a file with line numbers or lists a folder; `create` writes file_text; `str_replace` "
        "replaces old_str (which must occur exactly once) with new_str; `insert` adds new_str "
        "after line insert_line (0 = top).",
        {
            "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert"]},
            "path": {"type": "string", "description": "e.g. FuseAddLayerNorm.py or ."},
            "file_text": {"type": "string", "description": "create: the file's content"},
            "old_str": {"type": "string", "description": "str_replace: exact text to replace"},
            "new_str": {"type": "string", "description": "str_replace/insert: the new text"},
            "insert_line": {"type": "integer", "description": "insert: after this line"},
            "view_range": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "view: [start, end] lines, end -1 = end of file",
            },
        },
        ["command", "path"],
    ),
    _fn(
        "pass_evaluator",
        "Evaluate your pass folder on every graph of the task: match status per graph (with "
        "the closest partial match when a rule matched nothing), correctness and the strictest "
        "tolerance passed, speedup over eager, and the task score AS.",
        {},
        [],
    ),
    _fn(
        "finish",
        "End your attempt. The best evaluated version of your pass folder is scored: one "
        "correct on every graph beats any that is not, then the higher AS wins.",
        {"summary": {"type": "string", "description": "optional: what you did"}},
        [],
    ),
]
TOOL_NAMES = [t["function"]["name"] for t in TOOLS]


class ToolError(Exception):
    """A recoverable problem with a tool call; its message goes back to the model."""


@dataclass
class ToolResult:
    content: str
    is_error: bool = False
    finished: bool = False
    evaluation: EvaluationRecord | None = None
    seconds: float = 0.0


@dataclass
class ToolEnv:
    """What one attempt's tools act on: the task, its pass folder, its snapshots."""

    task: Task
    pass_dir: Path
    snapshots_dir: Path
    evaluate: Evaluator
    evaluations: list[EvaluationRecord] = field(default_factory=list)
    _results: dict[str, tuple[int, TaskResult]] = field(default_factory=dict)
    best: int | None = None  # index into evaluations

    def __post_init__(self) -> None:
        self.pass_dir.mkdir(parents=True, exist_ok=True)
        self.editor = PassFolderEditor(self.pass_dir)

    @property
    def best_record(self) -> EvaluationRecord | None:
        return self.evaluations[self.best] if self.best is not None else None

    # -- dispatch -------------------------------------------------------------------------

    def dispatch(self, call: ToolCall, step: int) -> ToolResult:
        """Run one tool call; never raises for the model's mistakes."""
        t0 = time.perf_counter()
        try:
            args = parse_arguments(call)
            handler = getattr(self, f"_tool_{call.name}", None)
            if call.name not in TOOL_NAMES or handler is None:
                raise ToolError(
                    f"unknown tool {call.name!r}; the tools are: {', '.join(TOOL_NAMES)}"
                )
            result = handler(args, step)
        except (ToolError, EditorError) as exc:
            result = ToolResult(content=f"error: {exc}", is_error=True)
        result.seconds = time.perf_counter() - t0
        return result

    def _tool_view_task(self, args: dict, step: int) -> ToolResult:
        graph = args.get("graph")
        if graph in (None, ""):
            files = sorted(
                p.relative_to(self.pass_dir).as_posix()
                for p in self.pass_dir.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts
            )
            return ToolResult(task_statement(self.task, files))
        graphs = [v.graph for v in self.task.variants]
        if graph not in graphs:
            raise ToolError(f"no graph {graph!r} in this task; graphs: {', '.join(graphs)}")
        return ToolResult(graph_detail(self.task, str(graph)))

    def _tool_file_editor(self, args: dict, step: int) -> ToolResult:
        command = _arg(args, "command", str)
        path = _arg(args, "path", str, required=False)
        ed = self.editor
        if command == "view":
            return ToolResult(ed.view(path, args.get("view_range")))
        if command == "create":
            return ToolResult(ed.create(path, _arg(args, "file_text", str)))
        if command == "str_replace":
            new_str = _arg(args, "new_str", str, required=False) or ""
            return ToolResult(ed.str_replace(path, _arg(args, "old_str", str), new_str))
        if command == "insert":
            text = args.get("new_str", args.get("insert_text"))
            if not isinstance(text, str):
                raise ToolError("insert needs new_str (the text to insert)")
            return ToolResult(ed.insert(path, _arg(args, "insert_line", int), text))
        raise ToolError(f"unknown command {command!r}; use view, create, str_replace or insert")

    def _tool_pass_evaluator(self, args: dict, step: int) -> ToolResult:
        record, feedback = self.evaluate_snapshot(step)
        return ToolResult(feedback, evaluation=record)

    def _tool_finish(self, args: dict, step: int) -> ToolResult:
        best = self.best_record
        tail = f" The best evaluated snapshot has AS = {best.AS:.4f}." if best else ""
        return ToolResult("Finished." + tail, finished=True)

    # -- evaluation and snapshots ---------------------------------------------------------

    def evaluate_snapshot(self, step: int) -> tuple[EvaluationRecord, str]:
        """Evaluate a frozen copy of the pass folder (cached by content), track the best."""
        digest = folder_hash(self.pass_dir)
        if digest in self._results:
            first, result = self._results[digest]
            prior = self.evaluations[first]
            record = prior.model_copy(update={"step": step, "cached": True, "result": None})
            note = (
                f"(files unchanged since the evaluation at step {prior.step}: same result, "
                "not re-measured)"
            )
        else:
            snapshot = self.snapshots_dir / digest[:16]
            if not snapshot.exists():
                shutil.copytree(
                    self.pass_dir, snapshot, ignore=shutil.ignore_patterns("__pycache__")
                )
            t0 = time.perf_counter()
            result = self.evaluate(self.task, snapshot)
            statuses = Counter(v.status.value for v in result.variants)
            record = EvaluationRecord(
                step=step,
                snapshot=digest,
                snapshot_dir=snapshot.relative_to(self.snapshots_dir.parent).as_posix(),
                AS=result.scores.AS,
                statuses=dict(statuses),
                seconds=time.perf_counter() - t0,
                result=strip_samples(result),
            )
            self._results[digest] = (len(self.evaluations), result)
            note = ""
        self.evaluations.append(record)
        best = self.best_record
        if best is None or record.rank > best.rank:  # correct everywhere first, then AS
            self.best, best = len(self.evaluations) - 1, record
        return record, format_feedback(result, best.AS, note, best_correct=best.correct)


def _arg(args: dict, name: str, kind: type, required: bool = True) -> Any:
    value = args.get(name)
    if value is None:
        if required:
            raise ToolError(f"missing argument {name!r}")
        return None
    if kind is int and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ToolError(f"argument {name!r} must be a {kind.__name__}, not {type(value).__name__}")
    return value


def parse_arguments(call: ToolCall) -> dict[str, Any]:
    """A call's JSON arguments as a dict, or a ToolError saying what is wrong."""
    if not call.name:
        raise ToolError(
            "a tool call without a tool name (unparsable call: "
            f"{call.arguments[:200]!r}); the tools are: {', '.join(TOOL_NAMES)}"
        )
    raw = call.arguments.strip() if call.arguments else ""
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolError(
            f"the arguments of {call.name} are not valid JSON ({exc.msg} at line {exc.lineno} "
            f'column {exc.colno}); send one JSON object, strings escaped (\\n, \\")'
        ) from exc
    if not isinstance(value, dict):
        raise ToolError(f"the arguments of {call.name} must be a JSON object, not {value!r:.80}")
    return value
