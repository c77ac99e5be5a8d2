"""Rank padding (passnet.synth.rank_pad): a flat kernel generated from 5-D graphs serves the
same elementwise and per-channel ops on 4-D and 3-D inputs with size-1 dims inserted after dim
1, in the plan; where an operand of lower rank would not keep its place, or an op reads along
a dim, the kernel keeps its rank."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from helpers.synth import one_rule_pass

from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.scores.compare import compare_outputs
from passnet.synth.emit import module_source
from passnet.synth.graph import Group, analyse, select, trace_graph

needs_interpreter = pytest.mark.skipif(
    os.environ.get("TRITON_INTERPRET") != "1",
    reason="runs Triton kernels in process: TRITON_INTERPRET=1",
)


class ResidualBlockTail(torch.nn.Module):
    """A ResNet block's end: eval batch norm, the residual add, ReLU."""

    def forward(self, x, mean, var, w, b, r):  # noqa: ANN001, ANN201
        return F.relu(F.batch_norm(x, mean, var, w, b, False, 0.1, 1e-5) + r)


class BiasOverTrailingDims(torch.nn.Module):
    def forward(self, x, y):  # noqa: ANN001, ANN201
        return torch.sigmoid(x * y)


class RowNorm(torch.nn.Module):
    def forward(self, x, r):  # noqa: ANN001, ANN201
        return F.layer_norm(x + r, (6,))


def _args(shape: tuple[int, ...], seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    c = shape[1]
    return [torch.randn(shape, generator=g), torch.randn(c, generator=g),
            torch.rand(c, generator=g) + 0.5, torch.randn(c, generator=g),
            torch.randn(c, generator=g), torch.randn(shape, generator=g)]  # fmt: skip


def _source(module: torch.nn.Module, args: list) -> str:
    group = select(trace_graph(module, args))
    assert isinstance(group, Group), group
    return module_source("t", "synth_t_0", analyse([group]), group.source, len(group.inputs))


@needs_interpreter
def test_a_5d_rule_serves_4d_and_3d_inputs_and_refuses_2d(tmp_path: Path) -> None:
    source = _source(ResidualBlockTail(), _args((2, 4, 3, 5, 6)))
    assert "p = 5 - len(s0)" in source
    rule = load_pass_dir(one_rule_pass(tmp_path, source, "synth_t_0"))
    for shape in [(2, 4, 3, 5, 6), (2, 4, 5, 6), (3, 4, 7)]:
        gm = to_fx(ResidualBlockTail())
        assert apply_passes(gm, rule).total == 1
        args = _args(shape, seed=len(shape))
        if len(shape) == 4:  # a layout of its own: the plan pads the strides it reads
            args[0] = args[0].to(memory_format=torch.channels_last)
        with torch.no_grad():
            out, want = gm(*args), ResidualBlockTail()(*args)
        assert out.shape == want.shape and out.is_contiguous()
        cmp = compare_outputs([out], [want])
        assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -6, (shape, cmp)
    gm = to_fx(ResidualBlockTail())
    apply_passes(gm, rule)
    with pytest.raises(ValueError, match="another rank than generated for"):
        gm(*_args((2, 4)))  # one dim short of what the per-channel operands need


def test_the_kernel_keeps_its_rank_where_padding_would_move_an_operand_or_a_row() -> None:
    """An operand over the last three of five dims would lose its place at rank 4; a layer
    norm reads along its row: neither kernel pads."""
    x = torch.randn(2, 4, 3, 5, 6)
    assert "len(s0) <" not in _source(BiasOverTrailingDims(), [x, torch.randn(3, 5, 6)])
    assert "len(s0) <" in _source(BiasOverTrailingDims(), [x, torch.randn(6)])
    assert "len(s0) <" not in _source(RowNorm(), [x, torch.randn(2, 4, 3, 5, 6)])
