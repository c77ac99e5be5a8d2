"""The ``synth`` candidate of ``passnet bench``: a synthesised pass folder per task.

Before a run's ``synth`` items are measured, each of their tasks is synthesised (and verified,
as ``passnet synth`` does) into a cache folder keyed by the synthesizer's code hash, the device
model and the content of the whole task folder, so a rerun or resume reuses the folder instead
of synthesising again. A task that got a pass is then measured like any submitted pass: its items
go to the executor as a ``pass`` candidate on that folder, same worker, same policy and runtime
checks. A task the synthesizer skipped or rejected gets, for each of its variants, a stored
``no_match`` result whose error says ``skipped: <why>`` (there is no pass to run: the method
produced nothing for it, scored like a pass that matches nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from passnet.core.hashing import digest
from passnet.core.results import CandidateSpec, Environment, Parameters, Status, VariantResult
from passnet.core.tolerance import ErrorClass
from passnet.dataset.suite import SuiteTask, _suite_task

if TYPE_CHECKING:  # bench imports this module at run time, not the other way round
    from passnet.runner.bench import WorkItem
    from passnet.synth.driver import SynthResult

SKIPPED = "skipped"
"""How a skipped task's results start their ``error``: ``skipped: unsupported op linear; ...``."""
TRANSIENT = ("synthesizer error", "crash", "timeout")
"""Reasons a cached skip is not reused (a host or harness problem, not the task's verdict):
the next resolution, e.g. after ``--rerun-failed --rerun-status no_match``, synthesises again."""


def synth_cache_dir(root: Path, content_hash: str, env: Environment, keep: str = "win") -> Path:
    """Where one synthesizer version keeps its folders for one device model and keep rule
    (the default rule's folders keep the name they had before keep rules existed)."""
    device = env.device.split(":")[0]
    parts = (content_hash, device, env.device_name) + (() if keep == "win" else (keep,))
    return root / f"{device}-{digest(*parts, n=12)}"


def synth_folder(cache: Path, task: SuiteTask) -> Path:
    """The task's folder in the cache: by name for reading, by content for keying. The
    synthesizer reads the whole task folder (every variant, whatever ``--dtype`` keeps), so
    the key is the id of the whole task, not of the run's selection of its variants."""
    whole = _suite_task(task.task)
    return cache / f"{task.task.path.name}-{whole.task_id if whole else task.task_id}"


def reusable(folder: Path) -> SynthResult | None:
    """The cached synthesis in ``folder`` if it can stand (not a transient failure)."""
    from passnet.synth.driver import SynthResult

    done = SynthResult.load(folder)
    if done is not None and (
        (done.status == "written" and (folder / "pass").is_dir())
        or (done.status != "written" and not (done.reason or "").startswith(TRANSIENT))
    ):
        return done
    return None


def synthesize_cached(
    tasks: list[SuiteTask], cache: Path, device: str, timeout_s: float, *, workers: int = 1,
    on_task: Callable[[str, SynthResult], None] | None = None, keep: str = "win",
) -> list[SynthResult]:  # fmt: skip
    """Each task's synthesis from the cache, else synthesised (and verified) now, ``workers``
    tasks at once (``passnet.synth.driver.synthesize_tasks``)."""
    from passnet.synth.driver import synth_parameters, synthesize_tasks

    out: list[SynthResult | None] = [reusable(synth_folder(cache, t)) for t in tasks]
    todo = [i for i, r in enumerate(out) if r is None]
    for i, r in enumerate(out):
        if r is not None and on_task is not None:
            on_task(tasks[i].name, r)
    params = synth_parameters(device).model_copy(update={"timeout_s": timeout_s})

    def finished(k: int, r: SynthResult) -> None:
        if on_task is not None:
            on_task(tasks[todo[k]].name, r)

    made = synthesize_tasks([(tasks[i].task.path, synth_folder(cache, tasks[i]).name) for i in todo],
                            cache, workers=workers, on_result=finished, device=device,
                            parameters=params, keep=keep)  # fmt: skip
    for i, r in zip(todo, made, strict=True):
        out[i] = r
    return out  # type: ignore[return-value]


def as_pass_item(item: WorkItem, folder: Path) -> WorkItem:
    """``item`` measured as the pass in ``folder``: same candidate id, shown by its own label
    (a candidate resolved per task: ``synth``, ``library``)."""
    spec = CandidateSpec(kind="pass", pass_dir=str(folder.resolve()))
    name = item.candidate.spec.label
    return replace(item, candidate=replace(item.candidate, spec=spec, name=name))


def skipped_result(variant_graph: str, dtype: str, reason: str | None) -> VariantResult:
    """The stored result of a variant whose task got no pass from the synthesizer."""
    return VariantResult(
        graph=variant_graph,
        dtype=dtype,
        status=Status.NO_MATCH,
        error_class=ErrorClass.COMPILE,
        error=f"{SKIPPED}: {reason or 'no pass'}",
    )


def resolve_synth(
    items: list[WorkItem],
    tasks: dict[str, SuiteTask],
    cache: Path,
    device: str,
    params: Parameters,
    on_task: Callable[[str, SynthResult], None] | None = None,
    *,
    candidate_id: str,
    keep: str = "win",
    workers: int = 1,
) -> tuple[list[WorkItem], list[tuple[WorkItem, VariantResult]]]:
    """Split ``items``: the items of synth candidate ``candidate_id`` (keep rule ``keep``, its
    own ``cache``) whose task got a pass become ``pass`` items on its folder (same candidate
    id), those of skipped tasks (item, skipped result) pairs; other items pass through
    unchanged. Synthesises each task once, ``workers`` at a time."""

    def mine(item: WorkItem) -> bool:
        return item.candidate.candidate_id == candidate_id

    out, skipped = [], []
    order = list(dict.fromkeys(i.variant.task_id for i in items if mine(i)))
    results = synthesize_cached([tasks[t] for t in order], cache, device, params.timeout_s,
                                workers=workers, on_task=on_task, keep=keep)  # fmt: skip
    done = dict(zip(order, results, strict=True))
    for item in items:
        if not mine(item):
            out.append(item)
            continue
        tid = item.variant.task_id
        r = done[tid]
        if r.status == "written":
            out.append(as_pass_item(item, synth_folder(cache, tasks[tid]) / "pass"))
        else:
            v = item.variant.variant
            skipped.append((item, skipped_result(v.graph, v.dtype, r.reason)))
    return out, skipped
