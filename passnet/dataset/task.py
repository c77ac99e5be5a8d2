"""PassNet task folders (SPEC section 3): graphs that one pass set must handle.

A task folder holds ``graph_list.txt`` (one graph folder per line, relative to the task folder),
``sample_uids.txt``, the graphs under ``graphs/`` and an empty ``pass_dir/`` for the answer.
:func:`load_task` also accepts a single graph folder or any folder of graph folders, so a pass
can be tried on whatever a user points it at.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from passnet.core.bundled import missing_hint
from passnet.graph.sample import SampleError, graph_hash, load_sample

GRAPH_LIST = "graph_list.txt"
SAMPLE_UIDS = "sample_uids.txt"
TASK_JSON = "task.json"
"""Optional ``{"name": ...}``; written by :func:`write_task` when a name is given."""

_SKIP_DIRS = {"pass_dir", "__pycache__"}


class TaskError(Exception):
    """A task folder that cannot be read or written; the message names the file and line."""


@dataclass(frozen=True)
class Variant:
    """One graph of a task: ``graph`` as listed, ``path`` the absolute folder."""

    graph: str
    path: Path
    dtype: str


@dataclass
class Task:
    """A named set of graph variants plus the folder where the pass answer goes."""

    path: Path
    name: str
    variants: list[Variant]

    @property
    def pass_dir(self) -> Path:
        return self.path / "pass_dir"


def _variant(graph: str, folder: Path, where: str) -> Variant:
    if not (folder / "model.py").is_file():
        raise TaskError(f"{where}: {graph!r} has no model.py (looked in {folder})")
    try:
        sample = load_sample(folder)
    except SampleError as e:
        raise TaskError(f"{where}: {graph!r} is not a readable sample: {e}") from e
    return Variant(graph=graph, path=sample.path, dtype=sample.dtype)


def _from_graph_list(folder: Path) -> list[Variant]:
    list_path = folder / GRAPH_LIST
    variants = []
    for number, raw in enumerate(list_path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{list_path}, line {number}"
        variants.append(_variant(line, (folder / line).resolve(), where))
    if not variants:
        raise TaskError(f"{list_path}: lists no graph")
    return variants


def _graph_folders(folder: Path) -> list[Path]:
    found = []
    for model in folder.rglob("model.py"):
        parts = model.relative_to(folder).parts[:-1]
        if not any(p in _SKIP_DIRS or p.startswith(".") for p in parts):
            found.append(model.parent)
    return sorted(found, key=lambda p: p.relative_to(folder).as_posix())


def _task_name(folder: Path) -> str:
    info = folder / TASK_JSON
    if info.is_file():
        try:
            name = json.loads(info.read_text(encoding="utf-8")).get("name")
        except (json.JSONDecodeError, AttributeError) as e:
            raise TaskError(f"{info}: not a JSON object with a name: {e}") from e
        if name:
            return str(name)
    return folder.name


def load_task(path: Path | str) -> Task:
    """A task from a task folder, a single graph folder, or any folder of graph folders."""
    folder = Path(path).resolve()
    if not folder.is_dir():
        raise TaskError(f"{folder}: no such task folder{missing_hint(path)}")
    if (folder / GRAPH_LIST).is_file():
        variants = _from_graph_list(folder)
    elif (folder / "model.py").is_file():
        variants = [_variant(".", folder, str(folder))]
    else:
        graphs = _graph_folders(folder)
        if not graphs:
            raise TaskError(f"{folder}: no {GRAPH_LIST}, no model.py, and no graph folder below")
        variants = [_variant(g.relative_to(folder).as_posix(), g, str(folder)) for g in graphs]
    return Task(path=folder, name=_task_name(folder), variants=variants)


def _uid(folder: Path) -> str:
    hash_file = folder / "graph_hash.txt"
    if hash_file.is_file() and hash_file.read_text(encoding="utf-8").strip():
        return hash_file.read_text(encoding="utf-8").strip()
    return graph_hash((folder / "model.py").read_text(encoding="utf-8"))


def write_task(path: Path | str, samples: list[Path], name: str | None = None) -> Task:
    """Copy samples into a new task folder in upstream layout and read it back.

    Each sample's files (not its subfolders) go to ``graphs/<dtype>/<index>_<basename>/``.
    """
    folder = Path(path)
    if folder.exists() and any(folder.iterdir()):
        raise TaskError(f"{folder}: exists and is not empty")
    if not samples:
        raise TaskError(f"{folder}: a task needs at least one graph")
    loaded = []
    for index, source in enumerate(samples):  # all checked before anything is written
        try:
            loaded.append(load_sample(source))
        except SampleError as e:
            raise TaskError(f"{folder}: sample {index} ({source}) is not readable: {e}") from e
    entries, uids = [], []
    for index, sample in enumerate(loaded):
        rel = f"graphs/{sample.dtype}/{index}_{sample.path.name}"
        target = folder / rel
        target.mkdir(parents=True)
        for item in sample.path.iterdir():
            if item.is_file():
                shutil.copy2(item, target / item.name)
        entries.append(rel)
        uids.append(_uid(sample.path))
    (folder / GRAPH_LIST).write_text("\n".join(entries) + "\n", encoding="utf-8")
    (folder / SAMPLE_UIDS).write_text("\n".join(uids) + "\n", encoding="utf-8")
    (folder / "pass_dir").mkdir()
    if name:
        (folder / TASK_JSON).write_text(json.dumps({"name": name}) + "\n", encoding="utf-8")
    return load_task(folder)
