"""From per-call samples to a variant's timing fields: statistics only, no torch.

The worker measures (``passnet.evaluation.timing``); these functions turn what it measured into
the result's ``reference``/``candidate`` timings, speedups and ``timing_rule``. The parent runs
the same functions on the samples its timing witness validated (``passnet.evaluation.witness``),
so the fields it stores never come from objects a pass could reach.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from passnet.core.results import SideTiming, Timing


@dataclass
class SideRun:
    """One side's timed calls in one run, in call order; ``checked`` marks the calls that were
    checked calls in disguise (their samples leave the statistics)."""

    wall_us: list[float] = field(default_factory=list)
    event_us: list[float] = field(default_factory=list)
    checked: list[bool] = field(default_factory=list)


Run = dict[str, SideRun]
"""Every side's calls of one run, by side name."""


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


def timing_of(method: str, xs: list[float], rounds: int, noise_limit: float) -> Timing:
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


def kept_run(runs: list[Run], noise_limit: float) -> Run:
    """The run a measurement keeps: the first whose every side is within the noise limit,
    else the least noisy one (re-runs are made while a run is noisy)."""
    best: Run | None = None
    best_spread = math.inf
    for run in runs:
        spread = max(relative_spread(s.wall_us) for s in run.values())
        if spread < best_spread:
            best, best_spread = run, spread
        if spread <= noise_limit:
            break
    if best is None:
        raise ValueError("no timed run")
    return best


def side_timings(run: Run, rounds: int, block: int, noise_limit: float) -> dict[str, SideTiming]:
    """Each side's timing from one run, its checked calls left out (a side of checked calls
    only keeps them all: there is nothing else to report)."""
    out: dict[str, SideTiming] = {}
    for name, s in run.items():
        keep = [i for i, c in enumerate(s.checked) if not c] or list(range(len(s.wall_us)))
        n_rounds = rounds * (len(s.wall_us) // block)
        wall = [s.wall_us[i] for i in keep]
        events = [s.event_us[i] for i in keep] if s.event_us else []
        out[name] = SideTiming(
            wall=timing_of("wall", wall, n_rounds, noise_limit),
            cuda_event=timing_of("cuda_event", events, n_rounds, noise_limit) if events else None,
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


def per_call(timing: SideTiming, calls: int) -> SideTiming:
    """A replay of ``calls`` calls in a row as per-call times (every sample divided)."""

    def scale(t: Timing) -> Timing:
        if calls == 1:
            return t
        return t.model_copy(update={
            "samples_us": [round(x / calls, 4) for x in t.samples_us],
            "median_us": t.median_us / calls, "iqr_us": t.iqr_us / calls})  # fmt: skip

    event = timing.cuda_event
    return SideTiming(wall=scale(timing.wall), cuda_event=scale(event) if event else None)


GAP_WARN_US = 50.0


def timing_fields(
    timings: dict[str, SideTiming],
    overhead: dict[str, SideTiming],
    *,
    calls: int,
    ci_target: float | None,
    cap: int,
) -> tuple[dict[str, Any], float | None]:
    """The result's timing fields from the main measurement and the call-path probe, and the
    candidate's end-to-end-over-event gap beyond the reference's (None without events)."""
    if calls != 1:
        timings = {k: per_call(v, calls) for k, v in timings.items()}
    ref, cand = timings["reference"], timings["candidate"]
    fields: dict[str, Any] = {
        "timing_rule": timing_rule(timings, ci_target, cap),
        "reference": ref,
        "candidate": cand,
        "speedup": ref.wall.median_us / cand.wall.median_us,
        "speedup_cuda_event": None,
        "inductor_median_us": None,
        "speedup_vs_inductor": None,
        "call_overhead_us": overhead["probe"].wall.median_us,
    }
    gap = None
    if ref.cuda_event and cand.cuda_event:
        fields["speedup_cuda_event"] = ref.cuda_event.median_us / cand.cuda_event.median_us
        gap = (cand.wall.median_us - cand.cuda_event.median_us) - (
            ref.wall.median_us - ref.cuda_event.median_us
        )
    if "inductor" in timings:
        fields["inductor_median_us"] = timings["inductor"].wall.median_us
        fields["speedup_vs_inductor"] = fields["inductor_median_us"] / cand.wall.median_us
    return fields, gap


def gap_suspicious(gap: float | None, candidate_median_us: float) -> bool:
    """An end-to-end/event gap that suggests work escaping the timed stream (a warning)."""
    return gap is not None and gap > max(GAP_WARN_US, 0.5 * candidate_median_us)
