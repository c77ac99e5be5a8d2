"""Choose a synthesised pass's launch shape on the device, at synth time.

Each candidate ``Tuning`` is emitted as its own pass folder, applied to every variant's graph
in this process (the synthesizer's own code: no sandbox needed) and checked against eager at
the keep level; the correct ones are timed side by side, interleaved, per variant
(``passnet.evaluation.timing.measure``), and the one the score favours wins: the smallest
geometric mean of per-variant median times, less what the score takes for tolerance levels
a variant fails (SPEC section 6: a variant correct only from t = -4 scores b at t = -5, which
costs its AS a factor 0.68, more than any launch shape gains; the shapes' reduction orders
round half-precision results differently). The chosen pass is then verified like any other,
in sandboxed workers. Under Triton's interpreter (CPU) timings mean nothing: nothing is tuned.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from passnet.dataset.task import Task
from passnet.passes.loader import write_pass_dir
from passnet.synth.wrapper import Tuning

CONFIGS: tuple[Tuning, ...] = (
    Tuning(),  # the untuned GPU shape: 1024-element programs, 4096-element row tiles
    Tuning(flat_block=256, row_tile=1024, max_rows=16, num_warps=2),
    Tuning(flat_block=512, row_tile=2048, max_rows=32, num_warps=4),
    Tuning(flat_block=2048, row_tile=8192, max_rows=64, num_warps=8),
    Tuning(flat_block=4096, row_tile=16384, max_rows=128, num_warps=8),
    Tuning(flat_block=1024, row_tile=2048, max_rows=8, num_warps=2),
    Tuning(flat_block=1024, row_tile=4096, max_rows=4, num_warps=1),
)
"""Launch shapes tried, from few warps on small tiles to many on large ones."""

Emit = Callable[[Tuning], list[tuple[str, str]]]
"""A tuning -> the pass folder's (rule stem, module source) pairs."""


def level_penalty(tightest_t: int, b: float = 0.1) -> float:
    """What failing every level below ``tightest_t`` costs a variant's log AS (SPEC section
    6: ``b`` in place of its speedup at each of those levels, by their weights)."""
    from passnet.scores.metrics import AS_WEIGHTS

    failed = sum(w for t, w in AS_WEIGHTS.items() if t < tightest_t)
    return -math.log(b) * failed / sum(AS_WEIGHTS.values())


def _fresh(inputs: list) -> list:
    """Copies of ``inputs``: a graph may write into its input in place (``relu_``), and its
    pass as eager does, so each side is checked on the inputs as drawn."""
    return [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]


def _variant_sides(task: Task, emitted: dict[int, Path], device: torch.device, strict_t: int):
    """Per variant: (inputs, {config index: rewritten forward}) for the configs that are
    correct on it at ``strict_t``, and per config the tightest level it passes on each
    variant; a config that fails anywhere is dropped everywhere."""
    from passnet.graph.sample import load_module, load_sample, materialize
    from passnet.passes.loader import load_pass_dir
    from passnet.passes.matcher import apply_passes, to_fx
    from passnet.scores.compare import compare_outputs

    passes = {i: load_pass_dir(folder) for i, folder in emitted.items()}
    failed: dict[int, str] = {}
    tightest: dict[int, list[int]] = {i: [] for i in passes}
    per_variant = []
    for variant in task.variants:
        sample = load_sample(variant.path)
        module = load_module(sample, device)
        inputs = materialize(sample, device=str(device), seed=0)
        with torch.no_grad():
            ref = module(*_fresh(inputs))
        fns = {}
        for i, ps in passes.items():
            if i in failed:
                continue
            gm = to_fx(load_module(sample, device))
            try:
                if apply_passes(gm, ps).total == 0:
                    raise ValueError("no match")
                with torch.no_grad():
                    out = gm(*_fresh(inputs))
                t = compare_outputs(out, ref).tightest_passing_t
                if t is None or t > strict_t:
                    raise ValueError(f"passes only at t = {t}")
                tightest[i].append(t)
            except Exception as exc:  # noqa: BLE001 - a shape that breaks is not a candidate
                failed[i] = f"{variant.graph}: {type(exc).__name__}: {exc}"[:300]
                continue
            fns[i] = gm.forward
        per_variant.append((inputs, fns))
    return per_variant, failed, tightest


@contextmanager
def _timing_lock(device: torch.device) -> Iterator[None]:
    """The device's lock held exclusive around the search's timings, as the evaluator's
    workers time: tasks synthesised in parallel (``synthesize_tasks``) compile side by side
    but never time at once, and no worker prepares on the device meanwhile. The search's
    other device work (one call per config and variant, each compiling its kernel first) takes
    no shared hold: compiles of seconds under it would queue every timing behind them."""
    from passnet.evaluation import device_lock

    if not device_lock.enabled():
        yield
        return
    lock = device_lock.DeviceLock(device_lock.lock_dir(), device)
    try:
        lock.acquire()
        yield
    finally:
        lock.close()


def tune(
    task: Task,
    emit: Emit,
    device: str,
    *,
    strict_t: int,
    configs: tuple[Tuning, ...] = CONFIGS,
    measure: Callable[..., dict] | None = None,
) -> tuple[Tuning, dict[str, Any]]:
    """The tuning of ``emit``'s pass the score favours on ``task`` (fastest, less the levels it
    fails; see the module docstring), correct on every variant at ``strict_t``, and the record
    of the search (each config's geometric-mean median time and tightest levels, or why it was
    dropped). ``measure`` defaults to the harness's interleaved timing."""
    if measure is None:
        from passnet.evaluation.timing import measure as harness_measure

        measure = harness_measure
    dev = torch.device(device)
    with tempfile.TemporaryDirectory(prefix="passnet-tune-") as tmp:
        emitted = {}
        for i, cfg in enumerate(configs):
            emitted[i] = Path(tmp) / f"c{i}"
            write_pass_dir(emitted[i], emit(cfg))
        per_variant, failed, tightest = _variant_sides(task, emitted, dev, strict_t)
        alive = [i for i in range(len(configs)) if i not in failed]
        logs: dict[int, float] = dict.fromkeys(alive, 0.0)
        if alive:
            from passnet.evaluation.timing import Side

            with _timing_lock(dev):
                for inputs, fns in per_variant:
                    sides = [Side(str(i), fns[i], inputs) for i in alive]
                    with torch.no_grad():
                        timed = measure(sides, dev, warmup=10, trials=40, rounds=4, max_reruns=1)
                    for i in alive:
                        logs[i] += math.log(timed[str(i)].wall.median_us)
    n = max(1, len(per_variant))
    record: dict[str, Any] = {
        "configs": [
            {
                **asdict(cfg),
                "gmean_us": round(math.exp(logs[i] / n), 3) if i in logs else None,
                "tightest_t": tightest[i] if i in logs else None,
                "dropped": failed.get(i),
            }
            for i, cfg in enumerate(configs)
        ]
    }
    if not alive:
        record["chosen"] = None
        return Tuning(), record
    cost = {i: logs[i] + sum(map(level_penalty, tightest[i])) for i in alive}
    best = min(alive, key=lambda i: (cost[i], i))
    record["chosen"] = asdict(configs[best])
    return configs[best], record
