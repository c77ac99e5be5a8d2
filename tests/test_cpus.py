"""Cores kept for the worker that times (passnet.evaluation.cpus)."""

from __future__ import annotations

import os
import threading

import pytest

from passnet.evaluation import cpus


def test_timing_cores_are_kept_apart_from_every_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    timing, sets = cpus.split_cpus(8, devices=1, reserve=2)
    assert timing == [frozenset({0, 1})]
    assert [len(s) for s in sets] == [2, 2, 2, 2, 2, 2, 1, 1]  # 14 cores over 8 slots
    assert not set().union(*sets) & timing[0] and len(set().union(*sets)) == 14
    timing, sets = cpus.split_cpus(4, devices=2, reserve=2)
    assert timing == [frozenset({0, 1}), frozenset({2, 3})] and len(set().union(*sets)) == 12
    assert cpus.split_cpus(15, devices=1, reserve=2) is None  # too few cores to keep two


def test_a_timing_worker_moves_every_thread_and_moves_back() -> None:
    mine = os.sched_getaffinity(0)
    if len(mine) < 2:
        pytest.skip("needs 2 CPUs")
    target = {min(mine)}
    started, stop, seen = threading.Event(), threading.Event(), {}

    def other() -> None:
        seen["tid"] = threading.get_native_id()
        started.set()
        stop.wait(10)

    t = threading.Thread(target=other)
    t.start()
    started.wait(10)
    try:
        before = cpus.move_process(target)
        assert os.sched_getaffinity(0) == target
        assert os.sched_getaffinity(seen["tid"]) == target  # not only the calling thread
        cpus.restore(before)
        assert os.sched_getaffinity(0) == mine and os.sched_getaffinity(seen["tid"]) == mine
    finally:
        stop.set()
        t.join()


def test_bench_pins_workers_unless_told_not_to(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``passnet bench --no-pin-cpus``: the local pool leaves every worker on every core (the
    switch an A/B of the pinning itself needs)."""
    from passnet.cli.bench import _executor
    from passnet.runner.store import Store

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)))
    with Store(tmp_path / "s.db") as st:
        pinned = _executor(st, "local", "cpu", 2, None, None)
        free = _executor(st, "local", "cpu", 2, None, None, pin_cpus=False)
    assert pinned.cpus == [{0, 1}, {2, 3}]
    assert free.cpus is None and free.timing_cpus == {}
