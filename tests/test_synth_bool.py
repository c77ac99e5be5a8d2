"""Bool tensors as a group's inputs and outputs (passnet.synth.bools): a bool input read
through a slice, views and repeats of bool values, bool results stored as torch.bool."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from helpers.synth import one_rule_pass

from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.synth.emit import module_source
from passnet.synth.graph import Group, analyse, select, trace_graph

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


class LengthMask(torch.nn.Module):
    """NeMo's attention mask from sequence lengths: ``arange < length``, repeated over the
    query dim and and-ed with its transpose and with a slice of a bool mask; the mask, its
    negation and a float use of it are all outputs."""

    def forward(self, pos: torch.Tensor, lengths: torch.Tensor, keep: torch.Tensor,
                x: torch.Tensor) -> tuple:  # fmt: skip
        valid = pos < lengths.unsqueeze(1)
        square = valid.unsqueeze(1).repeat([1, 6, 1])
        both = torch.logical_and(square, square.transpose(1, 2))
        mask = torch.logical_and(both, keep[:, :6, :6])
        return ~mask, ~valid, x.masked_fill(~mask, -1e4) * 0.5


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_bool_inputs_views_and_outputs_are_exact(tmp_path: Path) -> None:
    g = torch.Generator().manual_seed(0)
    pos = torch.arange(6).expand(3, 6)
    lengths = torch.tensor([6, 2, 0])
    keep = torch.rand(3, 8, 8, generator=g) > 0.3
    x = torch.randn(3, 6, 6, generator=g)
    args = [pos, lengths, keep, x]
    module = LengthMask()
    group = select(trace_graph(module, args))
    assert isinstance(group, Group), group
    assert sorted(n.name for n in group.inputs) == ["keep", "lengths", "pos", "x"]
    assert len(group.outputs) == 3
    ops = [op.name for op in group.ops.values()]
    assert {"lt", "repeat", "transpose", "getitem", "and", "not"} <= set(ops), ops
    source = module_source("t", "synth_t_0", analyse([group]), group.source, len(group.inputs))
    gm = to_fx(module)
    assert apply_passes(gm, load_pass_dir(one_rule_pass(tmp_path, source, "synth_t_0"))).total == 1
    with torch.no_grad():
        out, want = gm(*args), module(*args)
    for o, w in zip(out, want, strict=True):
        assert o.dtype == w.dtype and torch.equal(o, w)
    assert out[0].dtype == torch.bool and bool(out[0].any()) and not bool(out[0].all())


class BoolArithmetic(torch.nn.Module):
    """``bool + bool`` is a logical or in eager, a 2 in a flag: no kernel may compute it."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (a[:, :4] + (b > 0)).float() * 2.0


def test_bool_arithmetic_is_left_to_eager() -> None:
    a = torch.rand(2, 6) > 0.5
    b = torch.randn(2, 4)
    group = select(trace_graph(BoolArithmetic(), [a, b]))
    assert isinstance(group, Group) and [op.name for op in group.ops.values()] == ["cast", "mul"]
