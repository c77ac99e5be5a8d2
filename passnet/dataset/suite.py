"""Suites (folders of task folders) and the content hashes that key runs and caches.

The candidate side of those keys (which pass or synthesizer, by content) is
``passnet.runner.suite``.

A SUITE is a folder whose subfolders are tasks; a single task folder is a one-task suite.
Identity is by content, never by path: a variant is keyed by the bytes of its graph files,
a pass candidate by the bytes of its pass folder, so editing a pass makes a new run and
moving a suite does not invalidate cached baselines.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

from passnet.core.bundled import WHEEL_DATA, default_suite, missing_hint
from passnet.core.hashing import digest
from passnet.dataset import DEFAULT_SUITE  # re-exported: defined where the CLI needs no torch
from passnet.dataset.task import GRAPH_LIST, Task, TaskError, Variant, load_task

GRAPH_FILES = ("model.py", "weight_meta.py", "input_meta.py")
"""The files that define a variant's computation and inputs (its content hash)."""

_SKIP = {"pass_dir", "__pycache__"}
_MAX_PASS_BYTES = 16 * 2**20


class SuiteError(Exception):
    """A suite that cannot be read (user-fixable: the message names the folder)."""


def variant_content_hash(variant: Variant) -> str:
    """Hash of the graph files that decide what is computed on which inputs."""
    parts: list[str | bytes] = []
    for name in GRAPH_FILES:
        f = variant.path / name
        parts += [name, f.read_bytes() if f.is_file() else b""]
    return digest(*parts, variant.dtype, n=24)


def ignored(rel: Path) -> bool:
    """Files of a pass folder that are not part of it: bytecode caches and hidden files. The
    one rule for hashing, shipping and recording pass folders."""
    return rel.suffix == ".pyc" or any(p == "__pycache__" or p.startswith(".") for p in rel.parts)


def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (see ``ignored``), relative path -> bytes, size-limited."""
    out: dict[str, bytes] = {}
    total = 0
    for f in sorted(folder.rglob("*")):
        rel = f.relative_to(folder)
        if not f.is_file() or ignored(rel):
            continue
        data = f.read_bytes()
        total += len(data)
        if total > _MAX_PASS_BYTES:
            raise SuiteError(f"{folder}: more than {_MAX_PASS_BYTES // 2**20} MiB of files")
        out[rel.as_posix()] = data
    return out


def folder_digest(folder: Path) -> str:
    """Content hash of a folder's files (``folder_files``): names and bytes, 24 hex digits."""
    files = folder_files(folder)
    return digest(*[x for rel, data in files.items() for x in (rel, data)], n=24)


@dataclass(frozen=True)
class SuiteVariant:
    task_id: str
    variant_id: str
    content_hash: str
    variant: Variant


@dataclass(frozen=True)
class SuiteTask:
    task_id: str
    task: Task
    variants: tuple[SuiteVariant, ...]

    @property
    def name(self) -> str:
        return self.task.name


@dataclass(frozen=True)
class Suite:
    path: Path
    tasks: tuple[SuiteTask, ...]

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def n_variants(self) -> int:
        return sum(len(t.variants) for t in self.tasks)


def resolve_suite_path(path: Path | str | None) -> Path:
    """``path`` as given, else DEFAULT_SUITE of the working directory where it is there, else
    the bundled suite (a checkout's or the installed wheel's; ``passnet.core.bundled``)."""
    if path is not None:
        return Path(path).resolve()
    return default_suite() or Path(DEFAULT_SUITE).resolve()


def _is_task_folder(folder: Path) -> bool:
    return (folder / GRAPH_LIST).is_file() or (folder / "model.py").is_file()


def _task_folders(root: Path) -> list[Path]:
    if _is_task_folder(root):
        return [root]
    subs = [
        p
        for p in sorted(root.iterdir())
        if p.is_dir() and p.name not in _SKIP and not p.name.startswith(".")
    ]
    return [p for p in subs if _is_task_folder(p) or any(p.rglob("model.py"))]


def _suite_task(task: Task, dtypes: tuple[str, ...] = ()) -> SuiteTask | None:
    """The task with its variants of ``dtypes`` (all when empty); None when none is left."""
    variants = []
    for v in task.variants:
        if dtypes and v.dtype not in dtypes:
            continue
        content = variant_content_hash(v)
        variants.append((digest(task.name, v.graph, content), content, v))
    if not variants:
        return None
    task_id = digest(task.name, *[vid for vid, _, _ in variants])
    return SuiteTask(
        task_id=task_id,
        task=task,
        variants=tuple(SuiteVariant(task_id, vid, c, v) for vid, c, v in variants),
    )


def load_suite(
    path: Path | str | None = None,
    filters: tuple[str, ...] = (),
    limit: int | None = None,
    dtypes: tuple[str, ...] = (),
) -> Suite:
    """Every task of a suite folder, optionally filtered (fnmatch on task or folder name,
    any pattern matching keeps the task), cut to the variants of ``dtypes`` (tasks left with
    none are dropped) and to the first ``limit`` tasks (sorted)."""
    dtypes = tuple(d.removeprefix("torch.") for d in dtypes)
    root = resolve_suite_path(path)
    if not root.is_dir():
        if path is None:
            raise SuiteError(
                f"no SUITE given and no bundled suite: neither ./{DEFAULT_SUITE} nor "
                f"{WHEEL_DATA / 'suite'} exists; give a suite folder, or reinstall passnet "
                "from its wheel (it ships the suite)"
            )
        raise SuiteError(f"{root}: no such suite folder{missing_hint(path)}")
    folders = _task_folders(root)
    if not folders:
        raise SuiteError(f"{root}: neither a task folder nor a folder of task folders")
    tasks: list[SuiteTask] = []
    for folder in folders:
        if filters and not any(
            fnmatch.fnmatchcase(folder.name, pat) for pat in filters
        ):  # cheap pre-filter on the folder name; the task name is checked after loading
            try:
                name = load_task(folder).name
            except TaskError as exc:
                raise SuiteError(str(exc)) from exc
            if not any(fnmatch.fnmatchcase(name, pat) for pat in filters):
                continue
        try:
            task = _suite_task(load_task(folder), dtypes)
        except TaskError as exc:
            raise SuiteError(str(exc)) from exc
        if task is not None:
            tasks.append(task)
        if limit is not None and len(tasks) >= limit:
            break
    if not tasks:
        wanted = ", ".join(filters) or "(none)"
        if dtypes:
            wanted += f" with variants of dtype {', '.join(dtypes)}"
        raise SuiteError(f"{root}: no task matches filter {wanted}")
    return Suite(path=root, tasks=tuple(tasks))
