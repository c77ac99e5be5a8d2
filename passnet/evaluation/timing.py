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

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

from passnet.core.results import SideTiming
from passnet.evaluation.timing_stats import (  # noqa: F401 - part of this module's API
    Run,
    SideRun,
    block_calls,
    ci_halfwidth,
    kept_run,
    median_ci,
    relative_spread,
    side_timings,
    timed_cap,
    timing_rule,
)

if TYPE_CHECKING:
    from passnet.evaluation.witness import Witness


@dataclass
class Side:
    """One callable under measurement with its own inputs. ``before`` runs before each call
    and ``after`` gets each call's outputs, both outside the timed window (harness work: fresh
    values into ``args``, holding the outputs); ``settle`` runs after the side's warmup and
    after each of its blocks of calls in a round (checking the held outputs), so that no heavier
    harness work than ``before`` and ``after`` sits between two calls of a block.
    ``last_checked`` on ``fn`` (a ``TimedSampler``) marks a call that was a checked call in
    disguise."""

    name: str
    fn: Callable[..., Any]
    args: Sequence[Any]
    before: Callable[[], None] | None = None
    after: Callable[[Any], None] | None = None
    settle: Callable[[], None] | None = None
    wall_us: list[float] = field(default_factory=list)
    event_us: list[float] = field(default_factory=list)
    checked: list[bool] = field(default_factory=list)


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


def _call(side: Side) -> None:
    """One untimed call (a warmup) with the side's harness work around it."""
    if side.before is not None:
        side.before()
    out = side.fn(*side.args)
    if side.after is not None:
        side.after(out)


def _measure_once(sides: list[Side], device: torch.device, warmup: int, trials: int,
                  rounds: int, witness: Witness | None) -> None:  # fmt: skip
    for side in sides:
        side.wall_us.clear()
        side.event_us.clear()
        side.checked.clear()
        start = getattr(side.fn, "new_run", None)
        if start is not None:  # a TimedSampler counts its secret positions from here
            start()
        for _ in range(warmup):
            _call(side)
        if side.settle is not None:
            side.settle()
    _sync_fn(device)()
    if witness is not None:
        witness.next_run()
    _rounds(sides, device, trials, rounds, 0, witness)


def _rounds(sides: list[Side], device: torch.device, trials: int, rounds: int, first: int,
            witness: Witness | None = None) -> None:  # fmt: skip
    """``rounds`` interleaved rounds of ``trials // rounds`` calls a side, appended to the
    samples; ``first`` is the index of the first round (for the alternating order). The
    witness, if any, sees each timed window open and close (``passnet.evaluation.witness``)."""
    sync = _sync_fn(device)
    use_events = device.type == "cuda"
    per_round = max(1, trials // rounds)
    perf = time.perf_counter_ns
    for r in range(first, first + rounds):
        # Alternate the order each round so neither side always runs right after the other.
        order = list(enumerate(sides)) if r % 2 == 0 else list(reversed(list(enumerate(sides))))
        for index, side in order:
            fn, args, before, after = side.fn, side.args, side.before, side.after
            for _ in range(per_round):
                if before is not None:
                    before()
                event_us = -1.0
                if use_events:
                    start, end = (
                        torch.cuda.Event(enable_timing=True),
                        torch.cuda.Event(enable_timing=True),
                    )
                    sync()
                    if witness is not None:
                        witness.opened(index)
                    t0 = perf()
                    start.record()
                    out = fn(*args)
                    end.record()
                    sync()
                    t1 = perf()
                    event_us = start.elapsed_time(end) * 1e3
                    side.event_us.append(event_us)
                else:
                    sync()
                    if witness is not None:
                        witness.opened(index)
                    t0 = perf()
                    out = fn(*args)
                    sync()
                    t1 = perf()
                checked = getattr(fn, "last_checked", False) is True
                if witness is not None:
                    witness.closed(index, t1 - t0, event_us, checked)
                side.wall_us.append((t1 - t0) / 1e3)
                side.checked.append(checked)
                if after is not None:
                    after(out)
                del out
            if side.settle is not None:
                side.settle()


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
    witness: Witness | None = None,
    label: str = "main",
    calls: int = 1,
) -> dict[str, SideTiming]:
    """Time every side in interleaved rounds; re-run (do not fail) while any side is noisy.
    With ``ci_target``, extend each run while a median is not yet known tightly enough
    (module docstring), up to ``max_trials`` calls a side (default 4 x ``trials``). Checked
    calls in disguise leave the statistics. ``witness``: every timed window is reported to the
    parent as it opens and closes, under ``label`` (``calls``: calls per timed call, for the
    parent's per-call times)."""
    cap, block = timed_cap(trials, rounds, ci_target, max_trials), block_calls(trials, rounds)
    if witness is not None:
        witness.declare(
            label,
            [s.name for s in sides],
            rounds=rounds,
            block=block,
            noise_limit=noise_limit,
            calls=calls,
            ci_target=ci_target,
            cap=cap,
        )
    runs: list[Run] = []
    for _ in range(max_reruns + 1):
        _measure_once(sides, device, warmup, trials, rounds, witness)
        blocks = 1
        while (
            ci_target is not None
            and max(ci_halfwidth(s.wall_us) for s in sides) > ci_target / 2
            and (blocks + 1) * block <= cap
        ):
            _rounds(sides, device, trials, rounds, blocks * rounds, witness)
            blocks += 1
        runs.append({s.name: SideRun(list(s.wall_us), list(s.event_us), list(s.checked))
                     for s in sides})  # fmt: skip
        if max(relative_spread(s.wall_us) for s in sides) <= noise_limit:
            break
    return side_timings(kept_run(runs, noise_limit), rounds, block, noise_limit)
