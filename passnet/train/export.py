"""Trajectories to a chat fine-tuning dataset (the messages format TRL and chat templates read).

Each kept ``AttemptRecord`` (an agent run's or the synthesizer's) becomes one row::

    {"messages": [system, user, assistant (tool_calls with arguments as objects),
                  tool (with the tool's name), ...],
     "tools": [the tool schemas], "task": ..., "source": ..., "final_AS": ..., ...}

Kept: ``final_AS > min_as`` (upstream's SFT filter, 0.1) and, unless asked otherwise, the best
snapshot correct on every graph (an incorrect pass still scores ~0.147 under AS, so the score
alone keeps failures: docs/agent.md). Identical conversations are kept once. Tasks of the
evaluation suites given are refused (``LeakError``) or dropped; a validation split is cut by
task, so no task is on both sides.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from passnet.agent.trajectory import TRAJECTORIES, AttemptRecord, read_trajectories
from passnet.train.leak import LeakError, find_leaks, leak_message, suite_fingerprint

MANIFEST = "manifest.json"
SPLITS = ("train", "validation")


class ExportError(Exception):
    """Input that cannot become a dataset (no records, nothing kept); the message says why."""


@dataclass
class ExportReport:
    """What went in, what was dropped and why, what was written."""

    records: int = 0
    kept: dict[str, int] = field(default_factory=dict)  # split -> rows
    dropped: Counter = field(default_factory=Counter)  # reason -> records
    tasks: dict[str, list[str]] = field(default_factory=dict)  # split -> task names
    leaks: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def read_records(paths: list[Path]) -> list[AttemptRecord]:
    """Records of trajectories.jsonl files, AttemptRecord JSON files, or folders holding a
    trajectories.jsonl (an agent run folder, a ``passnet synth`` output folder)."""
    records: list[AttemptRecord] = []
    for path in paths:
        target = path / TRAJECTORIES if path.is_dir() else path
        if not target.is_file():
            raise ExportError(f"{path}: no {TRAJECTORIES} (nor a trajectory file)")
        found = read_trajectories(target)
        if not found:
            raise ExportError(f"{target}: no valid trajectory record")
        records += found
    return records


def _arguments(raw: Any) -> Any:
    """Tool-call arguments as an object (chat templates render them with ``tojson``)."""
    if not isinstance(raw, str):
        return raw
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return raw  # the model wrote broken JSON: train on what it wrote
    return value if isinstance(value, dict) else raw


def chat_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-format messages as chat templates want them: arguments as objects, tool replies
    named after their call, nothing after the last assistant turn (nothing to learn there)."""
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for m in messages:
        msg: dict[str, Any] = {"role": m["role"], "content": m.get("content") or ""}
        if m.get("reasoning_content"):
            msg["reasoning_content"] = m["reasoning_content"]
        if m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                fn = c.get("function", {})
                names[c.get("id", "")] = fn.get("name", "")
                calls.append({"id": c.get("id", ""), "type": "function",
                              "function": {"name": fn.get("name", ""),
                                           "arguments": _arguments(fn.get("arguments"))}})  # fmt: skip
            msg["tool_calls"] = calls
        if m["role"] == "tool":
            msg["tool_call_id"] = m.get("tool_call_id", "")
            msg["name"] = names.get(msg["tool_call_id"], "")
        out.append(msg)
    last = max((i for i, m in enumerate(out) if m["role"] == "assistant"), default=-1)
    return out[: last + 1]


def conversation_hash(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    """Identity of a conversation for dedup (ids of tool calls included: they are trained)."""
    text = json.dumps([messages, tools], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def to_row(record: AttemptRecord) -> dict[str, Any]:
    """One dataset row: the conversation, its tools and where it came from."""
    messages = chat_messages(record.messages)
    return {
        "messages": messages,
        "tools": record.tools,
        "task": record.task_name,
        "source": record.backend,
        "model": record.config.model,
        "run_id": record.run_id,
        "attempt": record.attempt,
        "final_AS": record.final_AS,
        "final_correct": record.final_correct,
        "stop_reason": record.stop_reason,
        "conversation_hash": conversation_hash(messages, record.tools),
    }


def keep_reason(record: AttemptRecord, min_as: float, correct_only: bool) -> str | None:
    """Why the record is dropped, or None to keep it."""
    if not any(m.get("role") == "assistant" for m in record.messages):
        return "no assistant turn"
    if record.final_AS is None or record.final_AS <= min_as:
        return f"final_AS <= {min_as}"
    if correct_only and not record.final_correct:
        return "not correct on every graph"
    return None


def split_by_task(
    rows: list[dict[str, Any]], val_fraction: float, seed: int
) -> dict[str, list[dict[str, Any]]]:
    """Train and validation rows, whole tasks on one side (a seeded shuffle of task names)."""
    tasks = sorted({r["task"] for r in rows})
    random.Random(seed).shuffle(tasks)
    n_val = round(val_fraction * len(tasks))
    if val_fraction > 0 and len(tasks) > 1:
        n_val = min(max(n_val, 1), len(tasks) - 1)
    val = set(tasks[:n_val])
    return {
        "train": [r for r in rows if r["task"] not in val],
        "validation": [r for r in rows if r["task"] in val],
    }


def chat_features() -> Any:
    """Arrow schema: messages and tools as JSON objects, so tool-call arguments keep their own
    keys (a struct column would add every other call's keys as nulls)."""
    from datasets import Features, Json, List, Value

    return Features(
        {
            "messages": List(Json()),
            "tools": List(Json()),
            "task": Value("string"),
            "source": Value("string"),
            "model": Value("string"),
            "run_id": Value("string"),
            "attempt": Value("int64"),
            "final_AS": Value("float64"),
            "final_correct": Value("bool"),
            "stop_reason": Value("string"),
            "conversation_hash": Value("string"),
        }
    )


def write_dataset(splits: dict[str, list[dict[str, Any]]], out: Path) -> list[str]:
    """``out`` as a ``datasets`` folder (``load_from_disk``) plus one JSONL per split."""
    from datasets import Dataset, DatasetDict

    out.mkdir(parents=True, exist_ok=True)
    features = chat_features()
    kept = {k: v for k, v in splits.items() if v or k == "train"}
    DatasetDict({k: Dataset.from_list(v, features=features) for k, v in kept.items()}).save_to_disk(
        str(out)
    )
    files = [str(out / "dataset_dict.json")]
    for name, rows in kept.items():
        path = out / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        files.append(str(path))
    return files


def export_dataset(
    paths: list[Path],
    out: Path,
    min_as: float = 0.1,
    correct_only: bool = True,
    exclude_suites: list[Path] | None = None,
    drop_leaks: bool = False,
    val_fraction: float = 0.0,
    seed: int = 0,
) -> ExportReport:
    """Read, filter, dedup, leak-check, split and write; see the module docstring."""
    records = read_records(paths)
    report = ExportReport(records=len(records))
    kept: list[AttemptRecord] = []
    for record in records:
        reason = keep_reason(record, min_as, correct_only)
        if reason:
            report.dropped[reason] += 1
        else:
            kept.append(record)
    suites = [suite_fingerprint(s) for s in exclude_suites or []]
    leaks = find_leaks(kept, suites)
    if leaks:
        report.leaks = sorted({str(x) for found in leaks.values() for x in found})
        if not drop_leaks:
            raise LeakError(leak_message(leaks))
        report.dropped["task of an evaluation suite"] += len(leaks)
        kept = [r for i, r in enumerate(kept) if i not in leaks]
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for record in kept:
        row = to_row(record)
        if row["conversation_hash"] in seen:
            report.dropped["duplicate conversation"] += 1
            continue
        seen.add(row["conversation_hash"])
        rows.append(row)
    if not rows:
        why = ", ".join(f"{n} {r}" for r, n in report.dropped.items()) or "no records"
        raise ExportError(f"no record left to train on ({why})")
    splits = split_by_task(rows, val_fraction, seed)
    report.kept = {k: len(v) for k, v in splits.items()}
    report.tasks = {k: sorted({r["task"] for r in v}) for k, v in splits.items()}
    report.files = write_dataset(splits, out)
    manifest = {
        "inputs": [str(p) for p in paths],
        "filters": {"min_AS": min_as, "correct_only": correct_only},
        "excluded_suites": [str(fp.path) for fp in suites],
        "val_fraction": val_fraction,
        "seed": seed,
        "records": report.records,
        "dropped": dict(report.dropped),
        "rows": report.kept,
        "tasks": report.tasks,
        "leaks_dropped": report.leaks,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    report.files.append(str(out / MANIFEST))
    return report


def load_chat_dataset(path: Path, split: str = "train") -> Any:
    """A split of an exported folder, or a JSONL file of rows, as a ``datasets.Dataset``."""
    from datasets import Dataset, DatasetDict, load_from_disk

    if path.is_file():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        return Dataset.from_list(rows, features=chat_features())
    if not path.is_dir():
        raise ExportError(f"{path}: no such dataset folder or JSONL file")
    try:
        data = load_from_disk(str(path))
    except FileNotFoundError as exc:
        raise ExportError(
            f"{path}: not a dataset folder written by `passnet train export`"
        ) from exc
    if isinstance(data, DatasetDict):
        if split not in data:
            raise ExportError(f"{path}: no {split!r} split (has {', '.join(data)})")
        return data[split]
    return data
