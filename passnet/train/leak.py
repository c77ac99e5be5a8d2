"""Leak check: no task of an evaluation suite may reach the training set.

A training conversation leaks a suite task when it names the task (task name or folder name)
or shows one of its graphs. Graphs are matched by the upstream graph hash (SHA-256 of the
model.py text, stripped, as the prompt shows it): the hashes of the record's task folder
when it is still on disk, and of every fenced ``python`` block of the conversation, so a
renamed task or a moved folder is still caught.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from passnet.agent.trajectory import AttemptRecord
from passnet.dataset.suite import SuiteError, load_suite
from passnet.dataset.task import TaskError, load_task
from passnet.graph.meta import SampleError
from passnet.graph.sample import graph_hash, load_sample

_CODE_BLOCK = re.compile(r"```python\n(.*?)\n```", re.DOTALL)


class LeakError(Exception):
    """Training data that contains a task of an evaluation suite; the message lists them."""


@dataclass
class SuiteFingerprint:
    """What identifies a suite's tasks: their names and their graphs' hashes."""

    path: Path
    names: dict[str, str] = field(default_factory=dict)  # task or folder name -> task name
    hashes: dict[str, str] = field(default_factory=dict)  # graph hash -> task name


@dataclass(frozen=True)
class Leak:
    task: str  # the training record's task
    suite: str
    suite_task: str
    how: str  # "task name" or "graph <hash prefix>"

    def __str__(self) -> str:
        return f"{self.task} is {self.suite}/{self.suite_task} (same {self.how})"


def code_hash(code: str) -> str:
    """The graph hash of a model.py text, whitespace at its ends ignored (as prompted)."""
    return graph_hash(code.strip())


def task_graph_hashes(folder: Path | str) -> set[str]:
    """Graph hashes of a task folder's variants; empty when it cannot be read."""
    try:
        task = load_task(folder)
        return {code_hash(load_sample(v.path).code) for v in task.variants}
    except (TaskError, SampleError, OSError):
        return set()


def suite_fingerprint(path: Path | str) -> SuiteFingerprint:
    """Names and graph hashes of every task of a suite folder (or of one task folder)."""
    try:
        suite = load_suite(path)
    except SuiteError as exc:
        raise LeakError(f"cannot read the evaluation suite: {exc}") from exc
    fp = SuiteFingerprint(path=suite.path)
    for st in suite.tasks:
        fp.names[st.name] = st.name
        fp.names[st.task.path.name] = st.name
        for sv in st.variants:
            fp.hashes[code_hash(load_sample(sv.variant.path).code)] = st.name
    return fp


def conversation_hashes(messages: list[dict[str, Any]]) -> set[str]:
    """Graph hashes of the model.py blocks shown to the model (user and tool messages)."""
    out: set[str] = set()
    for m in messages:
        content = m.get("content")
        if m.get("role") in ("user", "tool") and isinstance(content, str):
            out |= {code_hash(block) for block in _CODE_BLOCK.findall(content)}
    return out


def record_graph_hashes(record: AttemptRecord) -> set[str]:
    """Every graph the record's task has or its conversation shows."""
    return task_graph_hashes(record.sample_dir) | conversation_hashes(record.messages)


def find_leaks(
    records: list[AttemptRecord], suites: list[SuiteFingerprint]
) -> dict[int, list[Leak]]:
    """Index of each leaking record -> how it leaks (empty when nothing leaks)."""
    leaks: dict[int, list[Leak]] = {}
    for i, record in enumerate(records):
        hashes = record_graph_hashes(record) if suites else set()
        names = {record.task_name, Path(record.sample_dir).name}
        for fp in suites:
            found = [
                Leak(record.task_name, fp.path.name, fp.names[n], "task name")
                for n in sorted(names)
                if n in fp.names
            ]
            found += [
                Leak(record.task_name, fp.path.name, fp.hashes[h], f"graph {h[:12]}")
                for h in sorted(hashes)
                if h in fp.hashes
            ]
            if found:
                leaks.setdefault(i, []).extend(found)
    return leaks


def leak_message(leaks: dict[int, list[Leak]], limit: int = 10) -> str:
    """One paragraph naming the leaking tasks, for the error."""
    seen = sorted({str(leak) for found in leaks.values() for leak in found})
    shown = "; ".join(seen[:limit]) + (
        f"; and {len(seen) - limit} more" if len(seen) > limit else ""
    )
    return (
        f"{len(leaks)} trajectory record(s) are of tasks of an evaluation suite: {shown}. "
        "Training on them would leak the evaluation; remove those runs, or pass --drop-leaks "
        "to leave them out of the dataset."
    )
