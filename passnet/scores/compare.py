"""Compare candidate outputs with the reference at every tolerance level (SPEC section 5).

The comparison is strict about structure: the number of outputs, each output's dtype and
shape (upstream forgot shapes), and NaN/Inf that the reference does not have are runtime
failures, not accuracy failures. Only then is ``allclose`` swept over t = -10..0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from passnet.core.results import Comparison
from passnet.core.tolerance import T_LEVELS, tolerance
from passnet.core.trees import dict_keys, leaves


@dataclass
class StructureError(Exception):
    """The candidate's outputs cannot be compared value by value (a runtime-class failure)."""

    reason: str

    def __str__(self) -> str:
        return self.reason


def _check_structure(index: int, cand: Any, ref: Any) -> None:
    if isinstance(ref, torch.Tensor):
        if type(cand) is not torch.Tensor and not (
            isinstance(cand, torch.Tensor) and type(ref) is type(cand)
        ):
            raise StructureError(
                f"output {index}: expected a plain torch.Tensor, got {type(cand).__name__}"
            )
        if cand.dtype != ref.dtype:
            raise StructureError(f"output {index}: dtype {cand.dtype} != reference {ref.dtype}")
        if tuple(cand.shape) != tuple(ref.shape):
            raise StructureError(
                f"output {index}: shape {tuple(cand.shape)} != reference {tuple(ref.shape)}"
            )
        if cand.device != ref.device:
            raise StructureError(f"output {index}: device {cand.device} != reference {ref.device}")
        if cand.is_floating_point() or cand.is_complex():
            bad_c = ~torch.isfinite(cand)
            bad_r = ~torch.isfinite(ref)
            extra = bad_c & ~bad_r
            if bool(extra.any()):
                n = int(extra.sum())
                raise StructureError(
                    f"output {index}: {n} NaN/Inf value(s) where the reference is finite"
                )
    elif isinstance(cand, torch.Tensor):
        raise StructureError(f"output {index}: expected {type(ref).__name__}, got a tensor")


def _passes(cand: Any, ref: Any, t: int) -> bool:
    if not isinstance(ref, torch.Tensor):
        return bool(cand == ref)
    rtol, atol = tolerance(str(ref.dtype), t)
    if not ref.is_floating_point():
        return bool(torch.equal(cand, ref))
    return bool(torch.allclose(cand, ref, rtol=rtol, atol=atol, equal_nan=True))


def worst_location(pairs: Sequence[tuple[Any, Any]], t: int) -> tuple[int, int] | None:
    """(output, flat index) of the element that fails level ``t`` by most (its excess over
    ``atol + rtol * |ref|``); None when every output passes ``t``. Only floating outputs are
    located."""
    best: tuple[float, int, int] | None = None
    for i, (cand, ref) in enumerate(pairs):
        if not isinstance(ref, torch.Tensor) or not ref.is_floating_point() or ref.numel() == 0:
            continue
        rtol, atol = tolerance(str(ref.dtype), t)
        c = cand.detach().to(torch.float64)
        r = ref.detach().to(torch.float64)
        diff = (c - r).abs()
        excess = torch.where(torch.isfinite(diff), diff - (atol + rtol * r.abs()),
                             torch.zeros_like(diff))  # fmt: skip
        k = int(excess.argmax())
        most = float(excess.flatten()[k])
        if most > 0 and (best is None or most > best[0]):
            best = (most, i, k)
    return None if best is None else (best[1], best[2])


def worst_element(pairs: Sequence[tuple[Any, Any]], t: int) -> str:
    """The element :func:`worst_location` finds, as ``at t = -5: output 1 [0, 3, 17]: -0.01234
    vs -0.01233 (|d| 1.2e-05 > 1.0e-05)``; empty when every output passes ``t``."""
    loc = worst_location(pairs, t)
    if loc is None:
        return ""
    i, k = loc
    cand, ref = pairs[i]
    rtol, atol = tolerance(str(ref.dtype), t)
    cv, rv = float(cand.detach().flatten()[k].double()), float(ref.detach().flatten()[k].double())
    where = _unravel(k, tuple(ref.shape))
    return (f"at t = {t}: output {i} {where}: {cv:.6g} vs reference {rv:.6g} "
            f"(|d| {abs(cv - rv):.2g} > {atol + rtol * abs(rv):.2g})")  # fmt: skip


def _unravel(k: int, shape: tuple[int, ...]) -> list[int]:
    """The coordinates of flat (row-major) index ``k``: ``torch.unravel_index`` imports
    sympy on first use, in a fresh worker's correctness phase (docs/results/cpu-2026-12-05.md)."""
    where = []
    for size in reversed(shape):
        k, r = divmod(k, size)
        where.append(r)
    return where[::-1]


def _diffs(pairs: Sequence[tuple[Any, Any]]) -> tuple[float | None, float | None]:
    max_abs: float | None = None
    max_rel: float | None = None
    for cand, ref in pairs:
        if not isinstance(ref, torch.Tensor) or ref.numel() == 0:
            continue
        c = cand.detach().to(torch.float64)
        r = ref.detach().to(torch.float64)
        finite = torch.isfinite(c) & torch.isfinite(r)
        if not bool(finite.any()):
            continue
        diff = (c - r).abs()[finite]
        rel = diff / r.abs()[finite].clamp_min(torch.finfo(torch.float64).tiny)
        a, b = float(diff.max()), float(rel.max())
        max_abs = a if max_abs is None else max(max_abs, a)
        max_rel = b if max_rel is None else max(max_rel, b)
    return max_abs, max_rel


def compare_outputs(candidate: Any, reference: Any) -> Comparison:
    """Sweep the tolerance levels; raises StructureError for runtime-class mismatches."""
    if dict_keys(candidate) != dict_keys(reference):
        raise StructureError(
            f"output keys {dict_keys(candidate)} != reference's {dict_keys(reference)}"
        )
    cands, refs = leaves(candidate), leaves(reference)
    if len(cands) != len(refs):
        raise StructureError(f"{len(cands)} outputs != reference's {len(refs)}")
    pairs = list(zip(cands, refs, strict=True))
    for i, (c, r) in enumerate(pairs):
        _check_structure(i, c, r)
    tightest: int | None = None
    # Levels are nested (a looser level accepts whatever a stricter one does), so walk from
    # the loosest (t = 0) towards the strictest and stop at the first failure.
    for t in sorted((t for t in T_LEVELS if t <= 0), reverse=True):
        if all(_passes(c, r, t) for c, r in pairs):
            tightest = t
        else:
            break
    max_abs, max_rel = _diffs(pairs)
    detail = ""
    if tightest is None:
        detail = "allclose fails even at t = 0 (rtol = atol = 1)"
    first_fail = 0 if tightest is None else tightest - 1  # the strictest level missed
    if first_fail >= min(T_LEVELS):  # where it fails, so the author can find the cause
        worst = worst_element(pairs, first_fail)
        if worst:
            detail = f"{detail}; {worst}" if detail else worst
    return Comparison(
        tightest_passing_t=tightest, max_abs_diff=max_abs, max_rel_diff=max_rel, detail=detail
    )
