"""Ops the synthesizer maps onto ones it lowers already (passnet.synth.ops)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from test_synth import one_rule_pass

from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.scores.compare import compare_outputs
from passnet.synth.driver import STRICT_T
from passnet.synth.emit import module_source
from passnet.synth.graph import Group, analyse, select, trace_graph
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
def test_a_global_average_pool_is_the_mean_eager_computes(tmp_path: Path,
                                                          dtype: torch.dtype) -> None:
    """``adaptive_avg_pool2d(x, 1)`` is ``x.mean((-1, -2), keepdim=True)`` in eager (ATen's
    shortcut): fused into the add + relu kernel, which stores both outputs; other output
    sizes stay unsupported, with that reason."""
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(2, 6, 5, 7, generator=g).to(dtype) for _ in range(2)]
    module = ReluPool((1, 1))
    group = select(trace_graph(module, args))
    assert isinstance(group, Group), group
    assert [op.name for op in group.ops.values()] == ["add", "relu", "adaptive_avg_pool2d"]
    source = module_source("t", "synth_t_0", analyse([group]), group.source, len(group.inputs))
    gm = to_fx(module)
    assert apply_passes(gm, load_pass_dir(one_rule_pass(tmp_path, source, "synth_t_0"))).total == 1
    with torch.no_grad():
        cmp = compare_outputs(list(gm(*args)), list(module(*args)))
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
    module = EdgeMessage()
    group = select(trace_graph(module, [x, src, dst]))
    assert isinstance(group, Group), group
    assert [op.name for op in group.ops.values()] == ["index_select", "index_select", "sub",
                                                      "relu", "mul"]  # fmt: skip
    source = module_source("t", "synth_t_0", analyse([group]), group.source, len(group.inputs))
    gm = to_fx(module)
    assert apply_passes(gm, load_pass_dir(one_rule_pass(tmp_path, source, "synth_t_0"))).total == 1
    with torch.no_grad():
        out, want = gm(x, src, dst), module(x, src, dst)
    torch.testing.assert_close(out, want, rtol=0, atol=0)
