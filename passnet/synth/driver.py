"""Synthesize, write and verify one pass folder per task; report why a task was skipped.

For each task: trace every variant, choose each variant's groups (the best one, then the best
among the ops left, ...), merge groups whose patterns read the same (one rule module per
distinct pattern, largest first), lower each to a kernel checked against every place the
pass will apply it (``passnet.synth.rules``), write the folder, run the static policy, then
``evaluate_task``. A pass is kept only if every variant is correct at the strict tolerance
``STRICT_T`` (and, on CUDA, faster than eager in geometric mean); otherwise the folder moves
to ``rejected_pass/`` and ``synth.json`` says why.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from passnet.core.results import CandidateSpec, Parameters, Status, TaskResult
from passnet.dataset.task import GRAPH_LIST, Task, load_task
from passnet.evaluation.candidates.synth import KEEP
from passnet.passes.loader import write_pass_dir
from passnet.synth.graph import Group, Traced, select_all, trace_variant
from passnet.synth.rules import plan_rules, rule_modules
from passnet.synth.shapes import Unfusable

STRICT_T = -4
"""A kept pass must pass allclose at this tolerance level on every variant (t = -4: rtol 2e-5
for float32, 4e-3 for float16, 3.6e-2 for bfloat16, atol 1e-4); eager-faithful rounding
reaches -5 or tighter, so a kernel that only passes looser levels has a numerics bug."""
CPU_PARAMETERS = Parameters(warmup=1, trials=5, rounds=1, max_reruns=0, timeout_s=600)
CUDA_PARAMETERS = Parameters(warmup=10, trials=50, rounds=2)
SYNTH_JSON = "synth.json"
TRAJECTORY_JSON = "trajectory.json"


def synth_parameters(device: str) -> Parameters:
    """How the synthesizer verifies on ``device``: few calls in the interpreter (its timings
    mean nothing), enough on a GPU to tell a win from noise (the keep rule needs it)."""
    return CPU_PARAMETERS if device == "cpu" else CUDA_PARAMETERS


@dataclass
class SynthResult:
    """What ``synth.json`` records for one task."""

    task: str
    name: str
    status: str  # "written" or "skipped"
    reason: str | None = None
    pass_dir: str | None = None
    rules: list[dict[str, Any]] = field(default_factory=list)
    verification: dict[str, Any] | None = None
    trajectory: str | None = None  # trajectory.json's path, or why it could not be written
    tuning: dict[str, Any] | None = None  # the launch-shape search on the device (synth.tune)
    seconds: float = 0.0
    keep: str = "win"  # the keep rule the verdict applied (KEEP)
    shapes: str = "generic"  # "generic": free literals bound at match time; "literal"
    numerics: str | None = None  # kept under keep "correct" though looser than STRICT_T: where
    dropped: list[dict[str, Any]] = field(default_factory=list)  # chosen rules left out: why
    resume: dict[str, Any] | None = None  # what made it (resume_key) and the task's content id

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def load(cls, folder: Path) -> SynthResult | None:
        """The result a finished synthesis left in ``folder`` (None: none, or unreadable)."""
        try:
            data = json.loads((folder / SYNTH_JSON).read_text(encoding="utf-8"))
            return cls(**data)
        except (OSError, ValueError, TypeError):
            return None


class SynthInterrupted(KeyboardInterrupt):
    """``synthesize_tasks`` stopped by SIGINT (or SIGTERM made one): ``results`` holds each
    job's result in ``jobs``' order, None for the tasks not finished (a task under way left no
    ``synth.json``). A KeyboardInterrupt still, so callers that stop on one stop on it."""

    def __init__(self, results: list[SynthResult | None]) -> None:
        super().__init__(f"{sum(r is None for r in results)} of {len(results)} task(s) unfinished")
        self.results = results


def task_content_id(task: Task) -> str:
    """The task's id by content (its name and every variant's graph files), as the bench's
    synth cache keys it: a synthesis recorded for another content is not this task's."""
    from passnet.dataset.suite import _suite_task

    whole = _suite_task(task)
    return whole.task_id if whole else task.name


def _summary(result: TaskResult) -> dict[str, Any]:
    variants = []
    for v in result.variants:
        variants.append({
            "graph": v.graph, "dtype": v.dtype, "status": v.status.value,
            "tightest_t": v.comparison.tightest_passing_t if v.comparison else None,
            "comparison": v.comparison.detail if v.comparison else None,
            "speedup": v.speedup, "timing_meaningful": v.timing_meaningful,
            "error": v.error,
        })  # fmt: skip
    speeds = [v.speedup for v in result.variants if v.speedup and v.timing_meaningful]
    gmean = math.exp(sum(map(math.log, speeds)) / len(speeds)) if speeds else None
    return {"device": result.environment.device, "task_correct": result.task_correct,
            "gmean_speedup": gmean, "variants": variants}  # fmt: skip


def _loose(summary: dict[str, Any]) -> str | None:
    """The first variant correct only at a level looser than STRICT_T, said as a reason."""
    for v in summary["variants"]:
        t = v["tightest_t"]
        if v["status"] == Status.OK.value and (t is None or t > STRICT_T):
            where = f"; {v['comparison']}" if v.get("comparison") else ""
            return f"numerics: {v['graph']} ({v['dtype']}) passes only at t = {t}{where}"
    return None


def _verdict(summary: dict[str, Any], device: str, keep: str = "win") -> str | None:
    """Why a verified pass is not kept under the ``keep`` rule, or None. ``correct`` keeps a
    pass whose variants are all correct at some level, looser than STRICT_T too: the score
    credits it at the levels it passes, where no pass scores b at every level."""
    for v in summary["variants"]:
        if v["status"] != Status.OK.value:
            kind = "numerics" if v["status"] == Status.INCORRECT.value else v["status"]
            return f"{kind}: {v['graph']}: {(v['error'] or '').splitlines()[0][:300]}"
    if keep == "win" and (loose := _loose(summary)):
        return loose
    if keep == "win" and device.startswith("cuda"):
        g = summary["gmean_speedup"]
        if g is None or g <= 1.0:
            return f"no win: {'unmeasured' if g is None else f'{g:.3f}x'} vs eager (gmean)"
    return None


def synthesize_task(task_path: str | Path, out: str | Path, *, device: str = "cpu",
                    verify: bool = True, parameters: Parameters | None = None,
                    folder_name: str | None = None, tune: bool = True,
                    keep: str = "win", prepare_ahead: int | None = None,
                    literal_shapes: bool = False,
                    resume_key: dict[str, Any] | None = None) -> SynthResult:  # fmt: skip
    """Write ``out/<task>/pass/`` (or ``rejected_pass/``), ``out/<task>/synth.json`` and, when
    a written pass was verified, ``out/<task>/trajectory.json`` (the agent's record format).
    ``folder_name`` replaces ``<task>`` (the bench cache keys folders by content). ``tune``: on
    a GPU, choose the launch shape on the device first (``passnet.synth.tune``). ``keep``:
    which verified passes are kept (``KEEP``: ``win``, the default, or ``correct``).
    ``prepare_ahead``: the verification's workers at once (None: ``evaluate_task``'s default).
    ``literal_shapes``: rules whose patterns and kernels carry the task's literals (sizes,
    eps), instead of generic ones that bind them at match time (``passnet.synth.rules``).
    ``resume_key``: what the result depends on besides the task (the caller's: synthesizer hash,
    device model, options), recorded in ``synth.json`` as ``resume`` with the task's content id
    (``task_content_id``) for ``passnet synth --resume``; None records none (never reused)."""
    if keep not in KEEP:
        raise ValueError(f"unknown keep rule {keep!r}; known: {', '.join(KEEP)}")
    t0 = time.perf_counter()
    task = load_task(task_path)
    folder = Path(out) / (folder_name or task.path.name)
    for old in ("pass", "rejected_pass", TRAJECTORY_JSON, SYNTH_JSON):
        target = folder / old
        if target.is_dir():
            shutil.rmtree(target, ignore_errors=True)
        else:
            target.unlink(missing_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    result = SynthResult(task=str(task.path), name=task.name, status="skipped", keep=keep,
                         shapes="literal" if literal_shapes else "generic")  # fmt: skip
    if resume_key is not None:
        result.resume = {**resume_key, "task": task_content_id(task)}
    try:
        _synthesize(task, folder, result, device, verify, parameters, tune, prepare_ahead)
    except Unfusable as exc:
        result.reason = str(exc)
    except Exception as exc:  # noqa: BLE001 - a task the synthesizer trips on is a skip
        result.reason = f"synthesizer error: {type(exc).__name__}: {exc}"
    result.seconds = round(time.perf_counter() - t0, 2)
    (folder / SYNTH_JSON).write_text(result.to_json(), encoding="utf-8")
    return result


def _synthesize(task: Task, folder: Path, result: SynthResult, device: str, verify: bool,
                parameters: Parameters | None, tune: bool,
                prepare_ahead: int | None = None) -> None:  # fmt: skip
    from passnet.integrity.policy import check_pass_dir

    groups: list[Group] = []
    traced: list[Traced] = []
    for variant in task.variants:
        traced.append(trace_variant(variant, noop_copies=result.keep == "win"))
        found = select_all(traced[-1])
        if isinstance(found, str):
            result.reason = found if not groups else f"{variant.graph}: {found}"
            return
        groups += found
    plan = plan_rules(traced, groups, generic=result.shapes == "generic")
    result.dropped = plan.dropped
    if not plan.rules:
        result.reason = f"no rule serves every place it matches: {plan.dropped[0]['reason']}"
        return
    tuning = None
    if tune and verify and device.startswith("cuda"):
        from passnet.synth.tune import tune as search

        tuning, result.tuning = search(
            task,
            lambda cfg: rule_modules(task.name, plan, cfg),
            device,
            strict_t=STRICT_T if result.keep == "win" else 0,  # as loose as the keep rule
        )
    rules = rule_modules(task.name, plan, tuning)
    pass_dir = folder / "pass"
    write_pass_dir(pass_dir, rules)
    result.rules = [rule.summary(stem) for (stem, _), rule in zip(rules, plan.rules, strict=True)]
    result.pass_dir = str(pass_dir)
    if violations := check_pass_dir(pass_dir):
        result.reason = f"policy: {violations[0]}"
    elif verify:
        from passnet.evaluation.evaluator import evaluate_task
        from passnet.synth.trajectory import write_trajectory

        params = parameters or synth_parameters(device)
        spec = CandidateSpec(kind="pass", pass_dir=str(pass_dir))
        evaluated = evaluate_task(task, spec, device=device, parameters=params,
                                  prepare_ahead=prepare_ahead)  # fmt: skip
        summary = _summary(evaluated)
        result.verification = summary
        result.reason = _verdict(summary, device, result.keep)
        if result.reason is None:
            result.numerics = _loose(summary)
        try:  # training data is a by-product: its failure never costs the pass
            result.trajectory = str(write_trajectory(
                folder / TRAJECTORY_JSON, task, pass_dir, result.rules, evaluated, result.reason,
                params, device))  # fmt: skip
        except Exception as exc:  # noqa: BLE001
            result.trajectory = f"not written: {type(exc).__name__}: {exc}"
    if result.reason is None:
        result.status = "written"
        return
    rejected = folder / "rejected_pass"
    pass_dir.rename(rejected)
    result.pass_dir = str(rejected)


def _synthesize_job(args: tuple[str, str, dict[str, Any]]) -> SynthResult:
    """One task in a worker process of ``synthesize_tasks`` (picklable: paths and options)."""
    task_path, out, kwargs = args
    return synthesize_task(task_path, out, **kwargs)


def verify_workers(device: str, tasks_at_once: int) -> int:
    """Evaluation workers per task when ``tasks_at_once`` tasks are verified side by side: the
    host's share one evaluation would take alone, split among them, at least one. Each task
    taking the full share multiplied the CUDA contexts (8 tasks x 8 workers on one GPU) and
    ran a GPU out of memory."""
    from passnet.evaluation.evaluator import host_workers

    return max(1, host_workers(device) // max(1, tasks_at_once))


def synthesize_tasks(
    jobs: list[tuple[Path, str | None]],
    out: str | Path,
    *,
    workers: int = 1,
    on_result: Callable[[int, SynthResult], None] | None = None,
    **kwargs: Any,
) -> list[SynthResult]:
    """``synthesize_task`` for each (task path, folder name) of ``jobs``, ``workers`` at a time.

    With more than one worker each task runs in its own fresh process (spawned: CUDA and
    Triton's state never cross tasks), so compiling, tracing and correctness checks overlap;
    without verification (nothing runs a kernel) the worker processes are reused, as starting
    one costs far more than writing a task's pass;
    every timed step still holds the device's timing lock (``passnet.evaluation.device_lock``),
    so no two timings share the GPU. ``on_result(index, result)`` is called as each finishes;
    the list comes back in ``jobs``' order. Each task's verification gets its share of the
    workers one evaluation would start (``verify_workers``) unless ``prepare_ahead`` is given.

    A KeyboardInterrupt (SIGINT; the CLI turns SIGTERM into one) stops it without waiting for
    the queue: tasks not started are cancelled, worker processes still running one are ended
    (their task is left without ``synth.json``), and ``SynthInterrupted`` carries the results
    of the tasks finished so far."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if workers > 1 and kwargs.get("prepare_ahead") is None:
        kwargs["prepare_ahead"] = verify_workers(kwargs.get("device", "cpu"),
                                                 min(workers, len(jobs)))  # fmt: skip
    results: list[SynthResult | None] = [None] * len(jobs)
    args = [(str(p), str(out), {**kwargs, "folder_name": name}) for p, name in jobs]
    if workers == 1 or len(jobs) <= 1:
        try:
            for i, a in enumerate(args):
                results[i] = _synthesize_job(a)
                if on_result:
                    on_result(i, results[i])  # type: ignore[arg-type]
        except KeyboardInterrupt:
            raise SynthInterrupted(results) from None
        return results  # type: ignore[return-value]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    ctx = multiprocessing.get_context("spawn")
    per_child = None if kwargs.get("verify") is False else 1
    pool = ProcessPoolExecutor(min(workers, len(jobs)), mp_context=ctx,
                               max_tasks_per_child=per_child)  # fmt: skip
    futures: dict[Future[SynthResult], int] = {}
    try:
        futures = {pool.submit(_synthesize_job, a): i for i, a in enumerate(args)}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except Exception as exc:  # noqa: BLE001 - a worker that died is that task's skip
                results[i] = SynthResult(task=args[i][0], name=Path(args[i][0]).name,
                                         status="skipped",
                                         reason=f"synthesizer error: {type(exc).__name__}: {exc}")  # fmt: skip
            if on_result:
                on_result(i, results[i])  # type: ignore[arg-type]
    except KeyboardInterrupt:
        _stop(pool, futures)
        raise SynthInterrupted(results) from None
    finally:
        pool.shutdown()  # after _stop: nothing left to wait for
    return results  # type: ignore[return-value]


def _stop(pool: Any, futures: Iterable[Future[Any]]) -> None:
    """Cancel ``pool``'s queued tasks and end the workers running one: a ProcessPoolExecutor
    waits for its running tasks on shutdown (and at exit), however it is shut down. Its
    manager thread sees a worker gone, fails what was in flight, ends the other workers (one
    it started meanwhile too) and exits."""
    for fut in futures:
        fut.cancel()
    manager = getattr(pool, "_executor_manager_thread", None)
    deadline = time.monotonic() + 30
    while manager is not None and manager.is_alive() and time.monotonic() < deadline:
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            if proc.is_alive():
                proc.terminate()
        manager.join(timeout=0.5)
    pool.shutdown(wait=not (manager and manager.is_alive()))


def task_folders(path: str | Path) -> list[Path]:
    """A task folder itself, or the task folders directly below a suite folder."""
    root = Path(path)
    if (root / GRAPH_LIST).is_file() or (root / "model.py").is_file():
        return [root]
    return sorted(p for p in root.iterdir() if (p / GRAPH_LIST).is_file())
