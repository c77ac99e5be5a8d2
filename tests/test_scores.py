"""Tests of passnet.scores.metrics against hand-computed values and the SPEC closed form."""

from __future__ import annotations

import math
import random

import pytest

from passnet.core.results import Comparison, Scores, Status, VariantResult
from passnet.core.tolerance import T_LEVELS, ErrorClass
from passnet.scores.metrics import (
    AS_WEIGHTS,
    Outcome,
    aggregate_score,
    closed_form_es_t,
    closed_form_s_t,
    compute_scores,
    correct_rate,
    es_curve,
    es_t,
    fast_p,
    gmean_speedup_correct,
    outcome_from_variant,
    rank_key,
    rectified_speedup,
    s_curve,
    s_t,
    suite_scores,
)

RUNTIME = ErrorClass.RUNTIME
COMPILE = ErrorClass.COMPILE
ACCURACY = ErrorClass.ACCURACY

# speedups 2.0 and 0.5, both correct from t = -5, plus one runtime failure
MIXED = [Outcome(2.0, -5), Outcome(0.5, -5), Outcome(None, None, RUNTIME)]


def approx(x: float) -> object:
    return pytest.approx(x, rel=1e-12, abs=1e-12)


# --- hand-computed values -------------------------------------------------------------------


def test_mixed_p0() -> None:
    # correct: 2 * 0.5 = 1; failure b = 0.1 -> cube root of 0.1
    assert s_t(MIXED, -5) == approx(0.1 ** (1 / 3))
    assert es_t(MIXED, -5) == approx(0.1 ** (1 / 3))
    assert s_t(MIXED, 1) == approx(0.1 ** (1 / 3))
    assert es_t(MIXED, 1) == approx(0.1 ** (1 / 3))  # runtime not tolerated before t = 3
    assert s_t(MIXED, 3) == approx(0.1 ** (1 / 3))
    assert es_t(MIXED, 3) == approx(1.0)  # runtime relieved: 2 * 0.5 * 1
    # t = -6: all three fail -> b
    assert s_t(MIXED, -6) == approx(0.1)
    assert es_t(MIXED, -6) == approx(0.1)


def test_mixed_p1() -> None:
    # 0.5 is penalised to 0.5 ** 2 = 0.25: 2 * 0.25 * 0.1 = 0.05
    assert s_t(MIXED, -5, p=1) == approx(0.05 ** (1 / 3))
    assert es_t(MIXED, 1, p=1) == approx(0.05 ** (1 / 3))
    assert s_t(MIXED, 3, p=1) == approx(0.05 ** (1 / 3))
    assert es_t(MIXED, 3, p=1) == approx(0.5 ** (1 / 3))
    assert es_t(MIXED, 3, b=0.001, p=1) == approx(0.5 ** (1 / 3))
    assert s_t(MIXED, 3, b=0.001, p=1) == approx(0.0005 ** (1 / 3))


def test_accuracy_relief_from_t1() -> None:
    ran_wrong = [Outcome(3.0, None), Outcome(1.0, -10)]
    assert es_t(ran_wrong, 0) == approx(math.sqrt(0.1))
    assert es_t(ran_wrong, 1) == approx(1.0)
    assert s_t(ran_wrong, 1) == approx(math.sqrt(0.1))
    # passes only at t = -2: failing at -3 is an accuracy failure, correct at 1..4
    late = [Outcome(4.0, -2)]
    assert es_t(late, -3) == approx(0.1)
    assert es_t(late, -2) == approx(4.0)
    assert es_t(late, 4) == approx(4.0)


def test_rectified_speedup() -> None:
    assert rectified_speedup(Outcome(3.0, -10), -10, 0.1, 0.0, True) == 3.0
    assert rectified_speedup(Outcome(0.5, 0), 0, 0.1, 0.5, False) == approx(0.5**1.5)
    assert rectified_speedup(Outcome(0.5, 0), -1, 0.1, 0.5, True) == 0.1
    comp = Outcome(None, None, COMPILE)
    assert rectified_speedup(comp, 2, 0.1, 0.0, True) == 0.1
    assert rectified_speedup(comp, 3, 0.1, 0.0, True) == 1.0
    assert rectified_speedup(comp, 3, 0.1, 0.0, False) == 0.1
    # a run that fails with an explicit class is never correct, whatever its tightest level
    assert rectified_speedup(Outcome(2.0, -10, RUNTIME), 0, 0.1, 0.0, True) == 0.1


def test_curves_cover_all_levels() -> None:
    es = es_curve(MIXED)
    s = s_curve(MIXED)
    assert list(es) == list(T_LEVELS) == list(range(-10, 5))
    assert list(s) == list(T_LEVELS)
    assert es[4] == approx(1.0) and s[4] == approx(0.1 ** (1 / 3))


# --- errors ---------------------------------------------------------------------------------


def test_errors() -> None:
    with pytest.raises(ValueError, match="empty"):
        s_t([], 0)
    with pytest.raises(ValueError, match="empty"):
        es_curve([])
    with pytest.raises(ValueError, match="empty"):
        fast_p([])
    with pytest.raises(ValueError, match="speedup"):
        es_t([Outcome(None, -5)], 0)
    with pytest.raises(ValueError):
        es_t(MIXED, 0, b=0.0)
    with pytest.raises(ValueError):
        es_t(MIXED, 0, p=-1.0)
    with pytest.raises(ValueError, match="levels"):
        aggregate_score({0: 1.0})
    # a correct-but-untimed subgraph is fine at levels where it is not correct
    assert es_t([Outcome(None, -5)], -6) == approx(0.1)


# --- closed form ----------------------------------------------------------------------------


def _random_outcomes(rng: random.Random) -> list[Outcome]:
    out = []
    for _ in range(rng.randint(1, 15)):
        kind = rng.random()
        if kind < 0.15:
            out.append(Outcome(None, None, rng.choice([RUNTIME, COMPILE, ACCURACY])))
        elif kind < 0.25:
            out.append(Outcome(rng.uniform(0.1, 3.0), None))  # ran, accuracy failure everywhere
        else:
            speedup = 10 ** rng.uniform(-1.5, 1.5)
            if rng.random() < 0.1:
                speedup = 1.0
            out.append(Outcome(speedup, rng.randint(-10, 0)))
    return out


@pytest.mark.parametrize("seed", range(60))
def test_closed_form_matches_direct(seed: int) -> None:
    rng = random.Random(seed)
    outcomes = _random_outcomes(rng)
    for p in (0.0, 0.5, 1.0):
        for b in (0.1, 0.001):
            for t in T_LEVELS:
                assert closed_form_s_t(outcomes, t, b, p) == pytest.approx(
                    s_t(outcomes, t, b, p), rel=1e-9
                )
                assert closed_form_es_t(outcomes, t, b, p) == pytest.approx(
                    es_t(outcomes, t, b, p), rel=1e-9
                )


def test_closed_form_covers_every_class() -> None:
    # all classes: at t = 2 only accuracy is relieved, at t = 3 all are
    outs = [
        Outcome(2.0, -10),
        Outcome(None, None, RUNTIME),
        Outcome(None, None, COMPILE),
        Outcome(0.9, None),
    ]
    b = 0.1
    # t = 2: accuracy relieved, runtime and compile not: (2 * 0.1 * 0.1 * 1) ** 0.25
    assert es_t(outs, 2, b) == approx(0.02**0.25)
    assert closed_form_es_t(outs, 2, b, 0.0) == approx(0.02**0.25)
    assert closed_form_es_t(outs, 3, b, 0.0) == approx(2**0.25)


# --- AS and the SPEC sanity anchors ---------------------------------------------------------


def test_as_weights() -> None:
    assert set(AS_WEIGHTS) == set(T_LEVELS)
    assert math.fsum(AS_WEIGHTS.values()) == pytest.approx(5.957424, abs=1e-12)


@pytest.mark.parametrize("s", [1.0, 2.0])
def test_anchor_correct_from_t_minus5(s: float) -> None:
    score = aggregate_score(es_curve([Outcome(s, -5)]))
    # only t = -10..-6 (weight 0.005) fail: AS = s^(5.952424/W) * 0.1^(0.005/W)
    w = 5.957424
    assert score == approx(s ** (5.952424 / w) * 0.1 ** (0.005 / w))
    assert abs(score - 0.998 * s) < 0.002


def test_anchor_passes_only_from_t1() -> None:
    score = aggregate_score(es_curve([Outcome(1.0, None)]))
    assert round(score, 3) == 0.147


@pytest.mark.parametrize("b", [0.1, 0.001])
def test_anchor_no_match(b: float) -> None:
    score = aggregate_score(es_curve([Outcome(None, None, COMPILE)], b=b))
    # relief at t = 3, 4 (weights 0.262144 + 0.001); b elsewhere
    expected = b ** ((5.957424 - 0.263144) / 5.957424)
    assert score == approx(expected)
    assert b < score
    if b == 0.1:
        assert score == pytest.approx(0.110706, abs=1e-6)  # ~1.107 b: "scores b" is approximate


def test_aggregate_score_weighting() -> None:
    es = {t: 1.0 for t in T_LEVELS}
    assert aggregate_score(es) == approx(1.0)
    es[-5] = 10.0
    assert aggregate_score(es) == approx(10 ** (1.0 / 5.957424))


# --- fast_p, rates, gmean -------------------------------------------------------------------


def test_fast_p_correct_rate_gmean() -> None:
    outs = [
        Outcome(2.0, -5),  # fast, correct at -5
        Outcome(1.0, -5),  # correct but not faster than 1
        Outcome(3.0, -4),  # fast but not correct at -5
        Outcome(4.0, None),  # ran, never correct
        Outcome(None, None, COMPILE),
    ]
    assert fast_p(outs) == approx(1 / 5)
    assert fast_p(outs, p=0.5) == approx(2 / 5)
    assert fast_p(outs, p=2.0) == approx(0.0)
    assert correct_rate(outs) == approx(3 / 5)
    assert correct_rate(outs, -5) == approx(2 / 5)
    assert correct_rate(outs, -10) == approx(0.0)
    assert gmean_speedup_correct(outs) == approx(6 ** (1 / 3))
    assert gmean_speedup_correct(outs, -5) == approx(math.sqrt(2))
    assert gmean_speedup_correct(outs, -10) is None


def test_gmean_is_stable_for_long_lists() -> None:
    outs = [Outcome(1e-3, -10)] * 5000 + [Outcome(1e3, -10)] * 5000
    assert gmean_speedup_correct(outs) == pytest.approx(1.0, rel=1e-9)
    assert s_t([Outcome(None, None, RUNTIME)] * 10000, 0, b=0.001) == pytest.approx(0.001)


# --- variants -------------------------------------------------------------------------------


def _variant(
    status: Status,
    tightest: int | None = None,
    speedup: float | None = None,
    vs_inductor: float | None = None,
) -> VariantResult:
    comparison = (
        Comparison(tightest_passing_t=tightest) if status in (Status.OK, Status.INCORRECT) else None
    )
    return VariantResult(
        graph="g",
        dtype="float32",
        status=status,
        comparison=comparison,
        speedup=speedup,
        speedup_vs_inductor=vs_inductor,
    )


EXPECTED_FAILURE = {
    Status.NO_MATCH: COMPILE,
    Status.COMPILE_ERROR: COMPILE,
    Status.REJECTED: COMPILE,
    Status.RUNTIME_ERROR: RUNTIME,
    Status.TIMEOUT: RUNTIME,
    Status.CRASH: RUNTIME,
    Status.SAMPLE_ERROR: RUNTIME,
}


def test_outcome_from_variant_every_status() -> None:
    assert outcome_from_variant(_variant(Status.OK, -3, 1.5)) == Outcome(1.5, -3, None)
    assert outcome_from_variant(_variant(Status.INCORRECT, None, 1.2)) == Outcome(1.2, None)
    # the status wins over an inconsistent comparison
    assert outcome_from_variant(_variant(Status.INCORRECT, -4, 1.2)) == Outcome(1.2, None)
    for status, cls in EXPECTED_FAILURE.items():
        o = outcome_from_variant(_variant(status))
        assert o == Outcome(None, None, cls), status
    assert set(EXPECTED_FAILURE) | {Status.OK, Status.INCORRECT} == set(Status)
    with pytest.raises(ValueError, match="tightest"):
        outcome_from_variant(_variant(Status.OK, None, 1.0))


def test_compute_scores() -> None:
    variants = [
        _variant(Status.OK, -5, 2.0, vs_inductor=0.5),
        _variant(Status.OK, -5, 0.5, vs_inductor=2.0),
        _variant(Status.RUNTIME_ERROR),
    ]
    sc = compute_scores(variants)
    assert isinstance(sc, Scores)
    assert sc.ES[-5] == approx(0.1 ** (1 / 3)) and sc.ES[3] == approx(1.0)
    assert sc.S[3] == approx(0.1 ** (1 / 3))
    assert sc.AS == approx(aggregate_score(es_curve(MIXED)))
    assert sc.fast_p == approx(1 / 3)
    assert sc.subgraph_correct_rate == approx(2 / 3)
    assert sc.gmean_speedup_correct == approx(1.0)
    assert sc.gmean_speedup_vs_inductor_correct == approx(1.0)
    none_measured = compute_scores([_variant(Status.OK, -5, 2.0)])
    assert none_measured.gmean_speedup_vs_inductor_correct is None
    with pytest.raises(ValueError):
        compute_scores([])


def test_suite_pooled_vs_mean() -> None:
    task_a = [_variant(Status.OK, -10, 4.0)]
    task_b = [_variant(Status.OK, -10, 1.0)] * 3
    res = suite_scores([task_a, task_b])
    # pooled: (4 * 1 * 1 * 1) ** (1/4) = sqrt(2) at every t; mean of AS 4 and 1 = 2.5
    assert res["pooled_AS"] == approx(math.sqrt(2))
    assert res["mean_task_AS"] == approx(2.5)
    assert res["task_AS"] == [approx(4.0), approx(1.0)]
    assert res["task_correct_rate"] == approx(1.0)
    assert res["n_tasks"] == 2 and res["n_subgraphs"] == 4

    task_c = [_variant(Status.OK, -10, 1.0), _variant(Status.CRASH)]
    res = suite_scores([task_a, task_b, task_c], b=0.1)
    assert res["task_correct_rate"] == approx(2 / 3)
    assert res["subgraph_correct_rate"] == approx(5 / 6)
    assert res["pooled_ES"][-10] == approx((4 * 0.1) ** (1 / 6))
    assert res["pooled_ES"][3] == approx(4 ** (1 / 6))
    assert res["pooled_AS"] != pytest.approx(res["mean_task_AS"])
    with pytest.raises(ValueError):
        suite_scores([])
    with pytest.raises(ValueError):
        suite_scores([task_a, []])


# --- variants whose timings mean nothing (Triton's interpreter) and ranking ---------------


def _untimed(speedup: float | None, tightest: int = -5, vs_inductor: float | None = None):
    v = _variant(Status.OK, tightest, speedup, vs_inductor)
    return v.model_copy(update={"timing_meaningful": False})


def test_untimed_correct_variant_scores_neutral_speedup() -> None:
    """An interpreter speedup (0.001x) must not put a correct pass below an incorrect one."""
    correct = [_untimed(0.001, vs_inductor=0.01) for _ in range(3)]
    incorrect = [_variant(Status.INCORRECT) for _ in range(3)]
    good, bad = compute_scores(correct), compute_scores(incorrect)
    assert good.AS == approx(compute_scores([_variant(Status.OK, -5, 1.0)] * 3).AS)
    assert good.AS > 0.99 and bad.AS == pytest.approx(0.147, abs=5e-4)
    assert outcome_from_variant(correct[0]) == Outcome(1.0, -5, timed=False)
    assert good.fast_p == 0.0 and good.neutral_speedups == 3 and bad.neutral_speedups == 0
    assert good.gmean_speedup_correct is None and good.gmean_speedup_vs_inductor_correct is None
    assert fast_p([Outcome(1.0, -5, timed=False)], p=0.5) == 0.0  # never a hit, whatever p
    mixed = compute_scores([correct[0], _variant(Status.OK, -5, 2.0)])
    assert mixed.gmean_speedup_correct == approx(2.0) and mixed.fast_p == approx(0.5)
    assert mixed.neutral_speedups == 1
    assert suite_scores([correct, incorrect])["neutral_speedups"] == 3
    # an incorrect variant scores the same with or without meaningful timings
    wrong = _variant(Status.INCORRECT).model_copy(update={"timing_meaningful": False})
    assert compute_scores([wrong]).AS == approx(bad.AS)


def test_timing_meaningful_json_is_backward_compatible() -> None:
    old = {"graph": "g", "dtype": "float32", "status": "ok"}
    assert VariantResult.model_validate(old).timing_meaningful  # written before the field
    note = "CPU: Triton kernels run in Triton's interpreter (interpreter timings)"
    assert not VariantResult.model_validate(old | {"timing_note": note}).timing_meaningful
    assert VariantResult.model_validate(old | {"timing_note": note, "timing_meaningful": True})
    untimed = _untimed(0.5)
    assert VariantResult.model_validate_json(untimed.model_dump_json()) == untimed
    old_scores = {"AS": 1.0, "ES": {}, "S": {}, "fast_p": 0, "subgraph_correct_rate": 1,
                  "gmean_speedup_correct": None}  # fmt: skip
    assert Scores.model_validate(old_scores).neutral_speedups == 0


def test_rank_key_puts_correct_first() -> None:
    assert rank_key(True, 0.0004) > rank_key(False, 0.147) > rank_key(False, None)
    assert rank_key(True, 1.2) > rank_key(True, 0.9) > rank_key(True, None)
