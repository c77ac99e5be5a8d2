"""PassBench scores (SPEC section 6): S_t, ES_t, AS, fast_p and the suite scores.

Every geometric mean is taken in log space with ``math.fsum`` so that long suites of tiny
(b = 0.001) or large factors neither underflow nor lose precision. The closed form of the SPEC
is implemented separately and only used as a cross-check of the direct computation.

Untimed variants: a correct variant whose timings mean nothing (``timing_meaningful`` false: a
pass on CPU, its kernels in Triton's interpreter) has speedup 1.0, neutral, in S_t, ES_t and AS;
fast_p never counts it as fast and the G-mean speedups leave it out. Its raw interpreter
speedup (0.001x) would otherwise rank every correct pass below an incorrect one, whose
accuracy failures are relieved from t = 1 on (AS ~0.147).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from passnet.core.results import STATUS_ERROR_CLASS, Scores, Status, VariantResult
from passnet.core.tolerance import T_LEVELS, TOLERATED_FROM, ErrorClass, correct_at

NEUTRAL_SPEEDUP = 1.0
"""The speedup a correct variant without meaningful timings is scored with."""

FAST_P_LEVEL = -5
"""fast_p asks for correctness at torch's default allclose tolerance (t = -5)."""

AS_WEIGHTS: dict[int, float] = {
    -10: 0.001,
    -9: 0.001,
    -8: 0.001,
    -7: 0.001,
    -6: 0.001,
    -5: 1.0,
    -4: 1.0,
    -3: 1.0,
    -2: 0.8,
    -1: 0.64,
    0: 0.512,
    1: 0.4096,
    2: 0.32768,
    3: 0.262144,
    4: 0.001,
}
"""Raw (unnormalised) weights of ES_t in AS, SPEC section 6; they sum to 5.957424."""


@dataclass(frozen=True)
class Outcome:
    """One subgraph's result as the scores see it."""

    speedup: float | None
    """Eager median / candidate median; None when it never ran or was not timed."""
    tightest_passing_t: int | None
    """Strictest t in -10..0 at which all outputs pass allclose; None = passes none."""
    failure: ErrorClass | None = None
    """RUNTIME or COMPILE when it failed before/while running (then never correct); None when
    it ran and was compared (then any level it fails is an ACCURACY failure)."""
    timed: bool = True
    """False when its timings mean nothing: ``speedup`` is then NEUTRAL_SPEEDUP."""


def outcome_from_variant(v: VariantResult) -> Outcome:
    """Reduce a variant to what the scores need.

    The status is authoritative: INCORRECT means allclose fails at t = 1, hence at every level,
    whatever the comparison says; statuses other than OK/INCORRECT are never correct and take
    their error class from ``STATUS_ERROR_CLASS``. An OK variant without meaningful timings
    gets NEUTRAL_SPEEDUP (module docstring).
    """
    if v.status is Status.OK:
        tightest = v.comparison.tightest_passing_t if v.comparison is not None else None
        if tightest is None:
            raise ValueError(
                f"variant {v.graph!r} has status 'ok' but no tightest_passing_t; "
                "an OK variant must pass allclose at some level <= 0"
            )
        if not v.timing_meaningful:
            return Outcome(NEUTRAL_SPEEDUP, tightest_passing_t=tightest, timed=False)
        return Outcome(speedup=v.speedup, tightest_passing_t=tightest)
    if v.status is Status.INCORRECT:
        return Outcome(speedup=v.speedup, tightest_passing_t=None)
    return Outcome(speedup=v.speedup, tightest_passing_t=None, failure=STATUS_ERROR_CLASS[v.status])


def _is_correct(o: Outcome, t: int) -> bool:
    return o.failure is None and correct_at(t, o.tightest_passing_t)


def _error_class(o: Outcome) -> ErrorClass:
    return o.failure if o.failure is not None else ErrorClass.ACCURACY


def _relieved(cls: ErrorClass, t: int) -> bool:
    return t >= 1 and t >= TOLERATED_FROM[cls]


def _check_speedup(o: Outcome) -> float:
    if o.speedup is None or not (o.speedup > 0 and math.isfinite(o.speedup)):
        raise ValueError(f"a correct subgraph needs a finite positive speedup, got {o!r}")
    return o.speedup


def _check_params(b: float, p: float) -> None:
    if not (0 < b and math.isfinite(b)):
        raise ValueError(f"b must be a finite positive number, got {b}")
    if not (p >= 0 and math.isfinite(p)):
        raise ValueError(f"p must be a finite number >= 0, got {p}")


def _nonempty(outcomes: Iterable[Outcome]) -> list[Outcome]:
    items = list(outcomes)
    if not items:
        raise ValueError("cannot score an empty list of subgraph outcomes")
    return items


def gmean(values: Sequence[float]) -> float:
    """Geometric mean in log space (stable for long lists of very small/large factors)."""
    return math.exp(math.fsum(math.log(x) for x in values) / len(values))


def rectified_speedup(o: Outcome, t: int, b: float, p: float, relief: bool) -> float:
    """r_i(t) of SPEC section 6; ``relief=True`` gives the ES_t factor, False the S_t one."""
    if _is_correct(o, t):
        s = _check_speedup(o)
        return s if s >= 1 else s ** (p + 1)
    if relief and _relieved(_error_class(o), t):
        return 1.0
    return b


def _score(outcomes: Iterable[Outcome], t: int, b: float, p: float, relief: bool) -> float:
    items = _nonempty(outcomes)
    _check_params(b, p)
    return gmean([rectified_speedup(o, t, b, p, relief) for o in items])


def s_t(outcomes: Iterable[Outcome], t: int, b: float = 0.1, p: float = 0.0) -> float:
    """S_t: geometric mean of r_i(t), every failure counted as b."""
    return _score(outcomes, t, b, p, relief=False)


def es_t(outcomes: Iterable[Outcome], t: int, b: float = 0.1, p: float = 0.0) -> float:
    """ES_t: like S_t, but failures whose class is tolerated at t (t >= 1) count as 1."""
    return _score(outcomes, t, b, p, relief=True)


def es_curve(outcomes: Iterable[Outcome], b: float = 0.1, p: float = 0.0) -> dict[int, float]:
    """ES_t at every level of T_LEVELS."""
    items = _nonempty(outcomes)
    return {t: es_t(items, t, b, p) for t in T_LEVELS}


def s_curve(outcomes: Iterable[Outcome], b: float = 0.1, p: float = 0.0) -> dict[int, float]:
    """S_t at every level of T_LEVELS."""
    items = _nonempty(outcomes)
    return {t: s_t(items, t, b, p) for t in T_LEVELS}


def aggregate_score(es: dict[int, float]) -> float:
    """AS = weighted geometric mean of ES_t over t = -10..4 (weights AS_WEIGHTS)."""
    missing = sorted(set(T_LEVELS) - set(es))
    if missing:
        raise ValueError(f"ES curve lacks tolerance levels {missing}")
    num = math.fsum(AS_WEIGHTS[t] * math.log10(es[t]) for t in T_LEVELS)
    return 10 ** (num / math.fsum(AS_WEIGHTS.values()))


def _closed_form(outcomes: Iterable[Outcome], t: int, b: float, p: float, relief: bool) -> float:
    """alpha^lambda * beta^(lambda eta p) * gamma_t^(1 - lambda), built from class shares."""
    items = _nonempty(outcomes)
    _check_params(b, p)
    n = len(items)
    correct = [_check_speedup(o) for o in items if _is_correct(o, t)]
    below = [s for s in correct if s < 1]
    failed = [_error_class(o) for o in items if not _is_correct(o, t)]
    lam = len(correct) / n
    eta = len(below) / len(correct) if correct else 0.0
    alpha = gmean(correct) if correct else 1.0
    beta = gmean(below) if below else 1.0
    if relief and t > 0 and failed:
        # pi_c = share of class c among failures; gamma_t = b^(sum_c pi_c * 1[t < thr_c]).
        exponent = math.fsum(
            (failed.count(c) / len(failed)) * (t < TOLERATED_FROM[c]) for c in ErrorClass
        )
        gamma = b**exponent
    else:
        gamma = b
    return alpha**lam * beta ** (lam * eta * p) * gamma ** (1 - lam)


def closed_form_s_t(outcomes: Iterable[Outcome], t: int, b: float, p: float) -> float:
    """S_t by the SPEC closed form (cross-check of ``s_t``)."""
    return _closed_form(outcomes, t, b, p, relief=False)


def closed_form_es_t(outcomes: Iterable[Outcome], t: int, b: float, p: float) -> float:
    """ES_t by the SPEC closed form (cross-check of ``es_t``)."""
    return _closed_form(outcomes, t, b, p, relief=True)


def fast_p(outcomes: Iterable[Outcome], p: float = 1.0) -> float:
    """Share of ALL subgraphs correct at t = -5 with speedup > p (KernelBench's fast_p); an
    untimed subgraph is never a hit."""
    items = _nonempty(outcomes)
    hits = sum(
        1 for o in items if o.timed and _is_correct(o, FAST_P_LEVEL) and _check_speedup(o) > p
    )
    return hits / len(items)


def correct_rate(outcomes: Iterable[Outcome], t: int = 1) -> float:
    """Share of subgraphs correct at level t."""
    items = _nonempty(outcomes)
    return sum(1 for o in items if _is_correct(o, t)) / len(items)


def gmean_speedup_correct(outcomes: Iterable[Outcome], t: int = 1) -> float | None:
    """Geometric mean speedup over the timed subgraphs correct at t; None if there are none."""
    speedups = [_check_speedup(o) for o in _nonempty(outcomes) if o.timed and _is_correct(o, t)]
    return gmean(speedups) if speedups else None


def neutral_speedups(outcomes: Iterable[Outcome], t: int = 1) -> int:
    """How many subgraphs correct at t were scored with NEUTRAL_SPEEDUP (untimed)."""
    return sum(1 for o in _nonempty(outcomes) if not o.timed and _is_correct(o, t))


def _gmean_vs_inductor(
    variants: Sequence[VariantResult], outcomes: Sequence[Outcome]
) -> float | None:
    values = [
        v.speedup_vs_inductor
        for v, o in zip(variants, outcomes, strict=True)
        if _is_correct(o, 1) and o.timed and (v.speedup_vs_inductor or 0) > 0
    ]
    return gmean(values) if values else None


def rank_key(correct: bool, score: float | None) -> tuple[bool, float]:
    """Sort key wherever one result is picked over others (best snapshot, best attempt,
    training examples): correct on every variant first, then AS. AS alone can rank an incorrect
    pass above a correct one: relieved accuracy failures score ~0.147, a correct pass at speedup
    0.1 scores ~0.1."""
    return (bool(correct), score if score is not None else -math.inf)


def compute_scores(variants: list[VariantResult], b: float = 0.1, p: float = 0.0) -> Scores:
    """All scores of one task from its variants (fast_p at threshold 1.0, rates at t = 1)."""
    if not variants:
        raise ValueError("cannot score a task without variants")
    outcomes = [outcome_from_variant(v) for v in variants]
    es = es_curve(outcomes, b, p)
    return Scores(
        AS=aggregate_score(es),
        ES=es,
        S=s_curve(outcomes, b, p),
        fast_p=fast_p(outcomes, 1.0),
        subgraph_correct_rate=correct_rate(outcomes, 1),
        gmean_speedup_correct=gmean_speedup_correct(outcomes, 1),
        gmean_speedup_vs_inductor_correct=_gmean_vs_inductor(variants, outcomes),
        neutral_speedups=neutral_speedups(outcomes, 1),
    )


def suite_scores(
    task_variant_lists: list[list[VariantResult]], b: float = 0.1, p: float = 0.0
) -> dict:
    """Scores of a suite of tasks.

    ``pooled_AS`` (the headline) treats every subgraph of the suite as one sample set, as
    GraphNet defines ES_t over samples; ``mean_task_AS`` is the arithmetic mean of the per-task
    AS, reported beside it because upstream does not say how tasks combine.
    """
    if not task_variant_lists:
        raise ValueError("cannot score an empty suite")
    if any(not task for task in task_variant_lists):
        raise ValueError("every task of a suite needs at least one variant")
    per_task = [[outcome_from_variant(v) for v in task] for task in task_variant_lists]
    task_as = [aggregate_score(es_curve(outs, b, p)) for outs in per_task]
    variants = [v for task in task_variant_lists for v in task]
    pooled = [o for outs in per_task for o in outs]
    pooled_es = es_curve(pooled, b, p)
    return {
        "pooled_AS": aggregate_score(pooled_es),
        "mean_task_AS": math.fsum(task_as) / len(task_as),
        "task_AS": task_as,
        "pooled_ES": pooled_es,
        "pooled_S": s_curve(pooled, b, p),
        "fast_p": fast_p(pooled, 1.0),
        "subgraph_correct_rate": correct_rate(pooled, 1),
        "task_correct_rate": sum(1 for outs in per_task if all(_is_correct(o, 1) for o in outs))
        / len(per_task),
        "gmean_speedup_correct": gmean_speedup_correct(pooled, 1),
        "gmean_speedup_vs_inductor_correct": _gmean_vs_inductor(variants, pooled),
        "neutral_speedups": neutral_speedups(pooled, 1),
        "n_tasks": len(per_task),
        "n_subgraphs": len(pooled),
        "b": b,
        "p": p,
    }
