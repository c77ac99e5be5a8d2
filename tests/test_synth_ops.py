"""Ops the synthesizer maps onto ones it lowers already (passnet.synth.ops)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from helpers.synth import fused

from passnet.scores.compare import compare_outputs
from passnet.synth.driver import STRICT_T
from passnet.synth.graph import Group, select, select_all, trace_graph
from passnet.synth.ops import classify

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


class ReluPool(torch.nn.Module):
    def __init__(self, size: object) -> None:
        super().__init__()
        self.size = size

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> tuple:
        h = torch.relu(x + r)
        return h, F.adaptive_avg_pool2d(h, self.size)


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_global_average_pool_is_the_mean_eager_computes(
    tmp_path: Path, dtype: torch.dtype
) -> None:
    """``adaptive_avg_pool2d(x, 1)`` is ``x.mean((-1, -2), keepdim=True)`` in eager (ATen's
    shortcut): fused into the add + relu kernel, which stores both outputs; other output
    sizes stay unsupported, with that reason."""
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(2, 6, 5, 7, generator=g).to(dtype) for _ in range(2)]
    ops, out, want = fused(tmp_path, ReluPool((1, 1)), args)
    assert ops == ["add", "relu", "adaptive_avg_pool2d", "->", "2"]
    cmp = compare_outputs(list(out), list(want))
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp
    other = select(trace_graph(ReluPool(2), args))
    assert isinstance(other, Group) and [op.name for op in other.ops.values()] == ["add", "relu"]
    pool = next(n for n in trace_graph(ReluPool(2), args).gm.graph.nodes
                if n.target is F.adaptive_avg_pool2d)  # fmt: skip
    assert classify(pool, lambda n: 4) == "adaptive_avg_pool2d to other than 1 x 1"


class EdgeMessage(torch.nn.Module):
    """A graph network's message: node features gathered at both ends of each edge."""

    def forward(self, x: torch.Tensor, src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
        return torch.relu(x.index_select(-2, dst) - x.index_select(0, src)) * 0.5


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_index_select_gathers_inside_the_kernel(tmp_path: Path) -> None:
    """``index_select`` reads the source at the index's values (an integer input, never
    rounded): both gathers, the difference and the activation are one kernel, exact."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(9, 12, generator=g, dtype=torch.float32).to(torch.bfloat16)
    src, dst = (torch.randint(0, 9, (20,), generator=g) for _ in range(2))
    ops, out, want = fused(tmp_path, EdgeMessage(), [x, src, dst])
    assert ops == ["index_select", "index_select", "sub", "relu", "mul", "->", "1"]
    torch.testing.assert_close(out, want, rtol=0, atol=0)


class BnReluPool(torch.nn.Module):
    def __init__(self, *window: object, ceil_mode: bool = False) -> None:
        super().__init__()
        self.window, self.ceil_mode = window, ceil_mode

    def forward(self, x: torch.Tensor, m: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        h = torch.relu(F.batch_norm(x, m, v, None, None, False, 0.1, 1e-5) + 0.25)
        return F.max_pool2d(h, *self.window, ceil_mode=self.ceil_mode)


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize(("window", "ceil_mode"), [
    ((3, 2, 1), False),  # ResNet's stem: padded, strided
    ((2, 2, 0), True),  # the last window hangs over the edge (11 columns)
    ((3, 1, 1, 2), False),  # dilated
])  # fmt: skip
def test_max_pool2d_takes_the_window_max_of_the_fused_values(tmp_path: Path, window: tuple,
                                                             ceil_mode: bool) -> None:  # fmt: skip
    """Each window's taps computed by the kernel (clamped into bounds, padding as -inf) and
    compared: bit-exact, NaN propagated as eager propagates it, no relu tensor written."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 9, 11, generator=g).to(torch.bfloat16)
    x[1, 2, 4, 5] = float("nan")
    m, v = torch.randn(3, generator=g), torch.rand(3, generator=g) + 0.5
    ops, out, want = fused(tmp_path, BnReluPool(*window, ceil_mode=ceil_mode), [x, m, v])
    assert ops == ["batch_norm", "add", "relu", "max_pool2d", "->", "1"]  # no relu written
    assert out.isnan().sum() >= 1
    torch.testing.assert_close(out, want, rtol=0, atol=0, equal_nan=True)


class Upsample(torch.nn.Module):
    def __init__(self, size: tuple[int, int], align_corners: bool) -> None:
        super().__init__()
        self.size, self.align_corners = size, align_corners

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return F.interpolate(torch.relu(x + r), size=self.size, mode="bilinear",
                             align_corners=self.align_corners)  # fmt: skip


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize(("size", "align_corners"), [((16, 24), False), ((5, 7), False),
                                                     ((13, 1), True)])  # fmt: skip
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_bilinear_interpolate_weighs_four_taps_as_eager(tmp_path: Path, size: tuple,
                                                        align_corners: bool,
                                                        dtype: torch.dtype) -> None:  # fmt: skip
    """Up and down, both corner conventions: the taps and weights eager's kernel uses (in
    float32, then one rounding), bit-exact in bfloat16 and within the strict level in float32
    (CPU eager sums in another order)."""
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(2, 3, 8, 9, generator=g).to(dtype) for _ in range(2)]
    ops, out, want = fused(tmp_path, Upsample(size, align_corners), args)
    assert ops == ["add", "relu", "interpolate", "->", "1"]
    if dtype == torch.bfloat16:
        torch.testing.assert_close(out, want, rtol=0, atol=0)
    assert compare_outputs([out], [want]).tightest_passing_t <= STRICT_T


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_interpolate_to_the_inputs_own_size_is_its_value(tmp_path: Path) -> None:
    """Eager's CUDA kernel copies an input that has the size asked for: the kernel takes the
    value as it is (on CPU eager weighs the taps 1 and 0, the same on finite values)."""
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(2, 3, 8, 9, generator=g).to(torch.bfloat16) for _ in range(2)]
    ops, out, want = fused(tmp_path, Upsample((8, 9), False), args)
    assert ops == ["add", "relu", "interpolate", "->", "1"]
    torch.testing.assert_close(out, want, rtol=0, atol=0)


class TwoResizes(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.interpolate(torch.relu(x), size=(6, 6), mode="bilinear", align_corners=False)
        return F.max_pool2d(h + 1.0, 2)


def test_a_window_over_a_window_is_split_into_groups() -> None:
    """A pool of a resize would compute 4 x 4 taps per output: the kernel stops before the
    pool (left to eager, alone it is no group), each kernel one window deep."""
    groups = select_all(trace_graph(TwoResizes(), [torch.randn(1, 2, 4, 4)]))
    assert isinstance(groups, list), groups
    assert [[op.name for op in g.ops.values()] for g in groups] == [["relu", "interpolate", "add"]]


class ChannelSoftmax(torch.nn.Module):
    """Attention over channels: a softmax over dim 1 of a 4-D tensor, not its last dim."""

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x * 0.5 + r, dim=1)


class MaskedMeanPool(torch.nn.Module):
    """MoLFormer's pooling: hidden states summed over the sequence where the mask is set,
    divided by the mask's count (both reductions over dim 1 of (batch, seq, hidden))."""

    def forward(self, h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        m = mask.unsqueeze(-1).expand(h.shape).to(h.dtype)
        return torch.sum(h * m, 1) / torch.clamp(m.sum(1), min=1e-9)


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_reductions_over_a_middle_dim_walk_that_dim_as_the_row(
    tmp_path: Path, dtype: torch.dtype
) -> None:
    """softmax, sum and mean over dim 1 (not the last): the kernel walks the reduced dim as
    its row with a stride, the other dims as rows; one kernel, within the strict level
    (eager reduces in another order), and a masked-out row stays exact zero."""
    g = torch.Generator().manual_seed(0)
    x, r = (torch.randn(2, 7, 5, 6, generator=g).to(dtype) for _ in range(2))
    (tmp_path / "softmax").mkdir()
    ops, out, want = fused(tmp_path / "softmax", ChannelSoftmax(), [x, r])
    assert ops == ["mul", "add", "softmax", "->", "1"]
    cmp = compare_outputs([out], [want])
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp
    torch.testing.assert_close(out.float().sum(1), torch.ones(2, 5, 6), rtol=0, atol=2e-2)

    h = torch.randn(3, 11, 16, generator=g).to(dtype)
    mask = (torch.rand(3, 11, generator=g) > 0.3).long()
    mask[2] = 0  # a sequence with no token: 0 / 1e-9 = 0, not NaN
    (tmp_path / "pool").mkdir()
    ops, out, want = fused(tmp_path / "pool", MaskedMeanPool(), [h, mask])
    assert ops == ["mul", "sum", "sum", "clamp", "div", "->", "1"]  # mask views folded in
    cmp = compare_outputs([out], [want])
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp
    assert torch.equal(out[2], torch.zeros_like(out[2]))


class Normalize(torch.nn.Module):
    def __init__(self, p: int, dim: int) -> None:
        super().__init__()
        self.p, self.dim = p, dim

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return F.normalize(x * r + 1.0, p=self.p, dim=self.dim)


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize(("p", "dim"), [(1, 1), (2, -1), (2, 1)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_normalize_is_one_row_op(tmp_path: Path, p: int, dim: int, dtype: torch.dtype) -> None:
    """``F.normalize`` (eager: the norm, its clamp and the division, three kernels) fused with
    the ops before it, L1 and L2, over the last dim or a middle one; the norm rounded to the
    dtype as eager rounds it, so half precision is bit-exact; a zero row gives what eager
    gives (0 in float32, NaN in float16: eps rounds to 0 there, and 0 / 0)."""
    g = torch.Generator().manual_seed(0)
    x, r = (torch.randn(2, 7, 9, generator=g).to(dtype) for _ in range(2))
    x[1, :, 4], r[1, :, 4] = -1.0, 1.0  # x * r + 1 = 0 along dim 1: a zero row for dim=1
    ops, out, want = fused(tmp_path, Normalize(p, dim), [x, r])
    assert ops == ["mul", "add", "normalize", "->", "1"]
    cmp = compare_outputs([out], [want])
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp
    if dtype == torch.float16:
        torch.testing.assert_close(out, want, rtol=0, atol=0, equal_nan=True)
    assert torch.equal(out.isnan(), want.isnan())
    assert bool(want.isnan().any()) == (dtype == torch.float16 and dim == 1)


class PreluScale(torch.nn.Module):
    def forward(self, x: torch.Tensor, w: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        return torch.prelu(x, w) * s + 0.5


class PreluGroupNorm(torch.nn.Module):
    """Conv-TasNet's mask generator: PReLU, then a group norm with one group for all."""

    def forward(self, x: torch.Tensor, w: torch.Tensor, gw: torch.Tensor,
                gb: torch.Tensor) -> torch.Tensor:  # fmt: skip
        return F.group_norm(torch.prelu(x, w), 1, gw, gb, 1e-8)


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize("slopes", [1, 6])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_prelu_takes_one_slope_or_one_per_channel(tmp_path: Path, slopes: int,
                                                  dtype: torch.dtype) -> None:  # fmt: skip
    """``prelu`` with a single slope or one per channel (dim 1) is one more pointwise op of
    the kernel, bit-exact, NaN kept."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 6, 13, generator=g).to(dtype)
    x[0, 2, 3] = float("nan")
    w, s = torch.rand(slopes, generator=g).to(dtype), torch.randn(13, generator=g).to(dtype)
    ops, out, want = fused(tmp_path, PreluScale(), [x, w, s])
    assert ops == ["prelu", "mul", "add", "->", "1"]
    torch.testing.assert_close(out, want, rtol=0, atol=0, equal_nan=True)


class GroupNormSilu(torch.nn.Module):
    """A diffusion UNet's block: group norm over several channels per group, then silu."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return F.silu(F.group_norm(x * 2.0, self.groups, w, b, 1e-5))


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize(("shape", "groups"), [((2, 6, 5, 7), 2), ((2, 8, 3, 4, 5), 4),
                                               ((2, 6, 13), 3), ((2, 6, 5, 7), 6)])  # fmt: skip
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_group_norm_walks_each_group_as_one_row(tmp_path: Path, shape: tuple, groups: int,
                                                  dtype: torch.dtype) -> None:  # fmt: skip
    """A group norm with G groups over [N, C, *S] (any rank from 3): the phase's rows are the
    N x G groups, each row the group's C / G channels times all positions (a contiguous
    reshape), the affine per channel from the column; with what comes before and after it,
    one kernel; Conv-TasNet's ``prelu, group_norm(1 group)`` too."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(*shape, generator=g).to(dtype)
    w, b = (torch.randn(shape[1], generator=g).to(dtype) for _ in range(2))
    (tmp_path / "gn").mkdir()
    ops, out, want = fused(tmp_path / "gn", GroupNormSilu(groups), [x, w, b])
    assert ops == ["mul", "group_norm", "silu", "->", "1"]
    cmp = compare_outputs([out], [want])
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp
    if len(shape) == 3:
        slope = torch.rand(1, generator=g).to(dtype)
        (tmp_path / "prelu").mkdir()
        ops, out, want = fused(tmp_path / "prelu", PreluGroupNorm(), [x, slope, w, b])
        assert ops == ["prelu", "group_norm", "->", "1"]
        cmp = compare_outputs([out], [want])
        assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp


def test_a_row_longer_than_a_tile_is_refused_at_synthesis() -> None:
    """A row-mode kernel loads a row into one tile of at most 32768 elements: a group norm
    whose group is longer (Conv-TasNet's one group of 2 million) is refused with that reason
    when the pass is made, rather than written as a pass that raises on every call."""
    x = torch.randn(1, 4, 9000)
    reason = select(trace_graph(GroupNormSilu(1), [x, torch.randn(4), torch.randn(4)]))
    assert isinstance(reason, str) and "rows longer than 32768 elements (36000)" in reason
    assert isinstance(select(trace_graph(GroupNormSilu(4), [x, torch.randn(4), torch.randn(4)])),
                      Group)  # per channel: rows of 9000  # fmt: skip


class MovedAdd(torch.nn.Module):
    """A graph's ``.to`` in every form it takes: to the device it runs on (eager returns the
    operand), with a dtype beside the device, and to another tensor's dtype."""

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        h = x.to(torch.device("cpu")) + r.to(dtype=torch.float32, device=torch.device("cpu"))
        return torch.relu(h).to(x) * 2.0


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_to_a_device_or_another_tensor_fuses_as_eager_computes(tmp_path: Path) -> None:
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(4, 33, generator=g).to(torch.bfloat16) for _ in range(2)]
    ops, out, want = fused(tmp_path, MovedAdd(), args)
    assert ops == ["cast", "cast", "add", "relu", "cast", "mul", "->", "1"]
    assert out.dtype == want.dtype == torch.bfloat16
    cmp = compare_outputs([out], [want])
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp
    node = next(n for n in trace_graph(MovedAdd(), args).gm.graph.nodes if n.target == "to")
    copy = node.graph.call_method("to", (node.args[0], torch.float32), {"copy": True})
    assert classify(copy, lambda n: 2) == "to() with a copy or a memory format"


class PaddingMask(torch.nn.Module):
    """RoBERTa's padding mask and an extended attention mask, as the corpus writes them: an
    int64 id compared with the padding id, cast to int32; a bool mask negated and combined."""

    def forward(self, ids: torch.Tensor, keep: torch.Tensor, x: torch.Tensor) -> tuple:
        pad = ids.ne(1).int()
        drop = torch.logical_and(~keep, ids.eq(0))
        return pad, x.masked_fill(drop, -1e4) * 0.5


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_comparisons_and_boolean_logic_are_exact_on_integer_ids(tmp_path: Path) -> None:
    """Ids beyond 2**24 (where float32 rounds: 2**24 + 1 would compare equal to 2**24) are
    compared as stored; the bool results stay flags inside the kernel."""
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 3, (2, 40), generator=g)
    ids[0, :4] = torch.tensor([2**24 + 1, 2**24, 1, 0])
    keep = torch.rand(2, 40, generator=g) > 0.5
    x = torch.randn(2, 40, generator=g)
    ops, out, want = fused(tmp_path, PaddingMask(), [ids, keep, x])
    assert ops == ["ne", "cast", "not", "eq", "and", "masked_fill", "mul", "->", "2"], ops
    assert out[0].dtype == torch.int32 and torch.equal(out[0], want[0])
    assert torch.equal(out[1], want[1])
    bits = select(trace_graph(BitwiseNot(), [ids, x]))  # ~ on integers flips bits: eager's
    assert isinstance(bits, Group) and [n.name for n in bits.inputs] == ["invert", "x"]


class BitwiseNot(torch.nn.Module):
    def forward(self, ids: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return (~ids).float() * x + 1.0


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_constants_the_graph_makes_are_fills_of_the_kernel(tmp_path: Path) -> None:
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(4, 24, generator=g) * 1e6]
    ops, out, want = fused(tmp_path, ReluFilled(), args)
    assert {"full", "ones", "zeros", "relu"} <= set(ops) and ops[-2:] == ["->", "1"], ops
    assert torch.equal(out, want)
    node = next(n for n in trace_graph(ReluFilled(), args).gm.graph.nodes if n.target is torch.ones)
    ints = node.graph.call_function(torch.ones, ((3,),), {"dtype": torch.int64})
    assert classify(ints, lambda n: 1) == "ones of dtype torch.int64"


class ReluFilled(torch.nn.Module):
    """Constants a graph makes itself (torch.full / ones / zeros of literal sizes) around its
    input's ops: DETR's query mask fill, a bias of ones."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fill = torch.full((4, 24), -1000000.0, device=torch.device("cpu"))
        ones = torch.ones((24,), dtype=torch.float32, device=torch.device("cpu"))
        return torch.relu(x + fill) * 0.5 + ones + torch.zeros(4, 24)


class PositionIds(torch.nn.Module):
    """OPT's learned positions: ``arange`` offset by 2 and looked up, added to the input."""

    def forward(self, weight: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(0, 12, dtype=torch.int64, device=torch.device("cpu")).unsqueeze(0)
        return F.embedding(pos + 2, weight) + x * 2.0


class CausalMask(torch.nn.Module):
    """A causal mask from two ``arange`` views compared, filled into the scores."""

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        future = torch.arange(12).view(1, -1) > torch.arange(12).view(-1, 1)
        return (scores * 0.125).masked_fill(future, float("-inf")).softmax(-1)


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_arange_is_an_index_value_lookups_and_comparisons_read(tmp_path: Path) -> None:
    g = torch.Generator().manual_seed(0)
    (tmp_path / "ids").mkdir(), (tmp_path / "mask").mkdir()
    ops, out, want = fused(tmp_path / "ids", PositionIds(),
                            [torch.randn(16, 8, generator=g), torch.randn(1, 12, 8, generator=g)])  # fmt: skip
    assert "arange" in ops and "embedding" in ops, ops
    assert torch.equal(out, want)
    ops, out, want = fused(tmp_path / "mask", CausalMask(), [torch.randn(2, 12, 12, generator=g)])
    assert ops.count("arange") == 2 and "gt" in ops and "softmax" in ops, ops
    cmp = compare_outputs([out], [want])
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp


class LogitScale(torch.nn.Module):
    """Grounding DINO's reference points: ``logit(p, eps)`` of probabilities, then used."""

    def __init__(self, eps: float | None) -> None:
        super().__init__()
        self.eps = eps

    def forward(self, p: torch.Tensor) -> torch.Tensor:
        return torch.special.logit(p, eps=self.eps) * 2.0


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize("eps", [1e-5, None])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_logit_clamps_and_rounds_as_eager(tmp_path: Path, eps: float | None,
                                          dtype: torch.dtype) -> None:  # fmt: skip
    """``logit`` (Dynamo records ``torch._C._special.special_logit``; the pattern names it
    ``torch.special.logit``) with and without ``eps``: the bounds, ``1 - z`` and the quotient
    rounded as the device's eager kernel does (on CPU, to the input's dtype), 0, 1 and NaN
    included."""
    g = torch.Generator().manual_seed(0)
    p = torch.rand(3, 50, generator=g)
    p[0, :6] = torch.tensor([0.0, 1.0, float("nan"), 0.5, 0.498046875, 1e-7])
    ops, out, want = fused(tmp_path, LogitScale(eps), [p.to(dtype)])
    assert ops == ["logit", "mul", "->", "1"]
    cmp = compare_outputs([out], [want])
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp
    assert torch.equal(out.isinf(), want.isinf()) and torch.equal(out.isnan(), want.isnan())


class ReluAvgPool(torch.nn.Module):
    """Inception's pooled branch: an average over padded windows of a fused activation."""

    def __init__(self, kernel: int, stride: int, padding: int, include_pad: bool) -> None:
        super().__init__()
        self.args = (kernel, stride, padding, False, include_pad)

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return F.avg_pool2d(torch.relu(x + r), *self.args)


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize(("window", "include_pad"), [((3, 2, 1), True), ((3, 1, 1), False),
                                                     ((2, 2, 0), True)])  # fmt: skip
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_avg_pool2d_sums_the_window_in_eagers_order(tmp_path: Path, window: tuple,
                                                    include_pad: bool, dtype: torch.dtype) -> None:  # fmt: skip
    """``avg_pool2d``: the window's taps in bounds summed from 0 in eager's order, divided by
    the window's size (or by the taps in bounds), rounded once: bit-exact against eager, NaN
    propagated; ``ceil_mode`` stays unsupported, with that reason."""
    g = torch.Generator().manual_seed(0)
    x, r = (torch.randn(2, 3, 9, 11, generator=g).to(dtype) for _ in range(2))
    x[1, 2, 4, 5] = float("nan")
    ops, out, want = fused(tmp_path, ReluAvgPool(*window, include_pad), [x, r])
    assert ops == ["add", "relu", "avg_pool2d", "->", "1"]
    assert out.isnan().sum() >= 1
    torch.testing.assert_close(out, want, rtol=0, atol=0, equal_nan=True)
    pool = next(n for n in trace_graph(ReluAvgPool(*window, include_pad), [x, r]).gm.graph.nodes
                if n.target is F.avg_pool2d)  # fmt: skip
    pool.kwargs = {"ceil_mode": True}
    assert classify(pool, lambda n: 4).startswith("avg_pool2d with ceil_mode")
