"""Evaluate a candidate on every variant of a task, each variant in its own worker process.

The parent never imports a candidate's code. Each worker gets a private temporary
directory, a scrubbed environment (no API keys), its own process group (a timeout kills
the whole group), a memory limit on CPU, and returns its result through a private pipe.
A worker that dies or hangs becomes a classified failure of that variant; the next
variant gets a fresh worker.
"""

from __future__ import annotations

import os
import platform
import re
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import passnet
from passnet.dataset.task import Task, Variant, load_task
from passnet.evaluation.results import (
    STATUS_ERROR_CLASS,
    CandidateSpec,
    Environment,
    Parameters,
    Status,
    TaskResult,
    VariantResult,
)
from passnet.evaluation.worker import WorkerRequest
from passnet.scores.metrics import compute_scores

_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH", re.IGNORECASE)
_LOG_TAIL = 1500


def worker_env(device: str, tmpdir: str) -> dict[str, str]:
    """The environment a worker sees: no secrets, a private TMPDIR, the interpreter on CPU."""
    env = {k: v for k, v in os.environ.items() if not _SECRET.search(k)}
    env["TMPDIR"] = tmpdir
    env["PYTHONUNBUFFERED"] = "1"
    root = str(Path(passnet.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(
        [root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    if device.startswith("cpu"):
        env["TRITON_INTERPRET"] = "1"
    else:
        env.pop("TRITON_INTERPRET", None)
    return env


def _limit_memory(limit_bytes: int | None) -> Callable[[], None] | None:
    if not limit_bytes:
        return None

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return apply


def default_memory_limit(device: str) -> int | None:
    """CPU workers get at most 3/4 of RAM; CUDA reserves huge address space, so no RLIMIT_AS."""
    if not device.startswith("cpu"):
        return None
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None
    return int(total * 0.75)


def run_worker(request: WorkerRequest, timeout_s: float, memory_limit: int | None = None) -> dict:
    """Run one worker to completion or death; always returns a VariantResult-shaped dict."""
    tmpdir = tempfile.mkdtemp(prefix="passnet-worker-")
    read_fd, write_fd = os.pipe()
    log_path = Path(tmpdir) / "worker.log"
    chunks: list[bytes] = []

    def drain() -> None:
        with os.fdopen(read_fd, "rb") as f:
            while data := f.read(65536):
                chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    t0 = time.perf_counter()
    try:
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "passnet.evaluation.worker", "--result-fd", str(write_fd)],
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=tmpdir,
                env=worker_env(request.device, tmpdir),
                pass_fds=(write_fd,),
                start_new_session=True,
                preexec_fn=_limit_memory(memory_limit),
            )
            os.close(write_fd)
            try:
                assert proc.stdin is not None
                proc.stdin.write(request.model_dump_json().encode())
                proc.stdin.close()
            except BrokenPipeError:
                pass
            timed_out = False
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                # Kill the whole group: a candidate's children and threads go with it.
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        reader.join(timeout=5)
        elapsed = time.perf_counter() - t0
        tail = log_path.read_bytes()[-_LOG_TAIL:].decode(errors="replace").strip()
        payload = b"".join(chunks)
        if timed_out:
            return _failure(
                request, Status.TIMEOUT, f"killed after {timeout_s:g} s wall clock", elapsed
            )
        if payload:
            try:
                import json

                out = json.loads(payload)
                out.setdefault("worker_seconds", elapsed)
                return out
            except ValueError:
                pass
        code = proc.returncode
        how = (
            f"killed by signal {signal.Signals(-code).name}"
            if code is not None and code < 0
            else f"exited with code {code}"
        )
        if code == -signal.SIGKILL or "MemoryError" in tail or "out of memory" in tail.lower():
            how += " (likely out of memory)"
        detail = f"worker {how} without a result"
        if tail:
            detail += f"; last output: {tail[-600:]}"
        return _failure(request, Status.CRASH, detail, elapsed)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def _failure(request: WorkerRequest, status: Status, message: str, elapsed: float) -> dict:
    return VariantResult(
        graph=request.graph,
        dtype=request.dtype,
        status=status,
        error_class=STATUS_ERROR_CLASS[status],
        error=message,
        worker_seconds=elapsed,
    ).model_dump(mode="json")


def environment(device: str) -> Environment:
    import torch

    try:
        import triton

        triton_version: str | None = triton.__version__
    except ImportError:
        triton_version = None
    name, cuda, driver = platform.processor() or platform.machine(), None, None
    if device.startswith("cuda"):
        idx = torch.device(device).index or 0
        name = torch.cuda.get_device_name(idx)
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


def evaluate_variant(
    variant: Variant,
    candidate: CandidateSpec,
    *,
    device: str = "cpu",
    parameters: Parameters | None = None,
    with_inductor: bool = False,
    memory_limit: int | None = -1,
) -> VariantResult:
    """Evaluate ``candidate`` on one variant in a fresh worker process; never raises for the
    candidate's faults (they come back as the result's status)."""
    params = parameters or Parameters()
    if memory_limit == -1:
        memory_limit = default_memory_limit(device)
    seed = params.seed if params.seed is not None else secrets.randbits(31)
    request = WorkerRequest(
        graph=variant.graph,
        path=str(variant.path),
        dtype=variant.dtype,
        device=device,
        seed=seed,
        recheck_seed=(seed * 7919 + 1) % (2**31),
        candidate=candidate.model_dump(),
        parameters=params.model_dump(),
        with_inductor=with_inductor,
    )
    return VariantResult.model_validate(run_worker(request, params.timeout_s, memory_limit))


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


def evaluate_task(
    task: Task | str | Path,
    candidate: CandidateSpec,
    *,
    device: str = "cpu",
    parameters: Parameters | None = None,
    with_inductor: bool = False,
    memory_limit: int | None = -1,
    on_variant: Callable[[Variant, VariantResult], None] | None = None,
) -> TaskResult:
    """Evaluate ``candidate`` on every variant of ``task`` and score it (SPEC sections 5-7)."""
    params = parameters or Parameters()
    if not isinstance(task, Task):
        task = load_task(task)
    t0 = time.perf_counter()
    results: list[VariantResult] = []
    for variant in task.variants:
        vr = evaluate_variant(
            variant,
            candidate,
            device=device,
            parameters=params,
            with_inductor=with_inductor,
            memory_limit=memory_limit,
        )
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
