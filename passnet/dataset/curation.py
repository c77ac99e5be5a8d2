"""Choosing a long-tail suite from measured tasks (docs/suites.md).

``scripts/build_suite.py`` measures eager and default Inductor on every variant of every
candidate task (all dtypes and shape buckets, ``passnet bench`` on the target device) and hands
the per-task results to :func:`choose_suite`. The rule, in order:

1. A task is eligible when eager ran on all of its measured variants and each variant computes
   something when run eagerly (:func:`eager_work`; a chain of views would time an empty call).
2. Tasks are ranked weakest Inductor first: tasks where Inductor failed on a variant, then by
   the geometric mean of Inductor's speedup over eager on its correct variants.
3. Coverage first: walking that ranking, a task is taken when it brings a model family the
   chosen tasks do not have yet, until ``min_families`` families are covered.
4. Then the ranking again, filling up to ``n`` tasks with at most ``per_family`` tasks of the
   same main family (the family most of its variants come from).

The measures are plain numbers so the rule is tested without a device; the dataset layer does
not read benchmark stores (those sit above it).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path


class CurationError(Exception):
    """The measured tasks cannot give the suite that was asked for; says what is short."""


@dataclass(frozen=True)
class TaskMeasure:
    """One task's eager and default-Inductor results over all of its variants."""

    name: str
    families: tuple[str, ...]  # the model family of each variant
    measured: int  # variants with an Inductor result (correct or not)
    speedups: tuple[float, ...]  # Inductor over eager on its correct variants
    eager_ok: int  # variants where the eager baseline ran
    working: bool = True  # every variant computes something eagerly (eager_work > 0)

    @property
    def failed(self) -> int:
        """Variants where Inductor did not give a correct result."""
        return self.measured - len(self.speedups)

    @property
    def gmean(self) -> float | None:
        if not self.speedups:
            return None
        return math.exp(sum(math.log(s) for s in self.speedups) / len(self.speedups))

    @property
    def main_family(self) -> str:
        counts = Counter(self.families)
        return min(counts, key=lambda f: (-counts[f], f)) if counts else ""

    @property
    def eligible(self) -> bool:
        return self.measured > 0 and self.eager_ok == self.measured and self.working

    @property
    def inductor_loses(self) -> bool:
        """Default Inductor does not beat eager on this task (fails, or G-mean <= 1)."""
        return self.failed > 0 or (self.gmean or 0.0) <= 1.0


def weakness(m: TaskMeasure) -> tuple:
    """Sort key: Inductor failures first, then the lowest G-mean speedup, then the name."""
    return (m.failed == 0, m.gmean if m.gmean is not None else 0.0, m.name)


def choose_suite(
    measures: Iterable[TaskMeasure], *, n: int = 30, per_family: int = 5, min_families: int = 16
) -> list[TaskMeasure]:
    """The suite's tasks by the module's rule, weakest first; raises when it falls short."""
    if n < 1 or per_family < 1:
        raise ValueError(f"n and per_family must be at least 1, got {n} and {per_family}")
    order = sorted((m for m in measures if m.eligible), key=weakness)
    chosen: list[TaskMeasure] = []
    per: Counter[str] = Counter()
    covered: set[str] = set()

    def take(m: TaskMeasure) -> None:
        chosen.append(m)
        per[m.main_family] += 1
        covered.update(m.families)

    for m in order:
        if len(covered) >= min_families or len(chosen) == n:
            break
        if not set(m.families) <= covered and per[m.main_family] < per_family:
            take(m)
    for m in order:
        if len(chosen) == n:
            break
        if m not in chosen and per[m.main_family] < per_family:
            take(m)
    if len(chosen) < n or len(covered) < min_families:
        raise CurationError(
            f"{len(order)} eligible tasks give {len(chosen)} of the {n} asked for, covering "
            f"{len(covered)} of the {min_families} model families asked for (at most "
            f"{per_family} per family); measure more tasks or relax --tasks/--min-families"
        )
    return sorted(chosen, key=weakness)


def pooled_gmean(measures: Iterable[TaskMeasure]) -> float | None:
    """Default Inductor's G-mean speedup over eager across every correct variant of the
    tasks (pooled, as the suite's score pools its subgraphs); None where none is correct."""
    logs = [math.log(s) for m in measures for s in m.speedups]
    return math.exp(sum(logs) / len(logs)) if logs else None


def longtail_share(measures: Iterable[TaskMeasure]) -> tuple[int, int]:
    """(tasks where default Inductor does not beat eager, tasks measured)."""
    measured = [m for m in measures if m.measured > 0]
    return sum(m.inductor_loses for m in measured), len(measured)


def eager_work(path: Path | str, device: str = "cpu") -> int:
    """Computing aten ops of one eager call of a sample as materialised on ``device`` (its
    recorded layouts): 0 means a timing of it would time an empty call."""
    from passnet.dataset.kernels import eager_launches
    from passnet.graph.sample import load_module, load_sample, materialize

    sample = load_sample(path)
    module = load_module(sample, device)
    return eager_launches(module, list(materialize(sample, device=device)))


def works(path: Path | str, device: str = "cpu", say: Callable[[str], None] = print) -> bool:
    """Whether the sample computes something eagerly (``eager_work``); one that cannot run is
    not eligible either, and ``say`` is told why (a broken sample is a reason, not a crash)."""
    try:
        return eager_work(path, device) > 0
    except Exception as e:  # noqa: BLE001 - any failure of the sample
        say(f"  {Path(path).name}: cannot run eagerly on {device}: {type(e).__name__}: {e}")
        return False
