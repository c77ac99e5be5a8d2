"""Sandboxed worker processes: the pool that starts them, keeps spares and runs a request.

Each variant runs in a fresh worker process that has never run pass code: isolated
(``isolation``: a scrubbed environment, a private TMPDIR, limits, its own network namespace),
in its own process group (a timeout kills the whole group), answering through a private
channel framed with a nonce, never parsed from stdout (``channel``). A worker that dies or
hangs becomes a classified failure of that variant; the next variant gets a fresh worker.
Workers die with this process and keep their time limit without it (``lifetime``).

Starting a worker costs an interpreter and torch's import (seconds). So by default each
worker is forked from a *zygote* of its kind (``launchers.ForkLauncher``, ``forkserver``): a
clean, preloaded image that never runs pass code. Inside ``spare_workers(stock)`` the next
workers are forked ahead of time as *warm spares*: sandboxed, with their device's context made
(a CUDA context is the first cost of a worker on a GPU), waiting for a request; each is used
once. With ``PASSNET_FORK_SERVER=0`` (or off Linux) each worker is started on its own
(``launchers.SpawnLauncher``), and inside the scope one spare per kind of worker is started
ahead and waits, torch imported. Either way each variant gets a fresh process that has never
run pass code. See ``docs/integrity.md``.

``WorkerPool`` owns the spares; ``POOL`` is the process's pool, which the module-level
functions (``run_worker``, ``spare_workers``, ``warm_spares``, ``discard_spares``) use.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

from passnet.core.results import Status, VariantResult
from passnet.evaluation import channel, device_lock, lifetime, witness
from passnet.evaluation.compile_cache import switched_off
from passnet.evaluation.isolation import affinity, netns, worker_role
from passnet.evaluation.launchers import (
    ForkLauncher,
    Launcher,
    SpawnLauncher,
    Worker,
    start_worker,
)
from passnet.evaluation.request import WorkerRequest, WorkerSpec


@dataclass(frozen=True)
class PoolKey:
    """What a spare must match to serve a request."""

    device: str  # the device kind: cpu or cuda
    role: str  # eager, inductor or pass (isolation.worker_role)
    memory_limit: int | None
    isolate_network: bool
    cpus: frozenset[int] | None  # the asking thread's CPU affinity, which the worker takes

    @classmethod
    def of(cls, request: WorkerRequest, memory_limit: int | None,
           isolate_network: bool) -> PoolKey:  # fmt: skip
        """The key of a request, asked for from this thread (a pool thread pinned to some
        cores gets workers pinned alike)."""
        device = "cpu" if request.device.startswith("cpu") else "cuda"
        return cls(device, worker_role(request), memory_limit, isolate_network, affinity())

    def spec(self, warm: bool = False) -> WorkerSpec:
        """The spec of a worker of this key (its TMPDIR is made when it starts)."""
        lock = str(device_lock.lock_dir()) if device_lock.enabled() else ""
        return WorkerSpec(device=self.device, role=self.role, tmpdir="",
                          memory_limit=self.memory_limit, isolate_network=self.isolate_network,
                          cpus=self.cpus, warm=warm, lock_dir=lock,
                          driver=os.getpid())  # fmt: skip


def spares_enabled() -> bool:
    """``PASSNET_SPARE_WORKERS=0`` turns spare workers off (each variant then starts cold)."""
    return not switched_off(os.environ.get("PASSNET_SPARE_WORKERS", "1"))


class WorkerPool:
    """Starts workers (forked by ``fork`` where it serves their kind, else by ``spawn``),
    keeps the spares of the open ``spare_workers`` scopes, and runs requests in them."""

    def __init__(self, fork: Launcher | None = None, spawn: Launcher | None = None) -> None:
        self.fork: Launcher = fork or ForkLauncher()
        self.spawn: Launcher = spawn or SpawnLauncher()
        self._lock = threading.Lock()
        self._spares: dict[PoolKey, list[Worker]] = {}  # waiting, oldest first
        self._starting: dict[PoolKey, int] = {}  # forks reserved by restock, not yet spares
        self._uses: dict[PoolKey, int] = {}  # takes per key in the open scopes (spawned)
        self._stocks: list[int] = []  # per open scope: the warm spares it wants per key

    # -- spares ----------------------------------------------------------------------------

    @contextmanager
    def spare_workers(self, stock: int = 1) -> Iterator[None]:
        """Within this scope (nestable), keep spares: ``stock`` forked warm spares per kind
        of worker (the workers an evaluation runs at once; the largest of the open scopes'),
        or one started on its own when workers are not forked. Leaving the outermost scope
        stops them, so no spare outlives the evaluations that wanted it."""
        stock = max(1, stock)
        with self._lock:
            self._stocks.append(stock)
        try:
            yield
        finally:
            with self._lock:
                self._stocks.remove(stock)
                last = not self._stocks
            if last:
                self.discard_spares()

    def take(self, key: PoolKey) -> Worker:
        """A started worker for ``key``: a forked spare, else a new fork, where the fork
        server serves its kind (``run`` restocks once the request is on its way); else the
        spare started on its own if it is alive, else a new one, and then, from the second
        use of a key in a scope on, the next spare, so its interpreter and torch import
        overlap with this variant's run. A forked worker and a spare are fresh sandboxed
        processes that have run no pass code: taking one shares nothing with any other
        variant."""
        spec = key.spec()
        if self.fork.available(spec):
            worker = self._spare(key) or start_worker(self.fork, spec)
            if worker is not None:
                return worker
        with self._lock:
            uses = self._uses[key] = self._uses.get(key, 0) + 1 if self._stocks else 0
        worker = self._spare(key) or self._spawn(spec)
        if spares_enabled() and uses > 1:  # in a scope, from a key's second use on
            spare = self._spawn(spec)
            with self._lock:
                extra = self._spares.get(key, [])
                self._spares[key] = [spare]
            for other in extra:
                other.discard()
        return worker

    def restock(self, key: PoolKey) -> None:
        """Fork warm spares for ``key`` up to the open scopes' stock: each makes its device's
        context while the workers taken before it run, so the next variant's does not wait.
        Nothing where the fork server does not serve the key's kind."""
        spec = key.spec(warm=True)
        if not self.fork.available(spec):
            return
        with self._lock:  # reserve under the lock: threads restocking at once fork no extra
            want = max(self._stocks, default=0) if spares_enabled() else 0
            have = len(self._spares.get(key, [])) + self._starting.get(key, 0)
            missing = max(0, want - have)
            self._starting[key] = self._starting.get(key, 0) + missing
        settled = 0  # reservations released (forked, or given up)
        try:
            while settled < missing:
                spare = start_worker(self.fork, spec)
                with self._lock:
                    self._starting[key] -= 1
                    settled += 1
                    kept = spare is not None and bool(self._stocks)  # the scope may have closed
                    if spare is not None and kept:
                        self._spares.setdefault(key, []).append(spare)
                if not kept:
                    if spare is not None:
                        spare.discard()
                    return
        finally:  # what this call reserved and will not fork (stopped early, or an error)
            with self._lock:
                self._starting[key] -= missing - settled

    def spares(self) -> dict[PoolKey, list[Worker]]:
        """The spares waiting, per key, oldest first (diagnostics, tests)."""
        with self._lock:
            return {k: list(v) for k, v in self._spares.items() if v}

    def warm_spares(self) -> dict[PoolKey, list[int]]:
        """Pids of the forked warm spares waiting, per key (diagnostics, tests)."""
        with self._lock:
            found = {k: [w.proc.pid for w in v if w.warm] for k, v in self._spares.items()}
        return {k: pids for k, pids in found.items() if pids}

    def starting(self) -> dict[PoolKey, int]:
        """Warm spares being forked now, per key (diagnostics, tests)."""
        with self._lock:
            return {k: n for k, n in self._starting.items() if n}

    def discard_spares(self) -> None:
        """Stop the idle spares (they would also exit on their own once stdin closes)."""
        with self._lock:
            spares = [w for ws in self._spares.values() for w in ws]
            self._spares.clear()
            self._uses.clear()
        for worker in spares:
            worker.discard()

    def _spare(self, key: PoolKey) -> Worker | None:
        """A live spare for ``key``, oldest first (one that died waiting is discarded)."""
        dead, found = [], None
        with self._lock:
            waiting = self._spares.get(key, [])
            while waiting and found is None:
                worker = waiting.pop(0)
                if worker.proc.poll() is None:
                    found = worker
                else:
                    dead.append(worker)
        for worker in dead:
            worker.discard()
        return found

    def _spawn(self, spec: WorkerSpec) -> Worker:
        worker = start_worker(self.spawn, spec)
        if worker is None:
            raise RuntimeError(f"no {spec.role} worker on {spec.device} could be started")
        return worker

    # -- one request -----------------------------------------------------------------------

    def run(
        self,
        request: WorkerRequest,
        timeout_s: float,
        memory_limit: int | None = None,
        *,
        isolate_network: bool = True,
    ) -> VariantResult:
        """Run one worker to completion or death; its result, or the failure it became."""
        request = request.model_copy(update={
            "nonce": secrets.token_hex(16),
            "parent_netns": netns() if isolate_network else "",
            "timeout_s": timeout_s,
        })  # fmt: skip
        key = PoolKey.of(request, memory_limit, isolate_network)
        worker = self.take(key)
        proc = worker.proc
        reader, chunks = channel.drain(worker.read_fd)
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
            self.restock(key)  # the next workers' start overlaps this one's run
            timed_out, usage = channel.wait(proc, timeout_s)
            reader.join(timeout=5)
            elapsed = time.perf_counter() - t0
            if timed_out:
                message = f"killed after {timeout_s:g} s wall clock"
                return channel.failure(request, Status.TIMEOUT, message, elapsed)
            if payload := b"".join(chunks):
                result = channel.read_result(request, payload, elapsed)
                if key.role == "pass" and result.status is not Status.REJECTED:
                    meaningful = key.device != "cpu"  # a pass's kernels on CPU run interpreted
                    result = witness.settle(result, seen.close(), meaningful=meaningful)
                return result
            return channel.died(request, proc, worker.log_path, usage, memory_limit, ooms,
                                elapsed)  # fmt: skip
        finally:
            worker.seen.close()
            shutil.rmtree(worker.tmpdir, ignore_errors=True)


POOL = WorkerPool()
"""This process's pool: every evaluation of the process shares its zygotes' spares."""


def run_worker(
    request: WorkerRequest,
    timeout_s: float,
    memory_limit: int | None = None,
    *,
    isolate_network: bool = True,
) -> dict:
    """``POOL.run``, the result as JSON-ready data (a ``VariantResult`` dumped)."""
    result = POOL.run(request, timeout_s, memory_limit, isolate_network=isolate_network)
    return result.model_dump(mode="json")


def spare_workers(stock: int = 1) -> AbstractContextManager[None]:
    """``POOL.spare_workers``: used by evaluate_task, the runner and ``passnet serve`` (for
    its whole life)."""
    return POOL.spare_workers(stock)


def warm_spares() -> dict[PoolKey, list[int]]:
    """``POOL.warm_spares``."""
    return POOL.warm_spares()


@atexit.register
def discard_spares() -> None:
    """``POOL.discard_spares`` (at exit too)."""
    POOL.discard_spares()
