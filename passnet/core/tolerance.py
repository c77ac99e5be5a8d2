"""Tolerance levels t and error classes (SPEC sections 5 and 6).

Lower t is stricter: t = -10 asks for almost bit-exact results, t = -5 is torch's default
``allclose`` tolerance for the dtype, t = 0 is rtol = atol = 1. Levels t >= 1 reuse the
correctness status of t = 1 and only change which failures are forgiven.
"""

from __future__ import annotations

import math
from enum import Enum

T_LEVELS: tuple[int, ...] = tuple(range(-10, 5))
"""Every tolerance level the scores are computed at, strictest first."""


class ErrorClass(str, Enum):
    """Why a subgraph failed; each class is forgiven (r = 1 in ES_t) from a tolerance level on."""

    ACCURACY = "accuracy"
    RUNTIME = "runtime"
    COMPILE = "compile"


TOLERATED_FROM: dict[ErrorClass, int] = {
    ErrorClass.ACCURACY: 1,
    ErrorClass.RUNTIME: 3,
    ErrorClass.COMPILE: 3,
}

# (e1, e2) per dtype, SPEC section 5: rtol = 10^(t*e1), atol = 10^(t*e2) for t <= 0.
_EXPONENTS: dict[str, tuple[float, float]] = {
    "float32": (5.886 / 5, 1.0),
    "float16": (3 / 5, 1.0),
    "bfloat16": (1.796 / 5, 1.0),
    "float64": (7 / 5, 7 / 5),
}


def _round_sig(x: float, digits: int = 3) -> float:
    if x == 0:
        return 0.0
    return round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))


def tolerance(dtype: str, t: int) -> tuple[float, float]:
    """(rtol, atol) of level ``t`` for a floating dtype name such as ``"float16"``.

    Non-float dtypes (integers, bool) compare exactly at every level. Levels above 0 use the
    t = 0 tolerance: their correctness status is that of t = 1, which equals t = 0's.
    """
    name = dtype.removeprefix("torch.")
    if name not in _EXPONENTS:
        return (0.0, 0.0)
    e1, e2 = _EXPONENTS[name]
    level = min(t, 0)
    return (_round_sig(10 ** (level * e1)), _round_sig(10 ** (level * e2)))


def correct_at(t: int, tightest_passing_t: int | None) -> bool:
    """Whether a subgraph whose strictest passing level is ``tightest_passing_t`` is correct at t.

    ``None`` means it passed no level (or failed before comparison). Levels above 1 take
    the status of t = 1 (SPEC section 5).
    """
    if tightest_passing_t is None:
        return False
    return min(t, 1) >= tightest_passing_t
