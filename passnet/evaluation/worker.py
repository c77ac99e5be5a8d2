"""Evaluate one variant of a task inside a sandboxed worker process.

Forked from a zygote (``passnet.evaluation.zygote``, the default) or run as
``python -m passnet.evaluation.worker --result-fd N``: the request (JSON) arrives on stdin,
the VariantResult (JSON) leaves through a private channel (file descriptor N), so nothing a
candidate prints can be mistaken for a result. The channel is moved to another
descriptor before any pass code runs and every message carries the parent's nonce. The parent
kills the worker at its timeout; the worker also dies with the parent and keeps the timeout
itself (``passnet.evaluation.lifetime``).

Integrity (SPEC section 8, ``docs/integrity.md``): the static policy runs before any pass
code is imported; the runtime guards of ``passnet.integrity`` watch every correctness call, a
ghost replay and a secret sample of the timed calls.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, NoReturn

from passnet.evaluation.candidates import kind_of
from passnet.evaluation.request import WorkerRequest
from passnet.evaluation.variant import error_site, run_variant, short_error

if TYPE_CHECKING:
    import torch

    from passnet.evaluation.lifetime import Guardian

__all__ = ["WorkerRequest", "main", "preload", "run_variant", "serve"]


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


def main(argv: list[str] | None = None) -> int:
    """A worker started as its own process (``PASSNET_FORK_SERVER=0``, or no fork server)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--result-fd", type=int, required=True)
    parser.add_argument("--witness-fd", type=int, default=-1)
    parser.add_argument("--preload-inductor", action="store_true")
    parser.add_argument("--preload-launch", action="store_true")
    parser.add_argument("--preload-cuda", action="store_true")
    parser.add_argument("--parent-pid", type=int, default=None)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--memory-limit", type=int, default=0)
    parser.add_argument("--isolate-network", action="store_true")
    parser.add_argument("--cpus", default="")
    args = parser.parse_args(argv)
    # Limits first, while this process is single-threaded (unsharing the network needs that).
    from passnet.evaluation.sandbox import apply_limits

    cpus = frozenset(int(c) for c in args.cpus.split(",") if c) or None
    apply_limits(args.memory_limit or None, args.device, args.isolate_network, cpus)()
    # Before anything slow: die with the driver, and a guardian that outlives our GIL.
    from passnet.evaluation.lifetime import Guardian, set_name

    set_name("passnet-worker")
    guardian = Guardian(args.parent_pid)
    # Move the channel off the number named on the command line (non-inheritable copy).
    channel = os.dup(args.result_fd)
    os.close(args.result_fd)
    witness_fd = -1
    if args.witness_fd >= 0:
        witness_fd = os.dup(args.witness_fd)
        os.close(args.witness_fd)
    del sys.argv[1:]
    preload(inductor=args.preload_inductor, launch=args.preload_launch, cuda=args.preload_cuda)
    serve(channel, guardian, witness_fd)


def serve(channel: int, guardian: Guardian, witness_fd: int = -1) -> NoReturn:
    """Read the request on stdin, evaluate it, answer on ``channel``, exit. Shared by a worker
    started on its own (``main``) and one forked from a zygote (``passnet.evaluation.zygote``),
    both sandboxed and preloaded by now. ``witness_fd``: the timing witness's socket
    (``passnet.evaluation.witness``), reported on for a pass's timed calls."""
    text = sys.stdin.read()
    sys.stdin.close()
    if not text.strip():  # a spare whose parent went away (or never needed it)
        os._exit(0)
    req = WorkerRequest.model_validate_json(text)
    guardian.arm(req.timeout_s)  # our own wall-clock and CPU-time limits start now
    from passnet.evaluation import witness

    witness.open_channel(witness_fd)
    if kind_of(req.candidate).runs_pass_code:  # before the pass's code can compile anything
        from passnet.evaluation.compile_cache import use_pass_cache

        use_pass_cache(req.pass_cache_dir, os.environ.get("TMPDIR") or tempfile.gettempdir())
    nonce, req.nonce = req.nonce, ""
    t0 = time.perf_counter()
    try:
        out = run_variant(req)
    except BaseException as exc:  # noqa: BLE001 - report, then die; the parent classifies
        out = {
            "graph": req.graph,
            "dtype": req.dtype,
            "status": "runtime_error",
            "error_class": "runtime",
            "error": f"worker error: {short_error(exc)}{error_site(exc)}",
        }
    out["worker_seconds"] = time.perf_counter() - t0
    data = (nonce + "\n" + json.dumps(out)).encode()
    while data:
        data = data[os.write(channel, data) :]
    os.close(channel)
    # Skip interpreter teardown: a candidate's atexit hooks or threads must not hang us.
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
