"""Evaluate a candidate on every variant of a task, each variant in its own worker process.

The parent never imports a candidate's code (it only reads pass sources for the static
policy); workers are sandboxed processes (``passnet.evaluation.sandbox``). A worker that dies
or hangs becomes a classified failure of that variant; the next variant gets a fresh worker.
See ``docs/integrity.md``.
"""

from __future__ import annotations

import functools
import os
import platform
import secrets
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from passnet.core.results import (
    STATUS_ERROR_CLASS,
    CandidateSpec,
    Environment,
    Finding,
    Parameters,
    Status,
    TaskResult,
    VariantResult,
    default_parameters,
)
from passnet.dataset.suite import SuiteError, folder_digest
from passnet.dataset.task import Task, Variant, load_task
from passnet.evaluation import cpus, device_lock
from passnet.evaluation.candidates import kind_of
from passnet.evaluation.compile_cache import pass_cache_dir
from passnet.evaluation.isolation import default_memory_limit
from passnet.evaluation.request import WorkerRequest
from passnet.evaluation.sandbox import POOL, spare_workers
from passnet.integrity.policy import PolicyError, check_pass_dir
from passnet.scores.metrics import compute_scores


def cpu_name() -> str:
    """The CPU model, the vector ISA Inductor's C++ code targets and the core count: what a
    CPU timing depends on ("x86_64" alone does not say which machine measured it)."""

    import torch

    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    isa = getattr(torch.backends.cpu, "get_cpu_capability", lambda: "?")()
    return f"{model} ({isa}, {os.cpu_count()} CPUs)"


def environment(device: str) -> Environment:
    import torch

    try:
        import triton

        triton_version: str | None = triton.__version__
    except ImportError:
        triton_version = None
    cuda = driver = None
    if not device.startswith("cuda"):
        name = cpu_name()
    else:
        name = torch.cuda.get_device_name(torch.device(device).index or 0)
        cuda = torch.version.cuda
        try:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
            )
            driver = out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired, IndexError):
            driver = None
    return Environment(
        device=device,
        device_name=name,
        torch=torch.__version__,
        triton=triton_version,
        python=platform.python_version(),
        platform=platform.platform(),
        cuda=cuda,
        driver=driver,
        triton_interpret=device.startswith("cpu"),
    )


def _content(pass_dir: str) -> str | None:
    """The digest of a pass folder's files, hashed once per variant for the policy cache and
    the pass's compile cache; None for a missing folder or one too large to hash."""
    folder = Path(pass_dir)
    try:
        return folder_digest(folder) if folder.is_dir() else None
    except SuiteError:
        return None


def _policy(pass_dir: str, content: str | None) -> tuple:
    """The static policy's verdict on a pass folder, computed once per folder content in this
    process (a task's variants and a suite's items share it); the worker enforces it again.
    Without a ``content`` digest (missing or too large) it is computed each time."""
    if content is None:
        return tuple(check_pass_dir(pass_dir))
    return _policy_of(pass_dir, content)


@functools.lru_cache(maxsize=128)
def _policy_of(pass_dir: str, content: str) -> tuple:
    return tuple(check_pass_dir(pass_dir))


def _absolute(candidate: CandidateSpec) -> CandidateSpec:
    """The candidate with its pass folder resolved where the caller stands: workers run in a
    private folder, where a relative path would name nothing."""
    if not candidate.pass_dir or Path(candidate.pass_dir).is_absolute():
        return candidate
    return candidate.model_copy(update={"pass_dir": str(Path(candidate.pass_dir).resolve())})


def evaluate_variant(
    variant: Variant,
    candidate: CandidateSpec,
    *,
    device: str = "cpu",
    parameters: Parameters | None = None,
    with_inductor: bool = False,
    memory_limit: int | None = -1,
    isolate_network: bool = True,
    timing_cpus: list[int] | None = None,
) -> VariantResult:
    """Evaluate ``candidate`` on one variant in a fresh worker process; never raises for the
    candidate's faults (they come back as the result's status). A pass folder that fails the
    static policy is rejected here without a worker (the worker enforces it again).
    ``timing_cpus``: cores the worker moves onto while it times (``passnet.evaluation.cpus``)."""
    params = parameters or Parameters()
    candidate = _absolute(candidate)
    if memory_limit == -1:
        memory_limit = default_memory_limit(device)
    runs_pass = kind_of(candidate).runs_pass_code
    content = _content(candidate.pass_dir or "") if runs_pass else None
    if runs_pass and params.policy:
        violations = _policy(candidate.pass_dir or "", content)
        if violations:
            return VariantResult(
                graph=variant.graph,
                dtype=variant.dtype,
                status=Status.REJECTED,
                error_class=STATUS_ERROR_CLASS[Status.REJECTED],
                error=str(PolicyError(list(violations))),
                integrity=[
                    Finding(check=f"policy:{v.rule}", detail=str(v), phase="policy")
                    for v in violations
                ],
            )
    seed = params.seed if params.seed is not None else secrets.randbits(31)
    request = WorkerRequest(
        graph=variant.graph,
        path=str(variant.path),
        dtype=variant.dtype,
        device=device,
        seed=seed,
        recheck_seed=(seed * 7919 + 1) % (2**31),
        candidate=candidate,
        parameters=params,
        with_inductor=with_inductor,
        lock_dir=str(device_lock.lock_dir()) if device_lock.enabled() else "",
        pass_cache_dir=str(pass_cache_dir(content) or "") if content else "",
        timing_cpus=timing_cpus,
    )
    return POOL.run(request, params.timeout_s, memory_limit, isolate_network=isolate_network)


def task_result(
    task: Task,
    candidate: CandidateSpec,
    variants: list[VariantResult],
    *,
    device: str,
    parameters: Parameters,
    wall_seconds: float,
) -> TaskResult:
    """Score a task's variant results (shared by ``evaluate_task`` and the suite runner)."""
    return TaskResult(
        task=str(task.path),
        candidate=candidate,
        parameters=parameters,
        environment=environment(device),
        scores=compute_scores(variants, b=parameters.b, p=parameters.p),
        task_correct=all(v.status == Status.OK for v in variants),
        variants=variants,
        wall_seconds=wall_seconds,
    )


MAX_AUTO_PREPARE_AHEAD = 12
"""Most workers :func:`auto_prepare_ahead` starts on a GPU for one task: each holds a CUDA
context; twelve cover every variant of the bundled suite's tasks (6, 9 or 12), so no variant
waits for another's worker before it can start preparing."""

MAX_HOST_WORKERS = 8
"""Most workers a suite run's pool (or ``passnet synth``) keeps busy on one GPU host: it has
a queue of tasks to draw from, and more workers preparing share the host with the timing."""


def auto_prepare_ahead(device: str, variants: int) -> int:
    """Workers at once when the caller names no number. On a GPU, one per variant, up to the
    host's cores less one and :data:`MAX_AUTO_PREPARE_AHEAD`: preparation (process start,
    compilation, correctness) is host work, and the device lock keeps timings one at a time.
    On CPU one: a second worker's preparation would share the cores a timing runs on."""
    if not device.startswith("cuda"):
        return 1
    return max(1, min(variants, cpus.usable_cores() - 1, MAX_AUTO_PREPARE_AHEAD))


def host_workers(device: str) -> int:
    """The workers a suite run's pool, the synth candidate and ``passnet synth`` share out on
    this host by default: the host's cores less one, at most :data:`MAX_HOST_WORKERS` (GPU);
    one on CPU."""
    return min(auto_prepare_ahead(device, MAX_AUTO_PREPARE_AHEAD), MAX_HOST_WORKERS)


def spare_stock(devices: list[str]) -> int:
    """Warm spares a long-lived evaluator (``passnet serve``, ``passnet agent run``) keeps per
    kind of worker: the most workers one evaluation runs at once by default."""
    return max(auto_prepare_ahead(d, MAX_AUTO_PREPARE_AHEAD) for d in devices)


def evaluate_task(
    task: Task | str | Path,
    candidate: CandidateSpec,
    *,
    device: str = "cpu",
    parameters: Parameters | None = None,
    with_inductor: bool = False,
    memory_limit: int | None = -1,
    on_variant: Callable[[Variant, VariantResult], None] | None = None,
    isolate_network: bool = True,
    prepare_ahead: int | None = None,
) -> TaskResult:
    """Evaluate ``candidate`` on every variant of ``task`` and score it (SPEC sections 5-7).

    ``prepare_ahead`` workers run at once (None: :func:`auto_prepare_ahead`): each holds the
    device's timing lock only while it times (``passnet.evaluation.device_lock``), so the next
    variants load, compile and check correctness while one is timed. Results and
    ``on_variant`` calls keep the task's order."""
    params = parameters or Parameters()
    if prepare_ahead is not None and prepare_ahead < 1:
        raise ValueError(f"prepare_ahead must be at least 1, got {prepare_ahead}")
    if not isinstance(task, Task):
        task = load_task(task)
    if prepare_ahead is None:
        prepare_ahead = auto_prepare_ahead(device, len(task.variants))
    candidate = _absolute(candidate)
    t0 = time.perf_counter()
    results: list[VariantResult] = []

    # Several workers on a GPU: the one that times moves onto cores the others never use
    # (passnet.evaluation.cpus), as in a suite run's pool.
    split = cpus.timing_reserve() if device.startswith("cuda") and prepare_ahead > 1 else None
    timing_cpus, preparing = split if split is not None else (None, None)

    def one(variant: Variant) -> VariantResult:
        return evaluate_variant(
            variant,
            candidate,
            device=device,
            parameters=params,
            with_inductor=with_inductor,
            memory_limit=memory_limit,
            isolate_network=isolate_network,
            timing_cpus=timing_cpus,
        )

    threads = ThreadPoolExecutor(
        max_workers=prepare_ahead, initializer=cpus.pin_thread, initargs=(preparing,)
    )
    with spare_workers(prepare_ahead), threads as pool:
        for variant, vr in zip(task.variants, pool.map(one, task.variants), strict=True):
            results.append(vr)
            if on_variant:
                on_variant(variant, vr)
    return task_result(
        task,
        candidate,
        results,
        device=device,
        parameters=params,
        wall_seconds=time.perf_counter() - t0,
    )


def measure_inductor(path: str, device: str) -> dict:
    """Eager vs default Inductor on one variant, through the evaluator's worker processes: the
    ``measure`` of ``passnet.dataset.tasks.curate``."""
    params = default_parameters(device, seed=0, timeout_s=600)
    variant = load_task(path).variants[0]
    spec = CandidateSpec(kind="inductor", options={"mode": "default"})
    r = evaluate_variant(variant, spec, device=device, parameters=params)
    return {
        "status": r.status.value,
        "eager_us": r.reference.wall.median_us if r.reference else None,
        "candidate_us": r.candidate.wall.median_us if r.candidate else None,
        "speedup": r.speedup,
        "error": r.error,
    }
