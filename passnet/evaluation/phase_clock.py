"""Where a variant's evaluation spends its time, and the device holds whose waits it leaves out.

``PhaseClock`` charges the time since the last phase boundary to each phase
(``result.phase_seconds``); time spent waiting for the device's lock is charged to ``wait``
instead. ``DeviceHolds`` is the device's lock as the phases hold it
(``passnet.evaluation.device_lock``): shared around short device work, exclusive to time.
Both are shared by ``phases.VariantRun`` and its ``timed_phase.TimingPhase``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from passnet.core.results import VariantResult
from passnet.evaluation import cpus
from passnet.evaluation.device_lock import DeviceLock


class PhaseClock:
    """``result.phase_seconds``, phase by phase, from ``start`` (a ``perf_counter`` time)."""

    def __init__(self, result: VariantResult, start: float) -> None:
        self.result = result
        self.last = start  # the last phase boundary
        self.lock_wait = 0.0  # seconds waited for the device's lock (phase_seconds.wait)

    def phase(self, name: str) -> None:
        """Charge the time since the last phase ended to ``name``."""
        now = time.perf_counter()
        seconds = self.result.phase_seconds
        seconds[name] = seconds.get(name, 0.0) + now - self.last
        self.last = now

    def waited(self, seconds: float) -> None:
        """Time spent waiting for the device's lock: charged to ``wait`` (recorded just before
        ``timing``, or before ``failed``), not to the phase that waited."""
        self.lock_wait += seconds
        self.last += seconds

    def record_wait(self) -> None:
        self.result.phase_seconds["wait"] = self.lock_wait


class DeviceHolds:
    """The device's lock (None: off) as the phases hold it; waits go to ``clock``.
    ``timing_cpus``: the cores kept for timing, which the process moves onto while it holds
    the lock exclusive (``passnet.evaluation.cpus``)."""

    def __init__(self, lock: DeviceLock | None, clock: PhaseClock,
                 timing_cpus: list[int] | None = None) -> None:  # fmt: skip
        self.lock, self.clock, self.timing_cpus = lock, clock, timing_cpus

    @contextmanager
    def preparing(self) -> Iterator[None]:
        """Device work outside the timed phase: the device's lock held shared, so it never
        runs while another worker times (``passnet.evaluation.device_lock``). Held around
        short device work only (loading, a correctness trial, the ghost replay), never around
        a compile (a first call, Inductor's baseline): a timer waits for every shared hold to
        end, and holds of seconds would queue every worker behind each timing."""
        lock = self.lock
        if lock is None or lock.held:  # no lock, or an enclosing block holds it
            yield
            return
        self.clock.waited(lock.acquire_shared())
        try:
            yield
        finally:
            lock.release()

    @contextmanager
    def timing(self) -> Iterator[None]:
        """The device's lock held exclusive: nothing else runs on this device until release."""
        lock = self.lock
        if lock is None:
            yield
            return
        self.clock.waited(lock.acquire())
        moved = cpus.move_process(self.timing_cpus) if self.timing_cpus else None
        try:
            yield
        finally:
            if moved is not None:
                cpus.restore(moved)
            lock.release()
