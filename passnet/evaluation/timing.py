"""Per-call timing that can be trusted (SPEC section 7).

Every side is called the same way: ``sync; t0; fn(*args); sync; t1`` (end-to-end wall clock),
plus CUDA events around the call on a GPU. Sides are measured in interleaved rounds so drift
(clocks, other tenants) hits all of them alike; a measurement whose IQR/median exceeds the
noise limit is re-run, and flagged ``noisy`` only if it stays noisy. Every sample is kept.

Adaptive trial counts (``ci_target``): after the first ``trials`` calls a side, more blocks of
``trials`` calls (same interleaved rounds, no new warmup) are added while any side's median is
known less tightly than ``ci_target / 2`` (the half-width of its 95% distribution-free interval,
relative to the median), up to ``max_trials`` calls a side. Two medians each known to within
+-h give a ratio known to within about +-2h, so every speedup is then within about
+-``ci_target``. The rule depends on the samples alone, so it is as reproducible as they are.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from passnet.core.results import SideTiming, Timing


@dataclass
class Side:
    """One callable under measurement with its own inputs."""

    name: str
    fn: Callable[..., Any]
    args: Sequence[Any]
    wall_us: list[float] = field(default_factory=list)
    event_us: list[float] = field(default_factory=list)


def cpu_steal_jiffies() -> tuple[int, int] | None:
    """(steal, total) CPU time of the whole host from ``/proc/stat``; None where there is none.

    Steal is time the hypervisor gave other guests while this VM wanted a CPU. Interleaved
    rounds even it out between the sides of one measurement, not between hosts: on shared
    2-core VMs, per-call times of the same variant differed 2-6x from one host to another."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        values = [int(x) for x in fields[1:9]]
    except (OSError, ValueError):
        return None
    if not fields or fields[0] != "cpu" or len(values) < 8:
        return None
    return values[7], sum(values)  # user..steal; guest time is already inside user and nice


def steal_share(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """The share of the host's CPU time that was stolen between two ``cpu_steal_jiffies``."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1])


def _sync_fn(device: torch.device) -> Callable[[], None]:
    if device.type == "cuda":
        return torch.cuda.synchronize
    return lambda: None


def _quartiles(xs: list[float]) -> tuple[float, float, float]:
    if len(xs) < 2:
        return xs[0], xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], statistics.median(xs), q[2]


def relative_spread(xs: list[float]) -> float:
    """IQR / median, the noise measure of SPEC section 7."""
    q1, med, q3 = _quartiles(xs)
    return (q3 - q1) / med if med > 0 else 0.0


Z95 = 1.959964


def median_ci(xs: Sequence[float]) -> tuple[float, float]:
    """The 95% distribution-free interval of the median: order statistics at ranks
    ``(n - z sqrt n) / 2`` and ``1 + (n + z sqrt n) / 2`` (1-based, binomial by its normal
    approximation; ranks 40 and 61 for n = 100). The whole range below 6 samples."""
    s = sorted(xs)
    n = len(s)
    if n < 6:
        return s[0], s[-1]
    half = Z95 * math.sqrt(n)
    lo = max(1, math.floor((n - half) / 2))
    hi = min(n, math.ceil(1 + (n + half) / 2))
    return s[lo - 1], s[hi - 1]


def ci_halfwidth(xs: Sequence[float]) -> float:
    """Half the median's 95% interval, relative to the median (inf without a positive median)."""
    med = statistics.median(xs)
    if med <= 0:
        return math.inf
    lo, hi = median_ci(xs)
    return (hi - lo) / (2 * med)


def _timing(method: str, xs: list[float], rounds: int, noise_limit: float) -> Timing:
    q1, med, q3 = _quartiles(xs)
    lo, hi = median_ci(xs)
    return Timing(
        method=method,
        samples_us=[round(x, 3) for x in xs],
        median_us=med,
        iqr_us=q3 - q1,
        ci_low_us=lo,
        ci_high_us=hi,
        rounds=rounds,
        noisy=relative_spread(xs) > noise_limit,
    )


def _measure_once(
    sides: list[Side], device: torch.device, warmup: int, trials: int, rounds: int
) -> None:
    for side in sides:
        side.wall_us.clear()
        side.event_us.clear()
        start = getattr(side.fn, "new_run", None)
        if start is not None:  # a TimedSampler counts its secret positions from here
            start()
        for _ in range(warmup):
            side.fn(*side.args)
    _sync_fn(device)()
    _rounds(sides, device, trials, rounds, 0)


def _rounds(sides: list[Side], device: torch.device, trials: int, rounds: int, first: int) -> None:
    """``rounds`` interleaved rounds of ``trials // rounds`` calls a side, appended to the
    samples; ``first`` is the index of the first round (for the alternating order)."""
    sync = _sync_fn(device)
    use_events = device.type == "cuda"
    per_round = max(1, trials // rounds)
    perf = time.perf_counter_ns
    for r in range(first, first + rounds):
        # Alternate the order each round so neither side always runs right after the other.
        order = sides if r % 2 == 0 else list(reversed(sides))
        for side in order:
            fn, args = side.fn, side.args
            for _ in range(per_round):
                if use_events:
                    start, end = (
                        torch.cuda.Event(enable_timing=True),
                        torch.cuda.Event(enable_timing=True),
                    )
                    sync()
                    t0 = perf()
                    start.record()
                    fn(*args)
                    end.record()
                    sync()
                    t1 = perf()
                    side.event_us.append(start.elapsed_time(end) * 1e3)
                else:
                    sync()
                    t0 = perf()
                    fn(*args)
                    sync()
                    t1 = perf()
                side.wall_us.append((t1 - t0) / 1e3)


def block_calls(trials: int, rounds: int) -> int:
    """Timed calls a side gets in one block of ``rounds`` interleaved rounds: ``trials``
    rounded to whole rounds, at least one a round."""
    return max(1, trials // max(1, rounds)) * rounds


def timed_cap(trials: int, rounds: int, ci_target: float | None, max_trials: int | None) -> int:
    """The most timed calls a side can get in one run: one block (``block_calls``), or with
    ``ci_target`` as many whole blocks as fit in ``max_trials`` (4 x trials)."""
    block = block_calls(trials, rounds)
    if ci_target is None:
        return block
    return max(block, (max_trials or 4 * trials) // block * block)


def measure(
    sides: list[Side],
    device: torch.device,
    *,
    warmup: int = 25,
    trials: int = 100,
    rounds: int = 4,
    noise_limit: float = 0.2,
    max_reruns: int = 2,
    ci_target: float | None = None,
    max_trials: int | None = None,
) -> dict[str, SideTiming]:
    """Time every side in interleaved rounds; re-run (do not fail) while any side is noisy.
    With ``ci_target``, extend each run while a median is not yet known tightly enough
    (module docstring), up to ``max_trials`` calls a side (default 4 x ``trials``)."""
    cap, block = timed_cap(trials, rounds, ci_target, max_trials), block_calls(trials, rounds)
    best: dict[str, tuple[list[float], list[float]]] | None = None
    best_spread = float("inf")
    for _ in range(max_reruns + 1):
        _measure_once(sides, device, warmup, trials, rounds)
        blocks = 1
        while (
            ci_target is not None
            and max(ci_halfwidth(s.wall_us) for s in sides) > ci_target / 2
            and (blocks + 1) * block <= cap
        ):
            _rounds(sides, device, trials, rounds, blocks * rounds)
            blocks += 1
        spread = max(relative_spread(s.wall_us) for s in sides)
        if spread < best_spread:
            best_spread = spread
            best = {s.name: (list(s.wall_us), list(s.event_us)) for s in sides}
        if spread <= noise_limit:
            break
    assert best is not None
    out: dict[str, SideTiming] = {}
    for name, (wall, events) in best.items():
        n_rounds = rounds * (len(wall) // block)
        out[name] = SideTiming(
            wall=_timing("wall", wall, n_rounds, noise_limit),
            cuda_event=_timing("cuda_event", events, n_rounds, noise_limit) if events else None,
        )
    return out


def timing_rule(timings: dict[str, SideTiming], ci_target: float | None, cap: int) -> str:
    """How the trial count of a measurement was decided, for the result (``timing_rule``)."""
    if ci_target is None:
        return ""
    worst = max(ci_halfwidth(t.wall.samples_us) for t in timings.values())
    n = max(len(t.wall.samples_us) for t in timings.values())
    met = "met" if worst <= ci_target / 2 else f"not met at the cap of {cap} calls a side"
    return (
        f"adaptive: calls added until every side's median is within +-{ci_target / 2:.2%} "
        f"(95% interval; ratios within about +-{ci_target:.1%}): {n} calls a side, "
        f"worst +-{worst:.2%}, {met}"
    )


def exclude_sampled(
    side: SideTiming, positions: frozenset[int], warmup: int, noise_limit: float
) -> SideTiming:
    """Drop the checked calls' samples (position p is sample p - warmup of the kept run)."""
    drop = {p - warmup for p in positions}

    def keep(t: Any) -> Any:
        if t is None:
            return None
        xs = [x for i, x in enumerate(t.samples_us) if i not in drop]
        return _timing(t.method, xs, t.rounds, noise_limit) if xs else t

    return SideTiming(wall=keep(side.wall), cuda_event=keep(side.cuda_event))
