"""The suite's curation rule (passnet.dataset.curation) on given per-task measures, and the
work check on real samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from passnet.dataset.curation import (
    CurationError,
    TaskMeasure,
    choose_suite,
    eager_work,
    longtail_share,
    weakness,
)


def _m(name: str, fams: str, speedups: tuple[float, ...], *, failed: int = 0,
       eager_ok: int | None = None, working: bool = True) -> TaskMeasure:  # fmt: skip
    families = tuple(fams.split(","))
    n = len(speedups) + failed
    families = (families * n)[:n] if len(families) < n else families
    return TaskMeasure(name, families, n, speedups, n if eager_ok is None else eager_ok, working)


def test_ranking_puts_inductor_failures_then_the_weakest_first() -> None:
    ms = [_m("fast", "a", (2.0, 2.0)), _m("fails", "a", (3.0,), failed=1),
          _m("slow", "a", (0.5, 0.8)), _m("even", "a", (1.0, 1.0))]  # fmt: skip
    assert [m.name for m in sorted(ms, key=weakness)] == ["fails", "slow", "even", "fast"]
    assert ms[2].gmean == pytest.approx((0.5 * 0.8) ** 0.5)
    assert [m.inductor_loses for m in ms] == [False, True, True, True]
    assert longtail_share(ms) == (3, 4)


def test_coverage_first_then_the_weakest_with_a_family_cap() -> None:
    ms = [
        _m("a1", "a", (0.3,)), _m("a2", "a", (0.4,)), _m("a3", "a", (0.5,)),
        _m("b1", "b", (0.6,)), _m("c1", "c", (1.9,)), _m("ab", "a,b", (0.45, 0.45)),
    ]  # fmt: skip
    # coverage: a1 (a), ab (b), c1 (c: the only task of its family, strong Inductor or not);
    # then the weakest left, but a2 and a3 would make three of main family a
    got = choose_suite(ms, n=4, per_family=2, min_families=3)
    assert [m.name for m in got] == ["a1", "ab", "b1", "c1"]
    got = choose_suite(ms, n=5, per_family=3, min_families=1)
    assert [m.name for m in got] == ["a1", "a2", "ab", "b1", "c1"]
    assert ms[5].main_family == "a"  # a tie between families goes to the first name


def test_tasks_that_cannot_be_timed_honestly_are_not_eligible() -> None:
    ms = [
        _m("broken_eager", "a", (0.1, 0.2), eager_ok=1),
        _m("views_only", "b", (0.2,), working=False),
        _m("never_measured", "c", ()),
        _m("fine", "d", (0.9,)),
    ]  # fmt: skip
    assert [m.name for m in choose_suite(ms, n=1, min_families=1)] == ["fine"]
    with pytest.raises(CurationError, match="1 eligible tasks give 1 of the 2"):
        choose_suite(ms, n=2, min_families=1)
    with pytest.raises(CurationError, match="covering 1 of the 2 model families"):
        choose_suite(ms, n=1, min_families=2)
    with pytest.raises(ValueError):
        choose_suite(ms, n=0)


def _write(tmp: Path, stride: list[int] | None) -> Path:
    from passnet.graph.sample import TensorMeta, write_sample

    code = (
        "import torch\n\n\nclass GraphModule(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        y = x.contiguous()\n"
        "        z = y.reshape(12)\n"
        "        return (z,)\n"
    )
    meta = TensorMeta(name="x", shape=[3, 4], dtype="torch.float32", mean=0.0, std=1.0,
                      stride=stride)  # fmt: skip
    return write_sample(tmp / f"s{stride}", code, [meta], {}).path


def test_eager_work_tells_a_view_chain_from_a_copy(tmp_path: Path) -> None:
    """``contiguous, reshape``: nothing to do on a contiguous input (the bundled suite's
    fusible_contiguous_reshape task timed an empty call), a copy on a transposed one."""
    assert eager_work(_write(tmp_path, None)) == 0
    assert eager_work(_write(tmp_path, [1, 3])) == 1
    fixture = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
    samples = sorted(p.parent for p in fixture.rglob("model.py"))[:1]
    if not samples:
        pytest.skip("GraphNet fixtures not found beside the checkout (../shared/fixtures)")
    assert eager_work(samples[0]) > 0
