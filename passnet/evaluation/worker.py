"""Evaluate one variant of a task inside a sandboxed worker process.

Forked from a zygote (``passnet.evaluation.zygote``, the default) or run as
``python -m passnet.evaluation.worker --result-fd N --witness-fd M --spec JSON``; either way
the process becomes a worker through ``become_worker`` (its ``WorkerSpec``: the sandbox it
applies to itself, in one place). The request (JSON) arrives on stdin, the VariantResult
(JSON) leaves through a private channel (``passnet.evaluation.channel``), so nothing a
candidate prints can be mistaken for a result. The channel is moved to another descriptor
before any pass code runs and every message carries the parent's nonce. The parent kills the
worker at its timeout; the worker also dies with the parent and keeps the timeout itself
(``passnet.evaluation.lifetime``).

Integrity (SPEC section 8, ``docs/integrity.md``): the static policy runs before any pass
code is imported; the runtime guards of ``passnet.integrity`` watch every correctness call, a
ghost replay and a secret sample of the timed calls.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from passnet.core.results import STATUS_ERROR_CLASS, Status, VariantResult
from passnet.evaluation import channel
from passnet.evaluation.request import WorkerRequest, WorkerSpec
from passnet.evaluation.variant import error_site, run_variant, short_error

if TYPE_CHECKING:
    import torch

    from passnet.evaluation.lifetime import Guardian

__all__ = ["WorkerRequest", "WorkerSpec", "become_worker", "main", "preload", "run_variant",
           "serve"]  # fmt: skip


@contextmanager
def cuda_known_available() -> Iterator[None]:
    """``torch.cuda.is_available()`` answers True without asking the driver, for the duration.

    Inductor asks it while it is imported (to choose its benchmarker); on a GPU host the real
    answer starts a driver thread (NVML's init, or cuInit without
    ``PYTORCH_NVML_BASED_CUDA_CHECK``), after which a zygote's image can no longer be forked.
    A zygote of a CUDA device knows the answer its workers will get, so it gives that one."""
    import torch

    real = torch.cuda.is_available
    torch.cuda.is_available = lambda: True
    try:
        yield
    finally:
        torch.cuda.is_available = real


def preload(inductor: bool = False, launch: bool = False, cuda: bool = False) -> None:
    """Import what every evaluation needs before the request arrives, in a fork server's
    zygote (``passnet.evaluation.zygote``: each worker forked from it skips torch's import) or
    in a worker started on its own, so that a spare pays the import while the previous
    variant runs. No pass code and no device work happen here (CUDA stays uninitialised,
    which makes the zygote safe to fork).
    ``inductor``: also Inductor's compiler (a baseline worker that will compile).
    ``launch``: also what a pass's first Triton launch on CUDA would otherwise pay in every
    worker (``warm_launch_path``). ``cuda``: the image is for a CUDA device, so Inductor's
    import is told so instead of asking the driver (``cuda_known_available``)."""
    import torch  # noqa: F401

    if inductor:
        with cuda_known_available() if cuda else nullcontext():
            import torch._inductor.compile_fx  # noqa: F401

    import passnet.evaluation.candidates  # noqa: F401
    import passnet.evaluation.device_lock  # noqa: F401
    import passnet.evaluation.phases  # noqa: F401 - the evaluation itself
    import passnet.evaluation.timing  # noqa: F401
    import passnet.integrity.runtime  # noqa: F401
    import passnet.passes.launch  # noqa: F401 - builds or loads the native launch path
    import passnet.passes.matcher  # noqa: F401
    import passnet.passes.plans  # noqa: F401 - what synthesised wrappers import

    try:
        import triton  # noqa: F401
    except ImportError:
        return
    if launch:
        warm_launch_path()


def warm_launch_path() -> None:
    """The fixed costs of a first Triton launch that need no device, paid once in the image:
    PyTorch's static CUDA launcher (its import pulls in ``torch._inductor.utils``, Dynamo and
    sympy), Triton's Gluon modules and its own hash of its sources and library (part of
    every cache key).
    Neither runs pass code nor initialises CUDA; a failure only leaves the cost to the worker."""
    try:
        import torch._inductor.runtime.static_cuda_launcher  # noqa: F401
    except ImportError:
        try:
            import torch._inductor.runtime.static_triton_launcher  # noqa: F401
        except ImportError:
            pass
    try:
        # Triton's JIT imports its Gluon dialect on a kernel's first specialisation
        import triton.experimental.gluon  # noqa: F401
    except Exception:  # noqa: BLE001, S110 - a Triton without it: nothing to pay ahead
        pass
    try:
        from triton.runtime.cache import triton_key

        triton_key()
        from triton.backends.nvidia.driver import libcuda_dirs

        libcuda_dirs()  # runs ldconfig; loads no driver
    except Exception:  # noqa: BLE001 - an older or newer Triton: the worker computes it
        pass


def warm_device(device: str, lock_dir: str = "") -> None:
    """A warm spare's CUDA context, made before its request arrives (the first CUDA call of a
    process creates it: a third of a second or more on a GPU host, longer with several
    workers starting at once). Made with the device's lock held shared (``lock_dir``, the
    driver's), like every preparation: a context created while another worker times would
    share the GPU with that timing. Touches no pass code; a failure leaves it to the worker."""
    if not device.startswith("cuda"):
        return
    try:
        import torch

        torch.cuda.init()
        with shared_hold(lock_dir, torch.device(device)):
            torch.cuda.synchronize()  # the primary context exists from here on
    except Exception:  # noqa: BLE001, S110 - the worker initialises CUDA itself then
        pass


@contextmanager
def shared_hold(lock_dir: str, device: torch.device) -> Iterator[None]:
    """The device's lock (``passnet.evaluation.device_lock``) held shared for the block, or
    nothing when there is no lock folder (the lock is off)."""
    if not lock_dir:
        yield
        return
    from passnet.evaluation.device_lock import DeviceLock

    lock = DeviceLock(lock_dir, device)
    try:
        lock.acquire_shared()
        yield
    finally:
        lock.close()


@dataclass(frozen=True)
class WorkerFds:
    """The descriptors a new worker holds under the numbers its starter gave them."""

    result: int  # the write end of the result channel
    witness: int = -1  # its end of the timing witness's socket pair (-1: none)


def _moved(fd: int) -> int:
    """``fd`` under a new number, named nowhere (a non-inheritable copy); -1 stays -1."""
    if fd < 0:
        return -1
    new = os.dup(fd)
    os.close(fd)
    return new


def become_worker(
    spec: WorkerSpec, fds: WorkerFds, preloads: dict[str, bool] | None = None
) -> NoReturn:
    """Apply the sandbox of ``spec`` to this process, then serve one request: the one start
    sequence of every worker, forked from a zygote (``zygote._become_worker``, after it shed
    the zygote's descriptors) or started on its own (``main``). Before any request is read:
    its TMPDIR as cwd; its limits, namespace and affinity while it is still single-threaded
    (unsharing the network needs that); its guardian (it dies with the driver and keeps its
    time limit without it); the result channel and the witness moved off the numbers its
    starter named; the arguments it was started with hidden. ``preloads``: what to import
    first (``preload``'s flags: a fresh interpreter; None: a zygote's image has them).
    ``spec.warm``: a spare makes its device's context while it waits."""
    from passnet.evaluation.isolation import apply_limits
    from passnet.evaluation.lifetime import Guardian, set_name

    os.chdir(spec.tmpdir)
    os.environ["TMPDIR"] = spec.tmpdir  # read by the guardian: the folder it removes
    tempfile.tempdir = None
    apply_limits(spec)
    set_name("passnet-worker")
    guardian = Guardian(spec.parent or spec.driver, driver=spec.driver)
    result_fd, witness_fd = _moved(fds.result), _moved(fds.witness)
    del sys.argv[1:]
    if preloads is not None:
        preload(**preloads)
    if spec.warm:
        warm_device(spec.device, spec.lock_dir)
    serve(result_fd, guardian, witness_fd)


def main(argv: list[str] | None = None) -> int:
    """A worker started as its own process (``PASSNET_FORK_SERVER=0``, or no fork server)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--result-fd", type=int, required=True)
    parser.add_argument("--witness-fd", type=int, default=-1)
    parser.add_argument("--spec", required=True, help="its WorkerSpec (JSON)")
    parser.add_argument("--preload-inductor", action="store_true")
    parser.add_argument("--preload-launch", action="store_true")
    parser.add_argument("--preload-cuda", action="store_true")
    args = parser.parse_args(argv)
    spec = WorkerSpec.model_validate_json(args.spec)
    preloads = {"inductor": args.preload_inductor, "launch": args.preload_launch,
                "cuda": args.preload_cuda}  # fmt: skip
    become_worker(spec, WorkerFds(args.result_fd, args.witness_fd), preloads)


def worker_error(req: WorkerRequest, exc: BaseException) -> VariantResult:
    """The result of an evaluation that raised out of the harness (the parent classifies a
    worker that died instead)."""
    return VariantResult(
        graph=req.graph,
        dtype=req.dtype,
        status=Status.RUNTIME_ERROR,
        error_class=STATUS_ERROR_CLASS[Status.RUNTIME_ERROR],
        error=f"worker error: {short_error(exc)}{error_site(exc)}",
    )


def serve(result_fd: int, guardian: Guardian, witness_fd: int = -1) -> NoReturn:
    """Read the request on stdin, evaluate it, answer on ``result_fd``, exit. The end of
    ``become_worker``: the process is sandboxed and preloaded by now. ``witness_fd``: the
    timing witness's socket (``passnet.evaluation.witness``), reported on for a pass's timed
    calls."""
    text = sys.stdin.read()
    sys.stdin.close()
    if not text.strip():  # a spare whose parent went away (or never needed it)
        os._exit(0)
    req = WorkerRequest.model_validate_json(text)
    guardian.arm(req.timeout_s)  # our own wall-clock and CPU-time limits start now
    from passnet.evaluation import witness
    from passnet.evaluation.candidates import kind_of  # imports torch: after the guardian

    witness.open_channel(witness_fd)
    if kind_of(req.candidate).runs_pass_code:  # before the pass's code can compile anything
        from passnet.evaluation.compile_cache import use_pass_cache

        use_pass_cache(req.pass_cache_dir, os.environ.get("TMPDIR") or tempfile.gettempdir())
    nonce, req.nonce = req.nonce, ""
    t0 = time.perf_counter()
    try:
        result = run_variant(req)
        result.worker_seconds = time.perf_counter() - t0
        body = channel.encode(result)  # in here: a result that cannot be written is an error
    except BaseException as exc:  # noqa: BLE001 - report, then die; the parent classifies
        result = worker_error(req, exc)
        result.worker_seconds = time.perf_counter() - t0
        body = channel.encode(result)
    channel.send(result_fd, nonce, body)
    # Skip interpreter teardown: a candidate's atexit hooks or threads must not hang us.
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
