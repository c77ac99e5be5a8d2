"""What isolates a worker: the environment it is started into and what it applies to itself.

Each worker gets a private temporary directory, a scrubbed environment (no API keys), a
memory limit (RLIMIT_AS on CPU, RLIMIT_DATA plus a CUDA memory fraction on a GPU), no core
dumps, the highest OOM-killer score, its own network namespace where the platform allows
(recorded in the result) and the CPU affinity of the driver thread that asked for it. The
driver builds the environment (``worker_env``); the worker applies the rest to itself, first
thing, while it is single-threaded (``apply_limits``, from ``worker.become_worker``). Which
compile caches it uses is ``compile_cache``; how long it lives is ``lifetime``.
"""

from __future__ import annotations

import ctypes
import os
import re
import resource
from collections.abc import Callable
from pathlib import Path

from passnet.evaluation.compile_cache import compile_cache_dir
from passnet.evaluation.request import WorkerRequest, WorkerSpec

_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH", re.IGNORECASE)


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


def worker_role(request: WorkerRequest) -> str:
    """``eager`` or ``inductor`` (baselines: only harness code runs) or ``pass``."""
    from passnet.evaluation.candidates import KINDS

    kind = KINDS.get(request.candidate.kind)
    return request.candidate.kind if kind is not None and kind.baseline else "pass"


def is_trusted(request: WorkerRequest) -> bool:
    """Only harness code runs in the worker: a baseline candidate (no pass folder)."""
    return worker_role(request) != "pass"


def default_memory_limit(device: str) -> int | None:
    """Workers get at most 3/4 of RAM: RLIMIT_AS on CPU; on CUDA (which reserves huge address
    space) RLIMIT_DATA, which counts only writable private memory."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None
    return int(total * 0.75)


def affinity() -> frozenset[int] | None:
    """This thread's CPUs (a worker started from it inherits them, a forked one sets them)."""
    try:
        return frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def netns() -> str:
    """This process's network namespace (``net:[inode]``; '' where it cannot be read)."""
    try:
        return os.readlink("/proc/self/ns/net")
    except OSError:
        return ""


_CLONE_NEWNET, _CLONE_NEWUSER = 0x40000000, 0x10000000
try:
    _UNSHARE: Callable[[int], int] | None = ctypes.CDLL(None, use_errno=True).unshare
except (OSError, AttributeError):
    _UNSHARE = None


def _isolate_network() -> None:
    """In the worker: a private network namespace (no interface but a down loopback).
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


def apply_limits(spec: WorkerSpec) -> None:
    """What a worker applies to itself, first thing, while it is still single-threaded (a
    child of a zygote right after the fork, a worker started on its own at the top of its
    ``main``; no ``preexec_fn``, which Python documents as unsafe with threads): its memory
    and core limits, its OOM score, its network namespace and the CPU affinity of the driver
    thread that asked for it."""
    if spec.memory_limit:
        kind = resource.RLIMIT_AS if spec.device.startswith("cpu") else resource.RLIMIT_DATA
        resource.setrlimit(kind, (spec.memory_limit, spec.memory_limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")  # under memory pressure the kernel kills a worker, not us
    except OSError:
        pass
    if spec.isolate_network:
        _isolate_network()
    if spec.cpus:
        os.sched_setaffinity(0, spec.cpus)
