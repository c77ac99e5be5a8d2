"""What a 200-task cut of the GraphNet pool skipped for, now lowered: ``chunk`` (a split into
views), scalar arguments the graph takes as inputs (``.item()`` values), a layer norm whose
row a permute moved off the last dim, and ``matmul`` as a row reduction (a matrix-vector
product, or K below ``tl.dot``'s tile) with its epilogue."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from helpers.synth import fused, one_rule_pass

from passnet.integrity.policy import check_pass_dir
from passnet.passes.loader import load_pass_dir, write_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.scores.compare import compare_outputs
from passnet.synth.driver import STRICT_T
from passnet.synth.emit import module_source
from passnet.synth.graph import Group, analyse, make_group, select, select_all, trace_graph
from passnet.synth.rules import plan_rules, rule_modules
from passnet.synth.shapes import Unfusable

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"
needs_interpreter = pytest.mark.skipif(
    not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1"
)


def _strict(out: object, want: object) -> None:
    outs = list(out) if isinstance(out, tuple) else [out]
    wants = list(want) if isinstance(want, tuple) else [want]
    cmp = compare_outputs(outs, wants)
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp


class SpatialGate(torch.nn.Module):
    """gMLP's gating unit: the activation split in two halves, the second normalised."""

    def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> tuple:
        u, v = F.dropout(F.gelu(x), 0.0, False).chunk(2, dim=-1)
        return u, F.layer_norm(v, (8,), w, b, 1e-5)


@needs_interpreter
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_chunk_pieces_are_slices_of_the_split_operand(tmp_path: Path, dtype: torch.dtype) -> None:
    """The split and its two pieces join the group (the pattern makes the graph's own
    ``chunk`` and getitems); each piece reads the gelu at its own offset, one kernel stores
    the first half and the layer norm of the second."""
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(2, 5, 16, generator=g).to(dtype), torch.randn(8, generator=g).to(dtype),
            torch.randn(8, generator=g).to(dtype)]  # fmt: skip
    ops, out, want = fused(tmp_path, SpatialGate(), args)
    assert ops == ["gelu", "dropout", "chunk", "chunk_piece", "chunk_piece", "layer_norm", "->",
                   "2"]  # fmt: skip
    _strict(out, want)


class ThreePieces(torch.nn.Module):
    def __init__(self, view: bool) -> None:
        super().__init__()
        self.view = view

    def forward(self, x: torch.Tensor) -> tuple:
        h = (x.view(2, 7, 5) if self.view else x) * 2.0
        a, b, c = h.chunk(3, dim=1)
        return torch.relu(a) + b, torch.relu(c)


@needs_interpreter
def test_chunk_of_a_literal_size_splits_as_eager(tmp_path: Path) -> None:
    """7 rows in 3 chunks are 3, 3 and 1 long (eager's ``ceil(7 / 3)``): exact where the size
    is a literal of the graph; a size the wrapper reads must divide evenly in every analysed
    variant, else the group is refused with that reason."""
    x = torch.randn(2, 7, 5, generator=torch.Generator().manual_seed(0))
    ops, out, want = fused(tmp_path, ThreePieces(view=True), [x])
    assert ops[-2:] == ["->", "2"] and ops.count("chunk_piece") == 3
    for got, expected in zip(out, want, strict=True):
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
    why = _refusal(ThreePieces(view=False), [x])
    assert "chunk of a dim that is not a multiple of its pieces" in why


def _refusal(module: torch.nn.Module, args: list) -> str:
    """Why the group of all of ``module``'s ops does not lower (select then picks a smaller
    one, leaving the refused op to eager)."""
    traced = trace_graph(module, args)
    group = make_group(traced, [n for n in traced.gm.graph.nodes if n in traced.ops])
    assert isinstance(group, Group), group
    with pytest.raises(Unfusable) as exc:
        analyse([group])
    return str(exc.value)


class BnClamp(torch.nn.Module):
    """Dynamo's graph of a module whose eps and clamp bounds were read with ``.item()``."""

    def forward(self, x: torch.Tensor, m: torch.Tensor, v: torch.Tensor, eps: float,
                lo: float, hi: float) -> torch.Tensor:  # fmt: skip
        return F.hardtanh(F.batch_norm(x, m, v, None, None, False, 0.1, eps), lo, hi)


@needs_interpreter
def test_scalar_inputs_are_kernel_arguments(tmp_path: Path) -> None:
    """eps and the bounds are graph inputs, not literals: pattern inputs the kernel takes as
    float arguments at run time, so other values than the traced ones give eager's result."""
    g = torch.Generator().manual_seed(0)
    x, m, v = torch.randn(2, 3, 4, 5, generator=g), torch.randn(3, generator=g), torch.rand(3) + 0.5
    module = BnClamp()
    group = select(trace_graph(module, [x, m, v, 1e-5, -0.5, 0.75]))
    assert isinstance(group, Group), group
    assert [op.name for op in group.ops.values()] == ["batch_norm", "clamp"]
    k = analyse([group])
    assert sorted(k.shapes.numbers) == [3, 4, 5]
    source = module_source("t", "synth_t_0", k, group.source, len(group.inputs))
    assert "float(in3)" in source and "in3.shape" not in source
    gm = to_fx(module)
    assert apply_passes(gm, load_pass_dir(one_rule_pass(tmp_path, source, "synth_t_0"))).total == 1
    for scalars in ([1e-5, -0.5, 0.75], [0.25, -2.0, 0.5]):
        with torch.no_grad():
            _strict(gm(x, m, v, *scalars), module(x, m, v, *scalars))


class NormThenPermute(torch.nn.Module):
    """A channels-last layer norm handed back channels-first: ConvNeXt-style ``permute`` and
    data2vec's feature extractor ``transpose``."""

    def __init__(self, transpose: bool) -> None:
        super().__init__()
        self.transpose = transpose

    def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        h = F.layer_norm(x, (12,), w, b, 1e-5)
        if self.transpose:
            return F.gelu(h.transpose(-2, -1))
        return F.silu(h.permute(0, 3, 1, 2))


@needs_interpreter
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_layer_norm_permuted_off_the_last_dim_walks_its_own_row(
    tmp_path: Path, transpose: bool, dtype: torch.dtype
) -> None:
    """The output's last dim is not the norm's: the phase walks the norm's dim as its row
    (the output's channel dim moved last) and stores each row at the output's own strides."""
    g = torch.Generator().manual_seed(0)
    shape = (2, 9, 12) if transpose else (2, 5, 3, 12)
    args = [torch.randn(*shape, generator=g).to(dtype)]
    args += [torch.randn(12, generator=g).to(dtype) for _ in range(2)]
    ops, out, want = fused(tmp_path, NormThenPermute(transpose), args)
    assert ops == ["layer_norm", "transpose" if transpose else "permute",
                   "gelu" if transpose else "silu", "->", "1"]  # fmt: skip
    _strict(out, want)


class ContextPool(torch.nn.Module):
    """GCNet's context block: attention weights over positions, then features times them."""

    def forward(self, x: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, F.softmax(logits, 2).unsqueeze(-1)).view(1, 24, 1, 1)


class ShortHeads(torch.nn.Module):
    """Scores over 8-wide heads, scaled and biased: the matmul and its epilogue."""

    def forward(self, q: torch.Tensor, k: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return (q @ k.transpose(-1, -2)) * 0.5 + bias


@needs_interpreter
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_matmul_is_a_row_reduction_with_its_epilogue(tmp_path: Path, dtype: torch.dtype) -> None:
    """A matrix-vector product (the softmax computed on the same row it weighs) and a short-K
    product (its scale and bias fused after it): each output a row of K products summed in
    float32, rounded once."""
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(1, 1, 24, 40, generator=g).to(dtype),
            torch.randn(1, 1, 40, generator=g).to(dtype)]  # fmt: skip
    (tmp_path / "gemv").mkdir()
    ops, out, want = fused(tmp_path / "gemv", ContextPool(), args)
    assert ops == ["softmax", "unsqueeze", "matmul", "->", "1"]
    _strict(out, want)
    args = [torch.randn(2, 3, 7, 8, generator=g).to(dtype),
            torch.randn(2, 3, 6, 8, generator=g).to(dtype),
            torch.randn(1, 1, 7, 6, generator=g).to(dtype)]  # fmt: skip
    (tmp_path / "short").mkdir()
    ops, out, want = fused(tmp_path / "short", ShortHeads(), args)
    assert ops == ["transpose", "matmul", "mul", "add", "->", "1"]
    _strict(out, want)


def test_a_large_matmul_is_left_to_the_gemm_library() -> None:
    """M and N above 1 with K of 16 or more: cuBLAS's tiling reads each element a few times,
    a row per output would read it N times; refused with that reason."""
    args = [torch.randn(1, 2, 9, 32), torch.randn(1, 2, 9, 32), torch.randn(1, 1, 9, 9)]
    assert "GEMM library" in _refusal(ShortHeads(), args)
    group = select(trace_graph(ShortHeads(), args))
    assert isinstance(group, Group) and [op.name for op in group.ops.values()] == ["mul", "add"]


class ListReshape(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.reshape(x.transpose(1, 2), [-1, 8]) * 2.0


@needs_interpreter
def test_a_free_shape_given_as_a_list_is_a_tuple_default_and_key(tmp_path: Path) -> None:
    """``reshape(x, [-1, 8])`` in a generic rule: its free ``shape`` defaults to a tuple (the
    policy refuses a list default, which every call would share) and keys the plan as a
    tuple (a list is unhashable)."""
    x = torch.randn(2, 8, 6, generator=torch.Generator().manual_seed(0))
    module = ListReshape()
    traced = trace_graph(module, [x])
    chosen = select_all(traced)
    assert isinstance(chosen, list), chosen
    plan = plan_rules([traced], chosen)
    assert [r.summary("r").get("free") for r in plan.rules] == [
        {"shape": "reshape.shape", "scalar": "mul.b"}]  # fmt: skip
    write_pass_dir(tmp_path / "pass", rule_modules("t", plan))
    assert check_pass_dir(tmp_path / "pass") == []
    gm = to_fx(module)
    assert apply_passes(gm, load_pass_dir(tmp_path / "pass")).total == 1
    with torch.no_grad():
        torch.testing.assert_close(gm(x), module(x), rtol=0, atol=0)
