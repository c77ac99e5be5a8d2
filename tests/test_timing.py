"""Timing harness mechanics (no speed thresholds: those live in docs/ benchmarks)."""

from pathlib import Path

import pytest
import torch

from passnet.evaluation.timing import (
    Side,
    ci_halfwidth,
    cpu_steal_jiffies,
    measure,
    median_ci,
    relative_spread,
    steal_share,
    timed_cap,
    timing_rule,
)
from passnet.integrity.checks import TimedSampler, secret_positions


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


def test_median_interval_uses_order_statistics() -> None:
    xs = [float(x) for x in range(100, 0, -1)]  # 1..100, unsorted
    assert median_ci(xs) == (40.0, 61.0)  # ranks 40 and 61 for n = 100
    assert median_ci([3.0, 1.0, 2.0]) == (1.0, 3.0)  # too few: the whole range
    assert ci_halfwidth([10.0] * 50) == 0.0


def _count(box: list[int]) -> Side:
    return Side("s", lambda: box.append(1), ())


def test_fixed_count_without_a_target_and_the_interval_is_recorded() -> None:
    out = measure([_count([])], torch.device("cpu"), warmup=0, trials=20, rounds=4, max_reruns=0)
    wall = out["s"].wall
    assert len(wall.samples_us) == 20
    assert wall.ci_low_us <= wall.median_us <= wall.ci_high_us


def test_adaptive_count_stops_when_tight_or_at_the_cap() -> None:
    dev = torch.device("cpu")
    kw = dict(warmup=0, trials=20, rounds=4, max_reruns=0, noise_limit=1e9)
    loose = measure([_count([])], dev, ci_target=1e6, **kw)  # met after the first block
    assert len(loose["s"].wall.samples_us) == 20
    tight = measure([_count([])], dev, ci_target=1e-12, max_trials=70, **kw)  # never met
    assert len(tight["s"].wall.samples_us) == 60 and tight["s"].wall.rounds == 12
    assert timed_cap(20, 4, None, None) == 20 and timed_cap(20, 4, 0.02, 70) == 60
    assert timed_cap(20, 4, 0.02, None) == 80
    rule = timing_rule(tight, 1e-12, 60)
    assert rule.startswith("adaptive:") and "60 calls a side" in rule and "not met" in rule
    assert timing_rule(tight, None, 60) == ""


def test_checked_calls_reach_the_adaptive_extension() -> None:
    """A candidate that behaves for its first calls and then cheats must still meet checked
    calls: every extension block gets secret positions of its own."""
    warmup, trials, rounds = 2, 16, 4
    per_run = warmup + trials
    longest = warmup + timed_cap(trials, rounds, 1e-12, 64)
    positions, keep = secret_positions(warmup, per_run, 2, 3, longest)
    blocks = [range(s, s + trials) for s in range(warmup, longest, trials)]
    assert len(blocks) == 4 and all(len(positions & set(b)) == 2 for b in blocks)
    assert keep and max(keep) < per_run and not positions & keep
    checked: list[int] = []
    sampler = TimedSampler(lambda: None, per_run, positions, keep, lambda args: checked.append(1))
    out = measure(
        [Side("candidate", sampler, ())],
        torch.device("cpu"),
        warmup=warmup,
        trials=trials,
        rounds=rounds,
        max_reruns=1,
        noise_limit=-1.0,  # always "noisy": a second run, whose positions restart
        ci_target=1e-12,
        max_trials=64,
    )
    assert sampler.n == 2 * longest and len(checked) == 2 * len(positions)
    # the checked calls leave the statistics: what is left are the run's unchecked calls
    assert len(out["candidate"].wall.samples_us) == longest - warmup - len(positions)


def test_a_side_settles_after_its_warmup_and_each_block_never_between_two_calls() -> None:
    """Harness work heavier than feeding values and holding outputs (checking the candidate's
    outputs) waits for the end of a side's block of calls: between two timed calls of a block it
    cooled the next call's caches (H100: launch-bound candidate calls 8-12 us slower)."""
    log: list[str] = []

    def side(name: str) -> Side:
        return Side(name, lambda: log.append(f"{name}:call"), (),
                    before=lambda: log.append(f"{name}:before"),
                    after=lambda out: log.append(f"{name}:after"),
                    settle=lambda: log.append(f"{name}:settle"))  # fmt: skip

    measure([side("a"), side("b")], torch.device("cpu"), warmup=2, trials=8, rounds=2,
            max_reruns=0)  # fmt: skip
    a = [e.split(":")[1] for e in log if e.startswith("a:")]
    call = ["before", "call", "after"]
    assert a == call * 2 + ["settle"] + (call * 4 + ["settle"]) * 2
    blocks = "".join(
        "S" if e.endswith("settle") else "." for e in log if e.endswith(("call", "settle"))
    )
    assert blocks == "..S..S....S....S....S....S"  # warmups, then b's block first in round 2
