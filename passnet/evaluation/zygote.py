"""The fork server's zygote: a clean image every worker of one kind is forked from.

Run as ``python -m passnet.evaluation.zygote --control-fd N --parent-pid P``, started by the
driver (``forkserver``) with the scrubbed worker environment of its kind. It imports what every
worker needs (``worker.preload``), then forks one worker per request that arrives on the
control socket. It never runs pass code, never touches a device (CUDA stays uninitialised, so
forking is safe) and never evaluates anything: every worker is a fresh fork of the same clean
image and costs its own work only, not an interpreter start and torch's import.

The forked child sheds the zygote's descriptors and takes the worker's (its own session,
stdin and log from the descriptors the driver sent, SCM_RIGHTS), re-points what preloading
derived from the zygote's TMPDIR, then becomes a worker exactly as one started on its own does
(``worker.become_worker``: its ``WorkerSpec``'s TMPDIR as cwd, its own limits, guardian and
parent-death signal, the result channel and the witness moved, then ``worker.serve``). The
zygote reaps each worker and reports its exit status and resource usage through the worker's
status pipe, which only the zygote and the driver hold.

The zygote dies with the driver (parent-death signal, and EOF on the control socket), and its
workers die with it (their parent-death signal) and with the driver (their guardians).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import select
import shutil
import signal
import socket
import sys
import traceback
from typing import Any, NoReturn

from passnet.evaluation.lifetime import die_with_parent, set_dumpable, set_name
from passnet.evaluation.request import WorkerSpec
from passnet.evaluation.worker import WorkerFds, become_worker, preload
from passnet.integrity.process_probes import native_threads


def threads() -> int:
    """Native threads of this process; 1 without ``/proc`` (nothing to check there)."""
    return max(native_threads(), 1)


def _unsafe_to_fork() -> str:
    """Why forking this image would be unsafe now, or ''."""
    if threads() != 1:
        names = []
        for tid in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{tid}/comm") as f:
                    names.append(f.read().strip())
            except OSError:
                pass
        return f"{len(names)} threads ({', '.join(names)})"
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return "CUDA is initialised"
    return ""


def _settle() -> str:
    """Make the preloaded image single-threaded; return why it is not, or ''.

    Importing numpy (torch does) starts OpenBLAS's thread pool (cores - 1 threads); OpenBLAS's
    own fork handler joins it before every fork and restarts it lazily in whoever computes
    next. One throw-away fork here therefore leaves the zygote single-threaded for good (it
    never computes), and each worker starts its own pool when it needs one."""
    if threads() != 1:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    return _unsafe_to_fork()


def _tmp_references(tmpdir: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Module attributes and environment variables that preloading derived from the zygote's
    TMPDIR (Inductor computes its precompiled-header folder at import); each worker re-points
    them to its own TMPDIR, as if it had imported them itself."""
    attrs = []
    for name, module in list(sys.modules.items()):
        for attr, value in list(getattr(module, "__dict__", {}).items()):
            if type(value) is str and value.startswith(tmpdir):  # no proxy's __class__
                attrs.append((name, attr))
    env = [k for k, v in os.environ.items() if v.startswith(tmpdir) and k != "TMPDIR"]
    return attrs, env


def _become_worker(
    spec: WorkerSpec, fds: list[int], own: list[int], started: int, stale: Any
) -> NoReturn:
    """The forked child: shed the zygote's descriptors and state, take the worker's, then
    become a worker as one started on its own does (``worker.become_worker``)."""
    try:
        set_name("passnet-worker")
        set_dumpable(True)  # as a worker started on its own (core dumps stay off: RLIMIT_CORE)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in own:  # the control socket, the wake-up pipe, other workers' status pipes
            os.close(fd)
        stdin, log, result, seen = fds
        os.setsid()  # its own session and process group: a timeout kills the whole group
        os.close(started)  # the zygote answers the driver only now, so killpg always finds us
        os.dup2(stdin, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(stdin)
        os.close(log)
        old, tmpdir = os.environ["TMPDIR"], spec.tmpdir
        attrs, env = stale  # what preloading derived from the zygote's TMPDIR: now ours
        for name, attr in attrs:
            value = getattr(sys.modules[name], attr)
            setattr(sys.modules[name], attr, tmpdir + value[len(old) :])
        for key in env:
            os.environ[key] = tmpdir + os.environ[key][len(old) :]
        if "numpy" in sys.modules:  # numpy's global generator is not reseeded by a fork
            sys.modules["numpy"].random.seed()
        become_worker(spec, WorkerFds(result, seen))
    except BaseException:  # noqa: BLE001 - never return into the zygote's loop
        traceback.print_exc()
    finally:
        os._exit(70)


def _reap(status: dict[int, int]) -> None:
    """Report every ended worker (exit code, rusage) on its status pipe, then close it."""
    while True:
        try:
            pid, st, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        fd = status.pop(pid, None)
        if fd is None:
            continue
        try:
            os.write(fd, json.dumps([os.waitstatus_to_exitcode(st), list(usage)]).encode())
        except OSError:
            pass  # the driver stopped listening
        os.close(fd)


def fork_loop(control: socket.socket, stale: Any) -> None:
    """Fork a worker per request until the driver closes the control socket (or dies)."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    status: dict[int, int] = {}  # worker pid -> its status pipe
    while True:
        ready = select.select([control.fileno(), wake_r], [], [])[0]
        if wake_r in ready:
            while True:
                try:
                    if not os.read(wake_r, 512):
                        break
                except BlockingIOError:
                    break
            _reap(status)
        if control.fileno() not in ready:
            continue
        try:
            msg, fds, _, _ = socket.recv_fds(control, 1 << 16, 5)
        except OSError:
            return
        if not msg:
            return  # EOF: the driver stopped us or died
        spec = WorkerSpec.model_validate_json(msg)
        *worker_fds, status_fd = fds
        why = _unsafe_to_fork()
        started_r, started_w = os.pipe()
        pid = -1 if why else os.fork()
        if pid == 0:
            own = [control.fileno(), wake_r, wake_w, status_fd, started_r, *status.values()]
            _become_worker(spec, worker_fds, own, started_w, stale)
        os.close(started_w)
        os.read(started_r, 1)  # EOF once the child has its own session (or died)
        os.close(started_r)
        for fd in worker_fds:
            os.close(fd)
        if pid > 0:
            status[pid] = status_fd
        else:
            os.close(status_fd)
        control.send(str(pid).encode() if pid > 0 else f"error: {why}".encode())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--control-fd", type=int, required=True)
    parser.add_argument("--parent-pid", type=int, required=True)
    parser.add_argument("--preload-inductor", action="store_true")
    parser.add_argument("--preload-launch", action="store_true")
    parser.add_argument("--preload-cuda", action="store_true")
    args = parser.parse_args(argv)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core files of the image, ever
    set_name("passnet-zygote")
    set_dumpable(False)  # no ptrace, no /proc/PID/mem for a same-user pass: nothing to plant
    die_with_parent(args.parent_pid)
    control = socket.socket(fileno=args.control_fd)
    del sys.argv[1:]
    preload(inductor=args.preload_inductor, launch=args.preload_launch, cuda=args.preload_cuda)
    tmpdir = os.environ["TMPDIR"]
    stale = _tmp_references(tmpdir)
    why = _settle()
    if why:
        print(f"passnet zygote: cannot fork safely: {why}", file=sys.stderr, flush=True)
        return 3
    shutil.rmtree(tmpdir, ignore_errors=True)  # nothing of it is shared with a worker
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    gc.collect()
    gc.freeze()  # keep the preloaded objects out of the collector: fewer copied pages per fork
    control.send(b"ready")
    fork_loop(control, stale)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
