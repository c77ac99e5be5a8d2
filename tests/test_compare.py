"""Output comparison: structure checks first, then the tolerance sweep of SPEC section 5."""

import pytest
import torch

from passnet.core.tolerance import tolerance
from passnet.scores.compare import StructureError, compare_outputs


def test_identical_outputs_pass_every_level() -> None:
    x = torch.randn(16, 16)
    c = compare_outputs((x.clone(),), (x,))
    assert c.tightest_passing_t == -10
    assert c.max_abs_diff == 0.0


def test_tolerance_levels_match_torch_defaults_at_minus_five() -> None:
    assert tolerance("float32", -5) == (1.3e-6, 1e-5)
    assert tolerance("float16", -5) == (1e-3, 1e-5)
    assert tolerance("bfloat16", -5) == (1.6e-2, 1e-5)
    assert tolerance("torch.float32", 0) == (1.0, 1.0)
    assert tolerance("float32", 3) == (1.0, 1.0)


@pytest.mark.parametrize("rel", [1e-7, 1e-5, 1e-3, 0.5])
def test_tightest_level_follows_the_error_size(rel: float) -> None:
    ref = torch.rand(1000, dtype=torch.float64).to(torch.float32) + 1.0
    cand = ref * (1 + rel)
    t = compare_outputs(cand, ref).tightest_passing_t
    assert t is not None
    rtol, atol = tolerance("float32", t)
    assert torch.allclose(cand, ref, rtol=rtol, atol=atol)
    if t > -10:
        rtol, atol = tolerance("float32", t - 1)
        assert not torch.allclose(cand, ref, rtol=rtol, atol=atol)


def test_far_off_fails_every_level() -> None:
    ref = torch.ones(8)
    c = compare_outputs(ref * 10, ref)
    assert c.tightest_passing_t is None and c.detail
    assert c.max_abs_diff == pytest.approx(9.0)


@pytest.mark.parametrize(
    ("cand", "ref", "reason"),
    [
        (torch.ones(4, dtype=torch.float16), torch.ones(4), "dtype"),
        (torch.ones(2, 2), torch.ones(4), "shape"),
        ((torch.ones(4), torch.ones(4)), (torch.ones(4),), "outputs"),
        (torch.tensor([1.0, float("nan")]), torch.tensor([1.0, 2.0]), "NaN"),
        (3, torch.ones(1), "plain torch.Tensor"),
    ],
)
def test_structure_mismatches_are_runtime_class(cand, ref, reason: str) -> None:  # noqa: ANN001
    with pytest.raises(StructureError, match=reason):
        compare_outputs(cand, ref)


def test_nan_where_reference_has_nan_is_fine() -> None:
    ref = torch.tensor([1.0, float("nan")])
    assert compare_outputs(ref.clone(), ref).tightest_passing_t == -10


def test_integer_outputs_compare_exactly() -> None:
    ref = torch.arange(10)
    assert compare_outputs(ref.clone(), ref).tightest_passing_t == -10
    assert compare_outputs(ref + 1, ref).tightest_passing_t is None


def test_subclass_output_is_rejected() -> None:
    class Lazy(torch.Tensor):
        pass

    ref = torch.ones(3)
    with pytest.raises(StructureError, match="plain"):
        compare_outputs(ref.as_subclass(Lazy), ref)


def test_dict_outputs_compare_per_tensor_and_by_keys() -> None:
    ref = {"a": torch.ones(3), "b": (torch.zeros(2), torch.arange(4))}
    same = {"a": torch.ones(3), "b": (torch.zeros(2), torch.arange(4))}
    assert compare_outputs(same, ref).tightest_passing_t == -10
    off = {"a": torch.ones(3) * 10, "b": (torch.zeros(2), torch.arange(4))}
    assert compare_outputs(off, ref).tightest_passing_t is None
    with pytest.raises(StructureError, match="keys"):
        compare_outputs({"x": torch.ones(3), "b": ref["b"]}, ref)


def test_detail_locates_the_worst_element_of_the_first_failing_level() -> None:
    """A comparison correct only at looser levels says where the next stricter one fails:
    which output, which element, both values and the margin (what an author needs)."""
    ref = torch.ones(4, 8, dtype=torch.float16)
    cand = ref.clone()
    cand[2, 5] = 1.0 + 4 * 2**-10  # four float16 ulps off at one element
    c = compare_outputs((torch.zeros(3), cand), (torch.zeros(3), ref))
    assert c.tightest_passing_t is not None and c.tightest_passing_t > -10
    assert c.detail.startswith(f"at t = {c.tightest_passing_t - 1}: output 1 [2, 5]: 1.00391")
    assert "vs reference 1 " in c.detail
    assert compare_outputs(ref.clone(), ref).detail == ""  # passes every level: nothing to say
    far = compare_outputs(torch.full((2,), 5.0), torch.ones(2))
    assert (
        far.detail.startswith("allclose fails even at t = 0")
        and "at t = 0: output 0 [0]" in far.detail
    )
    scalar = compare_outputs(torch.tensor(2.0), torch.tensor(1.0))
    assert "output 0 []: 2 vs reference 1" in scalar.detail


def test_locating_an_element_costs_a_fresh_worker_no_sympy_import() -> None:
    """A worker's first correctness trial locates elements (the null-output check does so on
    every variant): ``torch.unravel_index`` would import sympy there, the
    longest step of a fresh eager worker's correctness phase. The coordinates are computed without it, on non-contiguous outputs too."""
    import subprocess
    import sys

    code = (
        "import sys, torch\n"
        "from passnet.scores.compare import compare_outputs\n"
        "ref = torch.ones(3, 4, 5).transpose(0, 2)\n"
        "cand = ref.clone(); cand[4, 2, 1] = 2.0\n"
        "print(compare_outputs(cand, ref).detail.split(':')[1], 'sympy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()  # fmt: skip
    assert out == ["output", "0", "[4,", "2,", "1]", "False"]
