"""How a worker process is started: forked from the zygote of its kind, or spawned as an
interpreter of its own. Either way the new process runs ``worker.become_worker(spec, fds)``,
the one place the sandbox is applied (``passnet.evaluation.worker``).

The driver's part is the same for both (``start_worker``): a private TMPDIR (a baseline's
with the shared Inductor folder linked in), the log file, the result channel (a pipe) and
the timing witness (a socket pair, ``witness.pair``) made for every worker, whose child ends
are handed to the launcher and closed here once the worker holds them. A ``Launcher`` only
turns the typed ``WorkerSpec`` and those descriptors into a process.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from passnet.evaluation import forkserver, lifetime, witness
from passnet.evaluation.channel import kill_group
from passnet.evaluation.compile_cache import share_compile_tmp
from passnet.evaluation.forkserver import ForkedProcess
from passnet.evaluation.isolation import worker_env
from passnet.evaluation.request import WorkerSpec

Process = subprocess.Popen | ForkedProcess


@dataclass
class Worker:
    """A started worker process waiting for its request on stdin (torch already imported)."""

    proc: Process
    tmpdir: str
    read_fd: int  # the driver's end of the result channel (passnet.evaluation.channel)
    log_path: Path
    seen: socket.socket  # the parent's end of the timing witness (passnet.evaluation.witness)
    warm: bool = False  # a forked spare that made its device's context ahead

    def discard(self) -> None:
        kill_group(self.proc)
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            os.close(self.read_fd)
        except OSError:
            pass
        self.seen.close()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


@dataclass(frozen=True)
class ChildFds:
    """The descriptors a new worker gets (the driver closes its copies once it has them)."""

    log: int  # its stdout and stderr
    result: int  # the write end of the result channel
    witness: int  # its end of the timing witness's socket pair


class Launcher(Protocol):
    """Turns a spec and the worker's descriptors into a running worker process."""

    def available(self, spec: WorkerSpec) -> bool:
        """Whether this launcher may serve workers of the spec's kind here."""
        ...

    def start(self, spec: WorkerSpec, env: dict[str, str], fds: ChildFds) -> Process | None:
        """The started process (its stdin a pipe of ours), or None when this launcher
        cannot serve the spec's kind after all (the caller falls back)."""
        ...


class ForkLauncher:
    """Forks the worker from the zygote of its kind (``forkserver``): no interpreter start,
    no torch import; the zygote's image is already preloaded."""

    def available(self, spec: WorkerSpec) -> bool:
        return forkserver.available(spec.device, spec.role)

    def start(self, spec: WorkerSpec, env: dict[str, str], fds: ChildFds) -> Process | None:
        try:
            return forkserver.fork_worker(spec, env, [fds.log, fds.result, fds.witness])
        except forkserver.ForkServerUnavailable:
            return None


class SpawnLauncher:
    """Starts ``python -m passnet.evaluation.worker``, which preloads what its kind imports
    ahead (``forkserver.preload_args``) after applying the sandbox."""

    def available(self, spec: WorkerSpec) -> bool:
        return True

    def start(self, spec: WorkerSpec, env: dict[str, str], fds: ChildFds) -> Process | None:
        # An Inductor baseline's worker imports Inductor before its request (most of a first
        # compile's time on CPU, docs/workers.md); pass workers import only what the launch
        # path needs (forkserver.preload_args).
        argv = [sys.executable, "-m", "passnet.evaluation.worker", "--result-fd",
                str(fds.result), "--witness-fd", str(fds.witness), "--spec",
                spec.model_dump_json()]  # fmt: skip
        argv += forkserver.preload_args(spec.role, spec.device)
        return lifetime.in_spawner_thread(lambda: subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=fds.log,
            stderr=subprocess.STDOUT,
            cwd=spec.tmpdir,
            env=env,
            pass_fds=(fds.result, fds.witness),
            start_new_session=True,
        ))  # fmt: skip


def start_worker(launcher: Launcher, spec: WorkerSpec) -> Worker | None:
    """A worker of ``spec`` (whose ``tmpdir`` is filled in here) started by ``launcher``;
    None when the launcher cannot serve its kind (nothing is left behind then)."""
    trusted = spec.role != "pass"
    tmpdir = lifetime.worker_dir()
    if trusted:
        share_compile_tmp(tmpdir)
    spec = spec.model_copy(update={"tmpdir": tmpdir})
    read_fd, write_fd = os.pipe()
    seen, theirs = witness.pair()
    log_path = Path(tmpdir) / "worker.log"
    proc = None
    try:
        with open(log_path, "wb") as log:
            env = worker_env(spec.device, tmpdir, trusted=trusted)
            proc = launcher.start(spec, env, ChildFds(log.fileno(), write_fd, theirs.fileno()))
    finally:
        os.close(write_fd)
        theirs.close()
        if proc is None:  # refused, or an error on its way up
            os.close(read_fd)
            seen.close()
            shutil.rmtree(tmpdir, ignore_errors=True)
    if proc is None:
        return None
    return Worker(proc, tmpdir, read_fd, log_path, seen, warm=spec.warm)
