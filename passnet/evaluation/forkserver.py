"""The driver's side of the fork server: one zygote per kind of worker, a worker per fork.

Starting a worker process costs an interpreter and torch's import (seconds: most of a small
eager variant's time on a GPU host, docs/workers.md). A *zygote* (``passnet.evaluation.zygote``) pays that once per
driver and kind of worker, and forks each worker on request: a clean image that has run no
pass code and initialised no device, so every variant still gets a fresh process that shares
nothing with any other variant. A kind is what the image bakes in: device kind and role
(``isolation.worker_role``: what it preloads) and the worker environment; the rest (memory
limit, network namespace, CPU affinity, TMPDIR: its ``WorkerSpec``) each forked worker sets
for itself (``worker.become_worker``).

Linux only; ``PASSNET_FORK_SERVER=0`` turns it off (each worker is then started on its own,
with spares, as before). A zygote that cannot start (or cannot fork safely) turns it off for
its kind with one warning; one that dies is restarted on the next request.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import resource
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable

from passnet.evaluation import lifetime
from passnet.evaluation.request import WorkerSpec

READY_S = 300.0
"""How long a zygote may take to import torch and the harness (a loaded 2-core host)."""
REPLY_S = 60.0


class ForkServerUnavailable(RuntimeError):
    """No zygote can serve this kind of worker here: start the worker on its own."""


def enabled() -> bool:
    """On by default where it works (Linux); ``PASSNET_FORK_SERVER=0`` turns it off."""
    if sys.platform != "linux" or not hasattr(socket, "send_fds"):
        return False
    return os.environ.get("PASSNET_FORK_SERVER", "1").lower() not in ("0", "off", "no", "false")


def available(device: str, role: str) -> bool:
    """Whether workers of this device kind and role may be forked here (the fork server is
    on, and no zygote of the kind failed to start or to fork safely). Read without the lock,
    which a zygote's start holds for seconds: a kind found unavailable meanwhile is refused
    by ``fork_worker``."""
    return enabled() and (device, role) not in _UNAVAILABLE


class ForkedProcess:
    """A worker forked by a zygote, with the part of Popen's interface the driver uses. The
    zygote is its parent and reaps it; its exit code and rusage arrive on ``status_fd``."""

    def __init__(self, pid: int, args: list[str], stdin_fd: int, status_fd: int,
                 zygote: Zygote) -> None:  # fmt: skip
        self.pid, self.args = pid, args
        self.returncode: int | None = None
        self.stdin = os.fdopen(stdin_fd, "wb")
        self.usage: resource.struct_rusage | None = None
        self.zygote_died = False
        self._status_fd, self._zygote = status_fd, zygote

    def wait_usage(self, timeout: float | None) -> resource.struct_rusage | None:
        """Wait for the worker's end; raise ``subprocess.TimeoutExpired`` after ``timeout``."""
        if self.returncode is not None:
            return self.usage
        if not select.select([self._status_fd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        data = b""
        while chunk := os.read(self._status_fd, 4096):
            data += chunk
        os.close(self._status_fd)
        if data:
            code, usage = json.loads(data)
            self.returncode, self.usage = code, resource.struct_rusage(usage)
        else:  # the zygote died first: its parent-death signal killed the worker
            self.returncode, self.zygote_died = -signal.SIGKILL, True
        self._zygote.release()
        return self.usage

    def poll(self) -> int | None:
        try:
            self.wait_usage(0)
        except subprocess.TimeoutExpired:
            pass
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self.wait_usage(timeout)
        assert self.returncode is not None
        return self.returncode


def preload_args(role: str, device: str, light: bool = False) -> list[str]:
    """What a worker of a kind imports ahead (``worker.preload``): only Inductor baselines
    import Inductor's compiler; pass workers on CUDA warm the launch path (the static launcher,
    Triton's cache key), which their first Triton launch would otherwise pay. ``light``: the
    common part only (torch and the evaluator), for a kind whose full image cannot be forked."""
    if light:
        return []
    if role == "inductor":  # on a GPU, Inductor's import is told CUDA is there (worker.preload)
        return ["--preload-inductor"] + (["--preload-cuda"] if device.startswith("cuda") else [])
    return ["--preload-launch"] if role == "pass" and device == "cuda" else []


class Zygote:
    """One zygote process and its control socket (requests are serialised by a lock)."""

    def __init__(
        self, role: str, env: dict[str, str], device: str = "cpu", light: bool = False
    ) -> None:
        self.lock = threading.Lock()
        self.light = light
        self.live, self.retired = 0, False
        # Its TMPDIR is only a name (created if an import needs it, removed after preloading)
        # and its log an unlinked file: a zygote killed while it starts leaves nothing behind.
        name = f"passnet-zygote-{secrets.token_hex(6)}"
        self.tmpdir = os.path.join(tempfile.gettempdir(), name)
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        args = [sys.executable, "-m", "passnet.evaluation.zygote", "--control-fd",
                str(theirs.fileno()), "--parent-pid", str(os.getpid())]  # fmt: skip
        args += preload_args(role, device, light)
        with tempfile.TemporaryFile() as log:
            try:
                with theirs:
                    self.proc = lifetime.in_spawner_thread(lambda: subprocess.Popen(
                        args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                        cwd="/", env={**env, "TMPDIR": self.tmpdir},
                        pass_fds=(theirs.fileno(),), start_new_session=True,
                    ))  # fmt: skip
                self.sock.settimeout(READY_S)
                ready = self.sock.recv(16)
            except (OSError, subprocess.SubprocessError) as exc:
                ready = str(exc).encode()
            if ready != b"ready":
                log.seek(0)
                tail = log.read()[-600:].decode(errors="replace").strip()
                self.stop()
                raise ForkServerUnavailable(
                    f"the {role} zygote did not start: {tail or ready.decode(errors='replace')}"
                )
        self.sock.settimeout(REPLY_S)

    def fork(self, spec: WorkerSpec, fds: list[int]) -> int:
        """Ask for a worker; the pid, or ``OSError`` when the zygote is gone."""
        with self.lock:
            socket.send_fds(self.sock, [spec.model_dump_json().encode()], fds)
            reply = self.sock.recv(256)
            if reply.isdigit():
                self.live += 1
        if not reply:
            raise ConnectionResetError("the zygote is gone")
        if not reply.isdigit():
            raise ForkServerUnavailable(f"the zygote refused to fork: {reply.decode()}")
        return int(reply)

    def release(self) -> None:
        """One of its workers ended; a retired zygote stops with its last worker."""
        with self.lock:
            self.live -= 1
            last = self.retired and self.live == 0
        if last:
            self.stop()

    def stop(self) -> None:
        """Close the control socket (the zygote exits) and make sure it is gone."""
        self.sock.close()
        proc = getattr(self, "proc", None)
        if proc is not None:
            proc.kill()
            proc.wait()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


_Kind = tuple[str, str, str]  # (device kind, role, fingerprint of the environment)
_ZYGOTES: dict[_Kind, Zygote] = {}
_UNAVAILABLE: set[tuple[str, str]] = set()
_LIGHT: set[tuple[str, str]] = set()  # kinds whose full preload left the image unforkable
_LOCK = threading.Lock()
_OWNER = os.getpid()


def _fingerprint(env: dict[str, str]) -> str:
    """The environment a zygote bakes in (its modules read it at import), TMPDIR aside."""
    items = sorted((k, v) for k, v in env.items() if k != "TMPDIR")
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()[:16]


def _zygote(device: str, role: str, env: dict[str, str]) -> Zygote:
    """The live zygote of a kind, started on first use or after it died. Another environment
    for the same device and role (a changed ``os.environ``) retires the old zygote."""
    global _OWNER
    kind = (device, role, _fingerprint(env))
    with _LOCK:
        if _OWNER != os.getpid():  # we are a fork of the process that started those
            _ZYGOTES.clear()
            _OWNER = os.getpid()
        if (device, role) in _UNAVAILABLE:
            raise ForkServerUnavailable(f"no {role} zygote on {device} here")
        zygote = _ZYGOTES.get(kind)
        if zygote is not None and zygote.proc.poll() is None:
            return zygote
        if zygote is not None:
            del _ZYGOTES[kind]
            zygote.stop()
        try:
            zygote = _ZYGOTES[kind] = _start(device, role, env)
        except ForkServerUnavailable as exc:
            _UNAVAILABLE.add((device, role))
            warnings.warn(f"{exc}; starting each worker on its own", stacklevel=3)
            raise
        stale = [k for k in _ZYGOTES if k[:2] == kind[:2] and k != kind]
        retire = [_ZYGOTES.pop(k) for k in stale]
    for old in retire:
        with old.lock:
            old.retired, idle = True, old.live == 0
        if idle:
            old.stop()
    return zygote


def _start(device: str, role: str, env: dict[str, str]) -> Zygote:
    """A zygote with its kind's preload; where that image cannot be forked (a library
    started a thread at import, say), one with the common preload only: its workers still
    skip the interpreter's start and torch's import, and import the rest themselves."""
    light = (device, role) in _LIGHT
    try:
        return Zygote(role, env, device, light)
    except ForkServerUnavailable as exc:
        if light or not preload_args(role, device):
            raise
        warnings.warn(f"{exc}; preloading torch and the evaluator only", stacklevel=4)
        _LIGHT.add((device, role))
        return Zygote(role, env, device, light=True)


def fork_worker(spec: WorkerSpec, env: dict[str, str], fds: list[int]) -> ForkedProcess:
    """A worker of ``spec`` (its kind, TMPDIR and limits) forked from the zygote of its kind,
    given ``fds`` (its log, result channel and timing witness; its stdin is made here); a dead
    zygote is restarted once."""
    device, role = spec.device, spec.role
    stdin_r, stdin_w = os.pipe()
    status_r, status_w = os.pipe()
    try:
        for attempt in range(2):
            zygote = _zygote(device, role, env)
            try:
                ours = spec.model_copy(update={"parent": zygote.proc.pid})
                pid = zygote.fork(ours, [stdin_r, *fds, status_w])
                break
            except (OSError, ForkServerUnavailable) as exc:  # gone, hangs, or refused
                with _LOCK:
                    if _ZYGOTES.get((device, role, _fingerprint(env))) is zygote:
                        del _ZYGOTES[(device, role, _fingerprint(env))]
                    if isinstance(exc, ForkServerUnavailable):
                        _UNAVAILABLE.add((device, role))
                zygote.stop()
                if isinstance(exc, ForkServerUnavailable):
                    warnings.warn(f"{exc}; starting each worker on its own", stacklevel=2)
                if attempt or isinstance(exc, ForkServerUnavailable):
                    raise
    except BaseException:
        os.close(stdin_w)
        os.close(status_r)
        raise
    finally:
        os.close(stdin_r)
        os.close(status_w)
    args = zygote.proc.args
    argv = [str(a) for a in args] if isinstance(args, (list, tuple)) else [str(args)]
    return ForkedProcess(pid, argv, stdin_w, status_r, zygote)


def prewarm(kinds: list[str], roles: list[str], env_for: Callable[[str, str], dict[str, str]]
            ) -> threading.Thread | None:  # fmt: skip
    """Start the zygotes of ``kinds`` (``cpu``/``cuda``) x ``roles`` in a background thread,
    with the environment ``env_for(kind, role)`` their workers will have, so a first evaluation
    does not wait for an interpreter, torch and the launch path to load. An agent's or an RL
    loop's evaluator does this when it is made: the model's first turn hides the cost. None
    when the fork server is off; a zygote that cannot start is left to the first fork, which
    reports why."""
    if not enabled():
        return None

    def start() -> None:
        for kind in kinds:
            for role in roles:
                try:
                    _zygote(kind, role, env_for(kind, role))
                except Exception:  # noqa: BLE001, S110 - the first real fork retries and reports
                    pass

    thread = threading.Thread(target=start, name="passnet-prewarm", daemon=True)
    thread.start()
    return thread


@atexit.register
def stop_all() -> None:
    """Stop every zygote of this process (at exit; tests). Running workers die with them."""
    with _LOCK:
        zygotes = list(_ZYGOTES.values()) if _OWNER == os.getpid() else []
        _ZYGOTES.clear()
    for zygote in zygotes:
        zygote.stop()


def zygote_pids() -> dict[tuple[str, str], int]:
    """(device kind, role) -> pid of its live zygote (diagnostics, tests)."""
    with _LOCK:
        return {k[:2]: z.proc.pid for k, z in _ZYGOTES.items() if z.proc.poll() is None}
