"""How long a worker lives: never past its driver, never far past its time limit.

The driver (``sandbox.run_worker``) kills a worker's process group at its wall-clock limit,
but a driver that is killed (``kill -9``, Ctrl-C, a lost Ray task) or frozen enforces nothing:
a worker spinning in a hanging pass once ran on for 30 minutes as an orphan, its private
TMPDIR left behind. So every worker also ends on its own:

- **parent-death signal** (Linux ``PR_SET_PDEATHSIG`` = SIGKILL), set first thing in the
  worker, right after its guardian is forked (set before exec, it killed workers whose driver
  died during their start, before any guardian could remove their TMPDIR), then a ``getppid``
  check (the driver may die before it is set). The kernel sends it when the *thread* that
  forked the worker ends, so the driver forks every worker from one thread that lives as long
  as it does (``in_spawner_thread``); pool threads end while spares they started are in use.
  With the fork server, that thread starts the zygotes (which set the same signal) and a
  worker forked by a zygote gets it when the zygote dies: the chain driver -> zygote ->
  worker; its guardian still polls the driver itself.
- **guardian**: a small process the worker forks before importing anything, in a process group
  of its own (so it outlives a kill of the worker's group, and needs none of the worker's GIL).
  It polls the driver (pid and start time, so a zombie or a reused pid does not count) and the
  worker's deadline (limit + grace, sent once the request is in). Driver gone: it removes the
  worker's TMPDIR (a link in it, such as the shared Inductor folder, is unlinked, not
  followed) and kills the worker's group. Past the deadline: it kills the group, leaving the
  TMPDIR (and the verdict ``timeout``) to the driver. Worker gone and TMPDIR removed by the
  driver: it exits. Where fork fails it runs as a thread of the worker instead.
- **RLIMIT_CPU** of (limit + grace) x usable cores CPU-seconds from the request on: never
  stricter than the wall clock, and the kernel's own stop for a spinning worker.
"""

from __future__ import annotations

import ctypes
import os
import queue
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from passnet.evaluation import cpus

T = TypeVar("T")

POLL_S = 0.25
TIMEOUT_MARK = "passnet guardian: wall-clock limit"
"""Written to the worker's log when the guardian kills it; the driver reads it as a timeout."""
_PREFIX = "passnet-worker-"
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_SET_NAME = 1, 4, 15

try:
    _PRCTL: Any = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None
except (OSError, AttributeError):
    _PRCTL = None


def set_name(name: str) -> None:
    """This process's name in ps, top and /proc/PID/comm (Linux, 15 bytes): a zygote, a
    worker and a guardian are told apart without parsing command lines."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]), ctypes.c_ulong(0),
               ctypes.c_ulong(0), ctypes.c_ulong(0))  # fmt: skip


def set_dumpable(on: bool) -> None:
    """Off: other processes of this user (a pass) can neither ptrace this one nor read or write
    its memory through /proc (Linux ``PR_SET_DUMPABLE``); inherited by a fork."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_DUMPABLE, ctypes.c_ulong(int(on)), ctypes.c_ulong(0), ctypes.c_ulong(0),
               ctypes.c_ulong(0))  # fmt: skip


def grace_s(timeout_s: float) -> float:
    """How long past its limit a worker may run before it stops itself: the driver's timeout
    started earlier and should win, so the verdict and message stay the driver's."""
    return max(2.0, 0.05 * timeout_s)


def _remove(tmpdir: str | None) -> None:
    if tmpdir:
        shutil.rmtree(tmpdir, ignore_errors=True)  # unlinks symlinks, never follows them


def die_with_parent(parent: int, tmpdir: str | None = None, pdeathsig: bool = True) -> None:
    """``pdeathsig``: SIGKILL this process when ``parent``'s forking thread ends (Linux; off with
    ``PASSNET_WORKER_PDEATHSIG=0``, which leaves the guardian alone). Exit at once if it
    already has, removing ``tmpdir``, since nobody else will."""
    wanted = os.environ.get("PASSNET_WORKER_PDEATHSIG", "1").lower() not in ("0", "off", "no")
    if _PRCTL is not None and wanted and pdeathsig:
        _PRCTL(_PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), ctypes.c_ulong(0),
               ctypes.c_ulong(0), ctypes.c_ulong(0))  # fmt: skip
    if os.getppid() != parent:
        _remove(tmpdir)
        os._exit(0)


def _start_time(pid: int) -> str | None:
    """A running process's start time (None: gone, a zombie, or no /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] in ("Z", "X") else fields[19]


def _alive(pid: int, start: str | None) -> bool:
    if start is not None:
        return _start_time(pid) == start
    try:  # no /proc: a zombie driver counts as alive until it is reaped
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


class Guardian:
    """The worker's handle on its guardian: started first thing, armed with the request."""

    def __init__(self, parent: int | None = None, driver: int | None = None) -> None:
        """``parent``: the process that started us (the driver, or the driver's zygote for a
        forked worker); ``driver``: the one whose death ends us (default ``parent``)."""
        parent = parent or os.getppid()
        driver = driver or parent
        tmpdir = os.environ.get("TMPDIR", "")  # read before any pass code can change it
        self.tmpdir = tmpdir if os.path.basename(tmpdir.rstrip("/")).startswith(_PREFIX) else None
        die_with_parent(parent, self.tmpdir, pdeathsig=False)  # orphaned while starting: clean
        read_fd, self._write_fd = os.pipe()  # not inherited across exec
        worker = os.getpid()
        args = (read_fd, worker, os.getpgid(0) == worker, driver, _start_time(driver))
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:
            try:
                _detach(read_fd)
                _guard(*args, self.tmpdir, separate=True)
            finally:
                os._exit(0)
        if pid > 0:
            os.close(read_fd)
        else:
            threading.Thread(target=_guard, args=(*args, self.tmpdir, False), daemon=True,
                             name="passnet-guardian").start()  # fmt: skip
        die_with_parent(parent, None if pid > 0 else self.tmpdir)  # the guardian cleans up

    def arm(self, timeout_s: float) -> None:
        """The request is in: the guardian's deadline and the CPU-time limit start now."""
        if timeout_s <= 0:
            return
        deadline = time.monotonic() + timeout_s + grace_s(timeout_s)  # one clock for both
        try:
            os.write(self._write_fd, f"{deadline!r} {timeout_s!r}\n".encode())
        except OSError:
            pass  # no guardian: the driver and RLIMIT_CPU remain
        limit_cpu(timeout_s)


def limit_cpu(timeout_s: float) -> None:
    """RLIMIT_CPU from now: (limit + grace) x usable cores, more than the wall clock allows."""
    cores = cpus.usable_cores()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(usage.ru_utime + usage.ru_stime + (timeout_s + grace_s(timeout_s)) * cores) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    hard = soft + 5 if hard == resource.RLIM_INFINITY else min(hard, soft + 5)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (min(soft, hard), hard))
    except (ValueError, OSError):
        pass


def _detach(keep: int) -> None:
    """The forked guardian: its own process group; no descriptor of the worker's but its log
    (fd 2) and the deadline pipe, so the driver's result channel sees EOF with the worker."""
    os.setpgid(0, 0)
    set_name("passnet-guard")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 1024))
    for fd in fds:
        if fd > 2 and fd != keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _guard(
    read_fd: int,
    worker: int,
    leader: bool,
    driver: int,
    start: str | None,
    tmpdir: str | None,
    separate: bool,
) -> None:
    """The guardian's loop (``separate``: its own process; else a thread of the worker)."""
    deadline: float | None = None
    limit, buf, reading = 0.0, b"", True

    def kill_worker() -> None:
        try:
            if leader:
                os.killpg(worker, signal.SIGKILL)  # the worker, and whatever it started
            else:
                os.kill(worker, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    while True:
        pause = POLL_S if deadline is None else max(0.0, min(POLL_S, deadline - time.monotonic()))
        if reading and select.select([read_fd], [], [], pause)[0]:
            data = os.read(read_fd, 256)
            reading = bool(data)  # EOF: the worker is gone (or closed the pipe: ppid says)
            *lines, buf = (buf + data).split(b"\n")
            for line in lines:
                try:
                    deadline, limit = (float(x) for x in line.split())
                except ValueError:
                    pass
        elif not reading:
            time.sleep(pause)
        worker_gone = separate and os.getppid() != worker
        if not _alive(driver, start):
            _remove(tmpdir)
            if leader or not worker_gone:
                kill_worker()  # a dead worker's group lives on in what it started
            return
        if worker_gone:
            if not tmpdir or not os.path.exists(tmpdir):
                return  # the driver has cleaned up
            deadline = None
        elif deadline is not None and time.monotonic() >= deadline:
            note = f"\n{TIMEOUT_MARK} of {limit:g} s (+{grace_s(limit):g} s) exceeded: killed\n"
            try:
                os.write(2, note.encode())
            except OSError:
                pass
            kill_worker()
            deadline = None


# -- the driver's side ---------------------------------------------------------------------

DRIVER_FILE = ".passnet-driver"
_SWEPT: list[int] = []  # the pids of the processes that have swept (a fork sweeps again)


def worker_dir() -> str:
    """A new private folder for a worker, naming this process (pid and start time) as its
    driver. The first call of a process also removes the folders of drivers that died without
    removing them (``sweep_orphans``)."""
    me = os.getpid()
    if me not in _SWEPT:
        _SWEPT.append(me)
        sweep_orphans()
    tmpdir = tempfile.mkdtemp(prefix=_PREFIX)
    Path(tmpdir, DRIVER_FILE).write_text(f"{me} {_start_time(me) or ''}\n", encoding="utf-8")
    return tmpdir


def sweep_orphans(root: str | None = None) -> list[str]:
    """Remove the worker folders under ``root`` (the temp dir) whose driver is gone: a driver
    killed outright (kill -9, the OOM killer) takes its workers with it through their
    parent-death signal, and with them the guardian threads that would have removed their
    folders. Only this user's real folders that name a driver are touched; one whose driver
    lives (or whose pid a new process holds) is kept. Returns what was removed."""
    removed = []
    for path in Path(root or tempfile.gettempdir()).glob(f"{_PREFIX}*"):
        try:
            if path.is_symlink() or not path.is_dir() or path.stat().st_uid != os.getuid():
                continue
            pid_text, _, start = (path / DRIVER_FILE).read_text(encoding="utf-8").partition(" ")
            pid = int(pid_text)
        except (OSError, ValueError):
            continue
        if pid != os.getpid() and not _alive(pid, start.strip() or None):
            _remove(str(path))
            removed.append(str(path))
    return removed


_SPAWNER: tuple[int, queue.SimpleQueue] | None = None
_SPAWNER_LOCK = threading.Lock()


def in_spawner_thread(fork: Callable[[], T]) -> T:
    """Run ``fork`` (a Popen) in one daemon thread that lives as long as this process: a
    worker's parent-death signal follows the thread that forked it, not the process."""
    global _SPAWNER
    with _SPAWNER_LOCK:
        if _SPAWNER is None or _SPAWNER[0] != os.getpid():  # none yet, or we are a fork
            jobs: queue.SimpleQueue = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(jobs,), daemon=True,
                             name="passnet-spawner").start()  # fmt: skip
            _SPAWNER = (os.getpid(), jobs)
        jobs = _SPAWNER[1]
    done: Future = Future()
    jobs.put((fork, done))
    return done.result()


def _serve(jobs: queue.SimpleQueue) -> None:
    while True:
        fork, done = jobs.get()
        try:
            done.set_result(fork())
        except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
            done.set_exception(exc)


def wait(proc: subprocess.Popen, timeout_s: float) -> resource.struct_rusage | None:
    """``proc.wait(timeout_s)`` through wait4, so the worker's peak memory is known."""
    end, delay = time.monotonic() + timeout_s, 0.0005
    while True:
        try:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere
            proc.wait()
            return None
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage
        left = end - time.monotonic()
        if left <= 0:
            raise subprocess.TimeoutExpired(proc.args, timeout_s)
        time.sleep(min(delay, left, 0.05))
        delay *= 2


def oom_kills() -> int | None:
    """The kernel's count of OOM kills so far (Linux >= 4.13; host-wide)."""
    try:
        with open("/proc/vmstat") as f:
            for line in f:
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def exit_cause(
    code: int | None,
    tail: str,
    usage: resource.struct_rusage | None,
    memory_limit: int | None,
    ooms: int | None,
) -> str:
    """How a worker ended without a result, claiming only what the evidence shows. SIGKILL
    is blamed on memory only with a sign of it (the OOM killer ran meanwhile, peak RSS near
    the limit, an allocation failure in its output); else it came from outside (our own time
    limits are reported as timeouts before this)."""
    try:
        how = f"killed by signal {signal.Signals(-code).name}" if code and code < 0 else ""
    except ValueError:
        how = f"killed by signal {-code}"  # type: ignore[operator]
    how = how or f"exited with code {code}"
    said = "MemoryError" in tail or "out of memory" in tail.lower()
    if code != -signal.SIGKILL:
        return how + (" (likely out of memory)" if said else "")
    peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024) if usage else 0
    signs = [f"the kernel's OOM killer ran {ooms} time(s) meanwhile"] if ooms else []
    if peak and memory_limit and peak >= 0.9 * memory_limit:
        signs.append(f"peak RSS {peak / 2**30:.2f} GiB of a {memory_limit / 2**30:.2f} GiB limit")
    if said:
        signs.append("its output reports an allocation failure")
    if signs:
        return f"{how} (likely out of memory: {'; '.join(signs)})"
    rss = f"; peak RSS {peak / 2**30:.2f} GiB" if peak else ""
    return f"{how} from outside (not the harness's time limit; no sign of memory exhaustion{rss})"
