"""Sandboxed worker processes: environment, limits, spares, and the private result channel.

Each worker gets a private temporary directory, a scrubbed environment (no API keys), its own
process group (a timeout kills the whole group), a memory limit (RLIMIT_AS on CPU, RLIMIT_DATA
plus a CUDA memory fraction on a GPU), no core dumps, the highest OOM-killer score, its own
network namespace where the platform allows (recorded in the result), and returns its result
through a private pipe, framed with a nonce, never parsed from stdout. A worker that dies or
hangs becomes a classified failure of that variant; the next variant gets a fresh worker.
Workers die with this process and keep their time limit without it (``lifetime``). Which
compile caches they use is ``compile_cache``.

Starting a worker costs an interpreter and torch's import (seconds). So by default each
worker is forked from a *zygote* of its kind (``forkserver``): a clean, preloaded image that
never runs pass code. Inside ``spare_workers(stock)`` the next workers are forked ahead of
time as *warm spares*: sandboxed, with their device's context made (a CUDA context is the
first cost of a worker on a GPU), waiting for a request; each is used once. With
``PASSNET_FORK_SERVER=0`` (or off Linux) each worker is started on its own, and inside the
scope one spare per kind of worker is started ahead and waits, torch imported. Either way
each variant gets a fresh process that has never run pass code. See ``docs/integrity.md``.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from passnet.core.results import STATUS_ERROR_CLASS, Finding, Status, VariantResult
from passnet.evaluation import device_lock, forkserver, lifetime, witness
from passnet.evaluation.compile_cache import compile_cache_dir, share_compile_tmp, switched_off
from passnet.evaluation.worker import WorkerRequest

_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH", re.IGNORECASE)
_LOG_TAIL = 1500


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
    root = str(Path(__file__).resolve().parents[2])  # the folder that holds passnet/
    env["PYTHONPATH"] = os.pathsep.join(
        [root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    if device.startswith("cpu"):
        env["TRITON_INTERPRET"] = "1"
    else:
        env.pop("TRITON_INTERPRET", None)
        # torch.cuda.is_available() otherwise asks the CUDA runtime, whose cuInit starts the
        # driver's threads: an image that imported Inductor could then no longer be forked
        env.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
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


def apply_limits(
    limit_bytes: int | None,
    device: str,
    isolate_network: bool,
    cpus: frozenset[int] | None = None,
) -> Callable[[], None]:
    """What a worker applies to itself, first thing, while it is still single-threaded: a
    child of a zygote right after the fork, a worker started on its own at the top of its
    ``main`` (no ``preexec_fn``, which Python documents as unsafe with threads). ``cpus``: the
    affinity of the driver thread that asked for the worker."""
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
        if cpus:
            os.sched_setaffinity(0, cpus)

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


def worker_role(request: WorkerRequest) -> str:
    """``eager`` or ``inductor`` (baselines: only harness code runs) or ``pass``."""
    from passnet.evaluation.candidates import KINDS

    kind = KINDS.get(request.candidate.kind)
    return request.candidate.kind if kind is not None and kind.baseline else "pass"


def is_trusted(request: WorkerRequest) -> bool:
    """Only harness code runs in the worker: a baseline candidate (no pass folder)."""
    return worker_role(request) != "pass"


_Key = tuple[str, str, "int | None", bool, "frozenset[int] | None"]
"""What a spare must match: (device kind, role (``worker_role``), memory limit, network
isolation, the calling thread's CPU affinity, which the spawned process inherits)."""


def _affinity() -> frozenset[int] | None:
    try:
        return frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def _kill_group(proc: subprocess.Popen | forkserver.ForkedProcess) -> None:
    """Kill the worker's whole process group (its children and threads go with it); reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


@dataclass
class _Worker:
    """A started worker process waiting for its request on stdin (torch already imported)."""

    proc: subprocess.Popen | forkserver.ForkedProcess
    tmpdir: str
    read_fd: int
    log_path: Path
    seen: socket.socket  # the parent's end of the timing witness (passnet.evaluation.witness)

    def discard(self) -> None:
        _kill_group(self.proc)
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            os.close(self.read_fd)
        except OSError:
            pass
        self.seen.close()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


_SPARES: dict[_Key, _Worker] = {}  # workers started on their own, one spare per key
_WARM: dict[_Key, list[_Worker]] = {}  # forked warm spares, up to the stock per key
_USES: dict[_Key, int] = {}
_SPARES_LOCK = threading.Lock()
_STOCKS: list[int] = []  # per open scope: the warm spares it wants per kind of worker
_FORKING: dict[_Key, int] = {}  # warm spares being forked per key (reserved, not yet in _WARM)


@contextmanager
def spare_workers(stock: int = 1) -> Iterator[None]:
    """Within this scope (nestable), run_worker keeps spares: ``stock`` forked warm spares
    per kind of worker (the workers an evaluation runs at once; the largest of the open
    scopes'), or one started on its own when workers are not forked. Leaving the outermost
    scope stops them, so no spare outlives the evaluations that wanted it. Used by
    evaluate_task, the runner and ``passnet serve`` (for its whole life)."""
    stock = max(1, stock)
    with _SPARES_LOCK:
        _STOCKS.append(stock)
    try:
        yield
    finally:
        with _SPARES_LOCK:
            _STOCKS.remove(stock)
            last = not _STOCKS
        if last:
            discard_spares()


def spares_enabled() -> bool:
    """``PASSNET_SPARE_WORKERS=0`` turns spare workers off (each variant then starts cold)."""
    return not switched_off(os.environ.get("PASSNET_SPARE_WORKERS", "1"))


def _spawn(key: _Key) -> _Worker:
    device, role, memory_limit, isolate_network, cpus = key
    trusted = role != "pass"
    # An Inductor baseline's worker imports Inductor before its request (most of a first
    # compile's time on CPU, docs/runner.md); pass workers import only what the launch path
    # needs (forkserver.preload_args).
    argv = forkserver.preload_args(role, device)
    argv += ["--device", device, "--memory-limit", str(memory_limit or 0)]
    argv += ["--isolate-network"] if isolate_network else []
    argv += ["--cpus", ",".join(map(str, sorted(cpus)))] if cpus else []
    tmpdir = lifetime.worker_dir()
    if trusted:
        share_compile_tmp(tmpdir)
    read_fd, write_fd = os.pipe()
    seen, theirs = witness.pair()
    log_path = Path(tmpdir) / "worker.log"
    try:
        with open(log_path, "wb") as log:
            proc = lifetime.in_spawner_thread(lambda: subprocess.Popen(
                [sys.executable, "-m", "passnet.evaluation.worker", "--result-fd", str(write_fd),
                 "--witness-fd", str(theirs.fileno()), "--parent-pid", str(os.getpid())] + argv,
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=tmpdir,
                env=worker_env(device, tmpdir, trusted=trusted),
                pass_fds=(write_fd, theirs.fileno()),
                start_new_session=True,
            ))  # fmt: skip
    except BaseException:
        os.close(read_fd)
        seen.close()
        shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    finally:
        os.close(write_fd)
        theirs.close()
    return _Worker(proc, tmpdir, read_fd, log_path, seen)


def _fork(key: _Key, warm: bool = False) -> _Worker | None:
    """A worker forked from the zygote of its kind (None: no zygote can serve it here);
    ``warm``: it makes its device's context before it waits for its request."""
    device, role, memory_limit, isolate_network, cpus = key
    trusted = role != "pass"
    tmpdir = lifetime.worker_dir()
    if trusted:
        share_compile_tmp(tmpdir)
    read_fd, write_fd = os.pipe()
    seen, theirs = witness.pair()
    log_path = Path(tmpdir) / "worker.log"
    spec = {"tmpdir": tmpdir, "memory_limit": memory_limit, "isolate_network": isolate_network,
            "cpus": sorted(cpus) if cpus else None, "warm": warm,
            "lock_dir": str(device_lock.lock_dir()) if device_lock.enabled() else ""}  # fmt: skip
    try:
        with open(log_path, "wb") as log:
            env = worker_env(device, tmpdir, trusted=trusted)
            fds = [log.fileno(), write_fd, theirs.fileno()]
            proc = forkserver.fork_worker(device, role, env, spec, fds)
    except BaseException as exc:
        os.close(read_fd)
        seen.close()
        shutil.rmtree(tmpdir, ignore_errors=True)
        if isinstance(exc, forkserver.ForkServerUnavailable):
            return None
        raise
    finally:
        os.close(write_fd)
        theirs.close()
    return _Worker(proc, tmpdir, read_fd, log_path, seen)


def _take(key: _Key) -> _Worker:
    """A started worker for ``key``: forked from its zygote, else the spare if one is alive,
    else a new one; then, from the second use of a key on, start the next spare, so its
    interpreter and torch import overlap with this variant's run. A forked worker and a spare
    are fresh sandboxed processes that have run no pass code: taking one shares nothing with
    any other variant."""
    if forkserver.enabled() and (forked := _warm_spare(key) or _fork(key)) is not None:
        return forked  # run_worker restocks once the request is on its way
    with _SPARES_LOCK:
        worker = _SPARES.pop(key, None)
        uses = _USES[key] = _USES.get(key, 0) + 1 if _STOCKS else 0
    if worker is not None and worker.proc.poll() is not None:
        worker.discard()
        worker = None
    worker = worker or _spawn(key)
    if spares_enabled() and uses > 1:  # in a scope, from a key's second use on
        spare = _spawn(key)
        with _SPARES_LOCK:
            extra = _SPARES.pop(key, None)
            _SPARES[key] = spare
        if extra is not None:
            extra.discard()
    return worker


def _warm_spare(key: _Key) -> _Worker | None:
    """A live warm spare for ``key``, oldest first (one that died waiting is discarded)."""
    dead, found = [], None
    with _SPARES_LOCK:
        stock = _WARM.get(key, [])
        while stock and found is None:
            worker = stock.pop(0)
            if worker.proc.poll() is None:
                found = worker
            else:
                dead.append(worker)
    for worker in dead:
        worker.discard()
    return found


def _restock(key: _Key) -> None:
    """Fork warm spares for ``key`` up to the open scopes' stock: each makes its device's
    context while the workers taken before it run, so the next variant's does not wait."""
    if not forkserver.enabled():
        return
    with _SPARES_LOCK:  # reserve under the lock: threads restocking at once fork no extra
        want = max(_STOCKS, default=0) if spares_enabled() else 0
        missing = max(0, want - len(_WARM.get(key, [])) - _FORKING.get(key, 0))
        _FORKING[key] = _FORKING.get(key, 0) + missing
    settled = 0  # reservations released (forked, or given up)
    try:
        while settled < missing:
            spare = _fork(key, warm=True)
            with _SPARES_LOCK:
                _FORKING[key] -= 1
                settled += 1
                kept = spare is not None and bool(_STOCKS)  # the scope may have closed
                if kept:
                    _WARM.setdefault(key, []).append(spare)
            if not kept:
                if spare is not None:
                    spare.discard()
                return
    finally:  # what this call reserved and will not fork (stopped early, or an error)
        with _SPARES_LOCK:
            _FORKING[key] -= missing - settled


def warm_spares() -> dict[_Key, list[int]]:
    """Pids of the warm spares waiting, per kind of worker (diagnostics, tests)."""
    with _SPARES_LOCK:
        return {k: [w.proc.pid for w in v] for k, v in _WARM.items() if v}


@atexit.register
def discard_spares() -> None:
    """Stop the idle spares (they would also exit on their own once stdin closes)."""
    with _SPARES_LOCK:
        spares = list(_SPARES.values()) + [w for ws in _WARM.values() for w in ws]
        _SPARES.clear()
        _WARM.clear()
        _USES.clear()
    for worker in spares:
        worker.discard()


def run_worker(
    request: WorkerRequest,
    timeout_s: float,
    memory_limit: int | None = None,
    *,
    isolate_network: bool = True,
) -> dict:
    """Run one worker to completion or death; always returns a VariantResult-shaped dict."""
    request = request.model_copy(update={
        "nonce": secrets.token_hex(16),
        "parent_netns": _netns() if isolate_network else "",
        "timeout_s": timeout_s,
    })  # fmt: skip
    key: _Key = (
        "cpu" if request.device.startswith("cpu") else "cuda",
        worker_role(request),
        memory_limit,
        isolate_network,
        _affinity(),  # a pool thread pinned to some cores spawns workers pinned alike
    )
    worker = _take(key)
    proc = worker.proc
    reader, chunks = _drain(worker.read_fd)
    seen = witness.Log(worker.seen)
    ooms = lifetime.oom_kills()
    t0 = time.perf_counter()
    try:
        try:
            assert proc.stdin is not None
            proc.stdin.write(request.model_dump_json().encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        _restock(key)  # the next workers' start overlaps this one's run
        timed_out, usage = _wait(proc, timeout_s)
        reader.join(timeout=5)
        elapsed = time.perf_counter() - t0
        if timed_out:
            return _failure(
                request, Status.TIMEOUT, f"killed after {timeout_s:g} s wall clock", elapsed
            )
        if payload := b"".join(chunks):
            out = _answer(request, payload, elapsed)
            if key[1] == "pass" and out.get("status") != Status.REJECTED.value:
                meaningful = key[0] != "cpu"  # a pass's kernels on CPU run interpreted
                out = witness.settle(out, seen.close(), meaningful=meaningful)
            return out
        return _died(request, worker, usage, memory_limit, ooms, elapsed)
    finally:
        worker.seen.close()
        shutil.rmtree(worker.tmpdir, ignore_errors=True)


def _drain(read_fd: int) -> tuple[threading.Thread, list[bytes]]:
    """Read the result channel on a thread until the worker closes it (a worker that writes
    more than a pipe holds must not block on a parent that only reads after it exits)."""
    chunks: list[bytes] = []

    def drain() -> None:
        with os.fdopen(read_fd, "rb") as f:
            while data := f.read(65536):
                chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    return reader, chunks


def _wait(
    proc: subprocess.Popen | forkserver.ForkedProcess, timeout_s: float
) -> tuple[bool, resource.struct_rusage | None]:
    """(timed out, resource usage) of a worker, which is killed with its group either way."""
    try:
        if isinstance(proc, forkserver.ForkedProcess):
            return False, proc.wait_usage(timeout_s)
        return False, lifetime.wait(proc, timeout_s)
    except subprocess.TimeoutExpired:
        return True, None
    finally:
        _kill_group(proc)


def _answer(request: WorkerRequest, payload: bytes, elapsed: float) -> dict:
    """The worker's result, if the channel holds exactly our nonce and one JSON object."""
    head, _, body = payload.partition(b"\n")
    try:
        out = json.loads(body) if head == request.nonce.encode() else None
    except ValueError:
        out = None
    if not isinstance(out, dict):
        return _forged(request, payload, elapsed)
    out.setdefault("worker_seconds", elapsed)
    return out


def _died(
    request: WorkerRequest,
    worker: _Worker,
    usage: resource.struct_rusage | None,
    memory_limit: int | None,
    ooms: int | None,
    elapsed: float,
) -> dict:
    """A worker that exited without a result: late (a timeout), or killed or crashed, said
    from its exit status, resource usage, OOM kills and the tail of its log."""
    proc, timeout_s = worker.proc, request.timeout_s
    try:
        tail = worker.log_path.read_bytes()[-_LOG_TAIL:].decode(errors="replace").strip()
    except OSError:
        tail = ""
    code = proc.returncode
    if lifetime.TIMEOUT_MARK in tail or code == -signal.SIGXCPU:  # we were late
        by = "its guardian" if lifetime.TIMEOUT_MARK in tail else "its CPU-time limit"
        message = f"killed by {by} after its {timeout_s:g} s wall-clock limit"
        return _failure(request, Status.TIMEOUT, message, elapsed)
    if ooms is not None:
        ooms = (lifetime.oom_kills() or ooms) - ooms
    how = lifetime.exit_cause(code, tail, usage, memory_limit, ooms)
    if isinstance(proc, forkserver.ForkedProcess) and proc.zygote_died:
        how += " (its zygote died)"
    detail = f"worker {how} without a result"
    if tail:
        detail += f"; last output: {tail[-600:]}"
    return _failure(request, Status.CRASH, detail, elapsed)


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
