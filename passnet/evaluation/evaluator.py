"""Evaluate a candidate on every variant of a task, each variant in its own worker process.

The parent never imports a candidate's code (it only reads pass sources for the static
policy). Each worker gets a private temporary directory, a scrubbed environment (no API
keys), its own process group (a timeout kills the whole group), a memory limit (RLIMIT_AS on
CPU, RLIMIT_DATA plus a CUDA memory fraction on a GPU), no core dumps, the highest OOM-killer
score, its own network namespace where the platform allows (recorded in the result), and
returns its result through a private pipe, framed with a nonce, never parsed from stdout.
A worker that dies or hangs becomes a classified failure of that variant; the next variant
gets a fresh worker. See ``docs/integrity.md``.
"""

from __future__ import annotations

import ctypes
import json
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
    Finding,
    Parameters,
    Status,
    TaskResult,
    VariantResult,
)
from passnet.evaluation.worker import WorkerRequest
from passnet.integrity.policy import PolicyError, check_pass_dir
from passnet.scores.metrics import compute_scores

_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH", re.IGNORECASE)
_LOG_TAIL = 1500


def compile_cache_dir() -> Path | None:
    """Inductor/Triton cache shared by baseline workers; None when ``PASSNET_COMPILE_CACHE``
    is ``off``. Without it every worker's private TMPDIR holds a cold cache, and each Inductor
    variant on CPU rebuilds the precompiled C++ header (most of its 30 s)."""
    setting = os.environ.get("PASSNET_COMPILE_CACHE", "")
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    if setting:
        return Path(setting)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "passnet" / "compile"


def worker_env(device: str, tmpdir: str, trusted: bool = False) -> dict[str, str]:
    """The environment a worker sees: no secrets, a private TMPDIR, the interpreter on CPU.

    ``trusted`` workers (eager and Inductor baselines: no pass code runs in them) share the
    compile cache of ``compile_cache_dir()``; a worker that runs a pass keeps a private one,
    so a pass can never plant artefacts a baseline would load."""
    env = {k: v for k, v in os.environ.items() if not _SECRET.search(k)}
    env["TMPDIR"] = tmpdir
    for name in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):
        env.pop(name, None)
    shared = compile_cache_dir() if trusted else None
    if shared is not None:
        env["TORCHINDUCTOR_CACHE_DIR"] = str(shared / "inductor")
        env["TRITON_CACHE_DIR"] = str(shared / "triton")
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


_CLONE_NEWNET, _CLONE_NEWUSER = 0x40000000, 0x10000000
try:
    _UNSHARE: Callable[[int], int] | None = ctypes.CDLL(None, use_errno=True).unshare
except (OSError, AttributeError):
    _UNSHARE = None


def _isolate_network() -> None:
    """In the forked child: a private network namespace (no interface but a down loopback).
    Privileged: unshare(CLONE_NEWNET); else inside a new user namespace mapping our own ids.
    Fails silently where the platform forbids both; the worker reports what applied."""
    if _UNSHARE is None or _UNSHARE(_CLONE_NEWNET) == 0:
        return
    uid, gid = os.getuid(), os.getgid()
    if _UNSHARE(_CLONE_NEWUSER | _CLONE_NEWNET) != 0:
        return
    for path, text in (
        ("/proc/self/setgroups", "deny"),
        ("/proc/self/uid_map", f"{uid} {uid} 1"),
        ("/proc/self/gid_map", f"{gid} {gid} 1"),
    ):
        try:
            with open(path, "w") as f:
                f.write(text)
        except OSError:
            pass


def _sandbox_child(
    limit_bytes: int | None, device: str, isolate_network: bool
) -> Callable[[], None]:
    """What the forked worker applies to itself before exec."""
    kind = resource.RLIMIT_AS if device.startswith("cpu") else resource.RLIMIT_DATA

    def apply() -> None:
        if limit_bytes:
            resource.setrlimit(kind, (limit_bytes, limit_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")  # under memory pressure the kernel kills a worker, not us
        except OSError:
            pass
        if isolate_network:
            _isolate_network()

    return apply


def default_memory_limit(device: str) -> int | None:
    """Workers get at most 3/4 of RAM: RLIMIT_AS on CPU; on CUDA (which reserves huge address
    space) RLIMIT_DATA, which counts only writable private memory."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None
    return int(total * 0.75)


def _netns() -> str:
    try:
        return os.readlink("/proc/self/ns/net")
    except OSError:
        return ""


def is_trusted(request: WorkerRequest) -> bool:
    """Only harness code runs in the worker: a baseline candidate (no pass folder)."""
    return request.candidate.get("kind") in ("eager", "inductor")


def run_worker(
    request: WorkerRequest,
    timeout_s: float,
    memory_limit: int | None = None,
    *,
    isolate_network: bool = True,
) -> dict:
    """Run one worker to completion or death; always returns a VariantResult-shaped dict."""
    request = request.model_copy(
        update={"nonce": secrets.token_hex(16), "parent_netns": _netns() if isolate_network else ""}
    )
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
                env=worker_env(request.device, tmpdir, trusted=is_trusted(request)),
                pass_fds=(write_fd,),
                start_new_session=True,
                preexec_fn=_sandbox_child(memory_limit, request.device, isolate_network),
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
            head, _, body = payload.partition(b"\n")
            try:
                out = json.loads(body) if head == request.nonce.encode() else None
            except ValueError:
                out = None
            if not isinstance(out, dict):
                return _forged(request, payload, elapsed)
            out.setdefault("worker_seconds", elapsed)
            return out
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


def _forged(request: WorkerRequest, payload: bytes, elapsed: float) -> dict:
    """Bytes on the result channel that are not exactly one message with our nonce."""
    shown = payload[:120].decode(errors="replace")
    detail = f"result channel held {len(payload)} byte(s) not framed by the worker: {shown!r}"
    result = _failure(request, Status.REJECTED, f"integrity: forged-result: {detail}", elapsed)
    result["integrity"] = [Finding(check="forged-result", detail=detail).model_dump()]
    return result


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
    isolate_network: bool = True,
) -> VariantResult:
    """Evaluate ``candidate`` on one variant in a fresh worker process; never raises for the
    candidate's faults (they come back as the result's status). A pass folder that fails the
    static policy is rejected here without a worker (the worker enforces it again)."""
    params = parameters or Parameters()
    if memory_limit == -1:
        memory_limit = default_memory_limit(device)
    if candidate.kind == "pass" and params.policy:
        violations = check_pass_dir(candidate.pass_dir or "")
        if violations:
            return VariantResult(
                graph=variant.graph,
                dtype=variant.dtype,
                status=Status.REJECTED,
                error_class=STATUS_ERROR_CLASS[Status.REJECTED],
                error=str(PolicyError(violations)),
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
        candidate=candidate.model_dump(),
        parameters=params.model_dump(),
        with_inductor=with_inductor,
    )
    out = run_worker(request, params.timeout_s, memory_limit, isolate_network=isolate_network)
    return VariantResult.model_validate(out)


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
    isolate_network: bool = True,
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
            isolate_network=isolate_network,
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
