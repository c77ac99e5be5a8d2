"""Fresh values for every timed call (passnet.integrity.timed_values): nothing about the input
tensors tells a pass that their values changed, and no two calls in a row get the same set."""

from __future__ import annotations

import pytest
import torch

from passnet.core.tolerance import tolerance
from passnet.integrity import timed_values
from passnet.integrity.timed_values import (
    Feed,
    ValueBank,
    bank_size,
    matches,
    matches_many,
    write_values,
)


def test_values_change_but_identity_storage_and_version_do_not() -> None:
    x, n = torch.zeros(2, 3)[:, 1:], 7  # a strided view: written through its own strides
    before = (id(x), x.data_ptr(), x._version, x.stride())
    write_values([x, n], [torch.ones(2, 2), 7])
    assert torch.equal(x, torch.ones(2, 2))
    assert (id(x), x.data_ptr(), x._version, x.stride()) == before


def test_a_feed_never_repeats_the_previous_set_and_tracks_the_expected_outputs() -> None:
    seeds: list[int] = []

    def draw(seed: int) -> list:
        seeds.append(seed)
        return [torch.full((4,), float(len(seeds)))]

    bank = ValueBank(draw, lambda t: t * 2, size=3)
    assert len(bank) == 3 and len(set(seeds)) == 3  # secret seeds, one per set
    x = torch.zeros(4)
    feed = Feed(bank, [x])
    picks, version = [], x._version
    for _ in range(1200):  # past a few refills of the steps drawn ahead
        feed()
        picks.append(feed.current)
        assert torch.equal(x, bank.values[feed.current][0])
        assert torch.equal(feed.expected, x * 2)
    assert all(a != b for a, b in zip(picks, picks[1:], strict=False))
    assert all(300 < picks.count(k) < 500 for k in range(3)) and x._version == version


def test_matches_is_the_level_check_with_the_structure_intact() -> None:
    ref = (torch.tensor([1.0, 2.0]), torch.tensor([3, 4]))
    assert matches((ref[0] + 1e-9, ref[1].clone()), ref, -5)
    assert not matches((ref[0] + 1e-3, ref[1]), ref, -5) and matches(
        (ref[0] + 1e-3, ref[1]), ref, 0
    )
    assert not matches((ref[0].double(), ref[1]), ref, 0)  # dtype
    assert not matches((ref[0],), ref, 0)  # count
    assert not matches((torch.tensor([1.0, float("nan")]), ref[1]), ref, 0)  # NaN where finite
    assert not matches((ref[0], torch.tensor([3, 5])), ref, 0)  # integers exactly


def test_matches_many_agrees_with_matches_pair_by_pair() -> None:
    """The held calls' comparison in one go gives each pair the verdict ``matches`` would."""
    ref = (torch.tensor([1.0, 2.0]), torch.tensor([3, 4]))
    nan = torch.tensor([float("nan"), 2.0])
    pairs = [
        ((ref[0] + 1e-9, ref[1].clone()), ref),  # close
        ((ref[0] + 1e-3, ref[1]), ref),  # too far at -5
        ((ref[0].double(), ref[1]), ref),  # dtype
        ((ref[0],), ref),  # count
        ((torch.tensor([1.0, float("nan")]), ref[1]), ref),  # NaN where finite
        ((ref[0], torch.tensor([3, 5])), ref),  # integers exactly
        ((nan.clone(), 7), (nan, 7)),  # NaN where the reference has it; equal non-tensors
        ((nan.clone(), 8), (nan, 7)),  # a non-tensor leaf that differs
        ((ref[0][:1], ref[1]), ref),  # shape
    ]
    want = [matches(out, exp, -5) for out, exp in pairs]
    assert want == [True, False, False, False, False, False, True, False, False]
    assert matches_many(pairs, -5) == want
    assert matches_many([], -5) == []


def _one_by_one(out: tuple, expected: tuple, level: int) -> bool:
    """What ``matches`` means, written pair by pair with no stacking."""
    for c, r in zip(out, expected, strict=True):
        if c.dtype != r.dtype or c.shape != r.shape:
            return False
        if r.is_floating_point():
            rtol, atol = tolerance(str(r.dtype), level)
            if not torch.isclose(c, r, rtol=rtol, atol=atol, equal_nan=True).all():
                return False
        elif not torch.equal(c, r):
            return False
    return True


@pytest.mark.parametrize("stack_bytes, alone", [(1 << 26, 1 << 20), (64, 1 << 20), (1 << 26, 16)])
def test_stacked_comparison_gives_each_pair_its_own_verdict(
    monkeypatch: pytest.MonkeyPatch, stack_bytes: int, alone: int
) -> None:
    """Held calls of one shape are compared in stacks (in chunks, or alone where large): each
    pair still gets the verdict of its own comparison, whatever its neighbours in the stack."""
    monkeypatch.setattr(timed_values, "STACK_BYTES", stack_bytes)
    monkeypatch.setattr(timed_values, "STACK_ALONE", {"cuda": alone, "cpu": alone})
    gen = torch.Generator().manual_seed(0)
    shapes = [(3, 5), (), (0, 4), (7,)]
    pairs, want = [], []
    for k in range(60):
        shape = shapes[k % len(shapes)]
        ref = (torch.randn(shape, generator=gen), torch.randint(0, 9, (2,), generator=gen),
               torch.randn(shape, generator=gen).half())  # fmt: skip
        out = [t.clone() for t in ref]
        kind = k % 5
        if kind == 1 and out[0].numel():
            out[0].view(-1)[0] += 1e-2  # too far at -5
        elif kind == 2:
            out[1][1] += 1  # integers exactly
        elif kind == 3 and out[2].numel():
            out[2].view(-1)[-1] = float("nan")  # NaN where the reference is finite
        elif kind == 4 and ref[0].numel():
            ref[0].view(-1)[0] = float("nan")  # NaN where the reference has it: fine
            out[0].view(-1)[0] = float("nan")
        pairs.append((tuple(out), ref))
        want.append(_one_by_one(tuple(out), ref, -5))
    assert want.count(True) not in (0, len(want))
    assert matches_many(pairs, -5) == want


def test_the_bank_fits_a_budget_but_holds_at_least_two_sets() -> None:
    small, huge = [torch.empty(16)], [torch.empty(1 << 20)]
    assert bank_size(small, small, torch.device("cpu")) == 8
    assert bank_size(huge * 100, huge, torch.device("cpu")) == 2


def test_timed_calls_that_round_differently_keep_the_trials_level(tmp_path) -> None:  # noqa: ANN001
    """A kernel whose timed calls pass a level or so looser than its correctness trials (as other
    values do to half precision): accepted, reported as the non-fatal ``timed-drift``, and the
    score keeps the trials' level, so checking every timed call does not lower honest scores."""
    from pathlib import Path

    from helpers.integrity import FAST, bert_variant, evaluate_jobs

    from passnet.core.results import Status

    folder = Path(__file__).parent / "passes" / "timed_drift"
    (v,) = evaluate_jobs({"drift": (folder, bert_variant(tmp_path / "rows12"))}, "cpu",
                         FAST).values()  # fmt: skip
    drift = [f for f in v.integrity if f.check == "timed-drift"]
    assert v.status == Status.OK, v.error
    assert drift and not drift[0].fatal, [f.check for f in v.integrity]
    assert v.comparison is not None and v.comparison.tightest_passing_t == -6
    assert "the correctness trials: t = -6" in drift[0].detail


def test_held_outputs_are_checked_with_what_their_call_got_at_capacity_or_settle() -> None:
    from passnet.integrity.timed_values import Held, hold_count, storages

    seen: list[tuple] = []
    held = Held(3, lambda items: seen.append(tuple(items)))
    for k in range(4):
        held.keep(f"out{k}", k)
    assert seen == [(("out0", 0), ("out1", 1), ("out2", 2))]  # the third filled it: one check
    held.settle()
    assert seen[-1] == (("out3", 3),) and held.items == []
    held.settle()
    assert len(seen) == 2  # nothing held: no check
    x = torch.ones(4, 8)
    assert hold_count([x], 25, torch.device("cpu")) == 25
    assert hold_count([torch.empty(1 << 27)], 25, torch.device("cpu")) == 1  # 512 MB: at once
    assert storages([x.t(), x[1:]]) == storages(x) and not storages([torch.empty(0)])


def test_outputs_over_an_input_are_held_as_copies_and_the_rest_as_they_are() -> None:
    from passnet.integrity.timed_values import copy_shared, storages

    x, y = torch.arange(6.0).reshape(2, 3), torch.ones(3)
    fresh = y * 2
    out = (x.t(), {"a": [fresh, x[1:]]}, 7)
    held = copy_shared(out, storages([x]))
    write_values([x], [torch.zeros(2, 3)])  # the next call's values over the input
    assert torch.equal(held[0], torch.arange(6.0).reshape(2, 3).t())
    assert torch.equal(held[1]["a"][1], torch.tensor([[3.0, 4.0, 5.0]]))
    assert held[1]["a"][0] is fresh and held[2] == 7  # not over an input: the same object
    assert not storages(held) & storages([x])
