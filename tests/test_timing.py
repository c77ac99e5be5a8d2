"""Timing harness mechanics (no speed thresholds: those live in docs/ benchmarks)."""

from pathlib import Path

import pytest
import torch

from passnet.evaluation.timing import (
    Side,
    cpu_steal_jiffies,
    measure,
    relative_spread,
    steal_share,
)


def test_every_sample_is_kept_and_sides_interleave() -> None:
    calls: list[str] = []
    a = Side("a", lambda: calls.append("a"), ())
    b = Side("b", lambda: calls.append("b"), ())
    out = measure([a, b], torch.device("cpu"), warmup=3, trials=20, rounds=4, max_reruns=0)
    assert set(out) == {"a", "b"}
    for side in out.values():
        assert len(side.wall.samples_us) == 20
        assert side.wall.median_us > 0 and side.wall.method == "wall"
        assert side.cuda_event is None and side.wall.rounds == 4
    timed = calls[6:]  # after 3 warmups each
    # 4 rounds of 5 calls; order alternates a,b then b,a
    assert timed[:10] == ["a"] * 5 + ["b"] * 5
    assert timed[10:20] == ["b"] * 5 + ["a"] * 5


def test_noisy_measurement_is_rerun_then_flagged() -> None:
    import time

    state = {"n": 0}

    def jittery() -> None:
        state["n"] += 1
        time.sleep(0.002 if state["n"] % 2 else 0.0)

    side = Side("j", jittery, ())
    out = measure([side], torch.device("cpu"), warmup=0, trials=20, rounds=1, max_reruns=2)
    # 20 timed calls per attempt, three attempts (first + 2 re-runs) since it stays noisy
    assert state["n"] == 60
    assert out["j"].wall.noisy


def test_relative_spread() -> None:
    assert relative_spread([1.0, 1.0, 1.0, 1.0]) == 0.0
    assert relative_spread([1.0, 2.0, 3.0, 4.0, 5.0]) == 2.0 / 3.0


def test_cpu_steal_share() -> None:
    assert steal_share((10, 1000), (15, 1100)) == pytest.approx(0.05)
    assert steal_share(None, (1, 2)) is None and steal_share((1, 2), (1, 2)) is None
    if not Path("/proc/stat").exists():
        assert cpu_steal_jiffies() is None
        return
    before = cpu_steal_jiffies()
    sum(i * i for i in range(300_000))  # some CPU time passes
    after = cpu_steal_jiffies()
    assert before is not None and after is not None
    assert 0 <= before[0] <= before[1] and after[0] >= before[0] and after[1] >= before[1]
    share = steal_share(before, after)
    assert share is None or 0.0 <= share <= 1.0
