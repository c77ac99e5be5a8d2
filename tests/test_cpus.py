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


def test_one_evaluation_keeps_timing_cores_from_its_preparing_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``passnet eval`` / ``serve`` on a GPU: the timing worker's cores, and every preparing
    worker pinned to the rest (one set, so they share one kind of spare worker)."""
    from passnet.core.results import CandidateSpec, Status, VariantResult
    from passnet.evaluation import evaluator

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    assert cpus.timing_reserve() == ([0, 1], set(range(2, 16)))
    pinned, asked = [], []
    monkeypatch.setattr(cpus, "pin_thread", lambda cores: pinned.append(cores))

    def fake(variant, candidate, **kw):  # noqa: ANN001, ANN003 - the worker's stand-in
        asked.append(kw["timing_cpus"])
        return VariantResult(graph=variant.graph, dtype=variant.dtype, status=Status.NO_MATCH)

    monkeypatch.setattr(evaluator, "evaluate_variant", fake)
    on_cpu = evaluator.environment("cpu")
    monkeypatch.setattr(evaluator, "environment", lambda device: on_cpu)
    task = "examples/tasks/bert_add_layer_norm"
    spec = CandidateSpec(kind="eager")
    evaluator.evaluate_task(task, spec, device="cuda", prepare_ahead=3)
    assert asked and all(a == [0, 1] for a in asked)
    assert pinned and all(p == set(range(2, 16)) for p in pinned)
    pinned.clear()
    asked.clear()
    evaluator.evaluate_task(task, spec, device="cuda", prepare_ahead=1)  # one worker: no split
    assert all(a is None for a in asked) and all(not p for p in pinned)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    assert cpus.timing_reserve() is None  # too few cores to keep two


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
