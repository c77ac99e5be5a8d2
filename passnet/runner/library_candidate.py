"""The ``library:DIR`` candidate of ``passnet bench``: each task's pass from a pass library.

A library (``examples/synth_passes``, or what ``scripts/synth_library.py`` makes) holds one pass
folder per task, ``DIR/<task folder name>/pass``. Before a run's library items are measured,
each becomes a ``pass`` item on its task's folder (same candidate id, same worker, policy and
runtime checks as any submitted pass); the items of a task the library has no folder for get
a stored ``no_match`` result whose error says ``skipped: no pass in the library ...``, scored
like a pass that matches nothing, as the ``synth`` candidate's skipped tasks are.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from passnet.core.results import VariantResult
from passnet.dataset.suite import SuiteTask
from passnet.runner.synth_candidate import as_pass_item, skipped_result

if TYPE_CHECKING:  # bench imports this module at run time, not the other way round
    from passnet.runner.bench import WorkItem


def library_pass(library: Path, task_folder: Path) -> Path | None:
    """The library's pass folder for the task in ``task_folder`` (by its name), if any."""
    folder = library / task_folder.name / "pass"
    return folder if folder.is_dir() else None


def resolve_library(
    items: list[WorkItem], tasks: dict[str, SuiteTask], candidate_id: str, library: Path
) -> tuple[list[WorkItem], list[tuple[WorkItem, VariantResult]]]:
    """Split ``items``: those of library candidate ``candidate_id`` whose task has a folder in
    ``library`` become ``pass`` items on it, the others (item, skipped result) pairs; items of
    other candidates pass through unchanged."""
    out, skipped = [], []
    for item in items:
        if item.candidate.candidate_id != candidate_id:
            out.append(item)
            continue
        task = tasks[item.variant.task_id].task.path
        folder = library_pass(library, task)
        if folder is None:
            v = item.variant.variant
            why = f"no pass in the library {library} for task {task.name}"
            skipped.append((item, skipped_result(v.graph, v.dtype, why)))
            continue
        out.append(as_pass_item(item, folder))
    return out, skipped
