"""Cores for the worker that times, and cores for the workers that prepare.

Several workers share a device: one times (under the device's exclusive lock) while the others
load, compile and check. Host work is most of what a launch-bound call costs, so a timing
worker that shares its cores with a compiling neighbour times the neighbour (an eager run
against itself once scored 0.39x in a suite bench, 0.99-1.01x alone). So a pool with several
workers per device keeps a few cores for timing only: every worker is pinned to the others,
and a worker moves all its threads onto the timing cores while it holds the exclusive lock
(``phase_clock.DeviceHolds.timing``), and back before it releases it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

TIMING_CORES = 2  # the timed call's thread and the CUDA driver's own


def usable_cores() -> int:
    """How many cores this process may run on: its affinity, else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def split_cpus(n: int, devices: int = 1, reserve: int = TIMING_CORES
               ) -> tuple[list[frozenset[int]], list[set[int]]] | None:  # fmt: skip
    """This process's CPUs as ``reserve`` timing cores per device and ``n`` disjoint sets
    for the workers (spread evenly, the remainder to the first sets); None where there are
    too few to split (fewer than ``devices * reserve + n`` cores, or one worker)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    if n < 2 or len(cpus) < devices * reserve + n:
        return None
    timing = [frozenset(cpus[d * reserve : (d + 1) * reserve]) for d in range(devices)]
    rest = cpus[devices * reserve :]
    size, extra = divmod(len(rest), n)
    sets, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        sets.append(set(rest[start:end]))
        start = end
    return timing, sets


def timing_reserve(reserve: int = TIMING_CORES) -> tuple[list[int], set[int]] | None:
    """One evaluation's split of this process's CPUs: ``reserve`` cores for the worker that
    times and the rest shared by the workers that prepare (one set for all, so they share
    one kind of spare worker); None where fewer than ``reserve + 2`` cores are allowed."""
    split = split_cpus(2, 1, reserve)
    if split is None:
        return None
    timing, sets = split
    return sorted(timing[0]), set().union(*sets)


def pin_thread(cpus: set[int] | None) -> None:
    """Pin the calling thread (Linux: affinity is per thread, and a worker takes the affinity
    of the thread that asked for it: ``passnet.evaluation.sandbox.PoolKey``), so the
    workers it starts stay on those cores; None or empty: nothing."""
    if cpus:
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:
            pass


def move_process(cpus: Iterable[int]) -> dict[int, set[int]]:
    """Pin every thread of this process to ``cpus`` (Linux affinity is per thread); returns
    each thread's previous set, for ``restore``. Threads that end meanwhile are skipped."""
    target = set(cpus)
    before: dict[int, set[int]] = {}
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        tids = [0]
    for tid in tids:
        try:
            before[tid] = os.sched_getaffinity(tid)
            os.sched_setaffinity(tid, target)
        except OSError:
            continue
    return before


def restore(before: dict[int, set[int]]) -> None:
    """Each thread back on the cores it had (threads started meanwhile keep the timing set,
    which their creator had: they are moved to the creator's previous set)."""
    fallback = next(iter(before.values()), None)
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        tids = list(before)
    for tid in tids:
        cpus = before.get(tid, fallback)
        if cpus:
            try:
                os.sched_setaffinity(tid, cpus)
            except OSError:
                continue
