"""``repeat`` and ``repeat_interleave`` as index arithmetic (passnet.synth.opdefs.repeats), and
integer concatenation: torch_geometric's self loops appended to an edge index."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from helpers.synth import fused

from passnet.synth.graph import Group, make_group, select, trace_graph
from passnet.synth.ops import classify

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


class Tiled(torch.nn.Module):
    """An operand tiled (a new leading dim, a dim of 1 and one of 5 repeated), interleaved along
    its last dim and, flattened, without a dim."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple:
        tiled = x.repeat(2, 1, 4, 2)  # [3, 1, 5] -> [2, 3, 4, 10]
        pairs = torch.repeat_interleave(x, 2, dim=-1)  # [3, 1, 10]
        return torch.relu(tiled + y) * pairs, x.repeat_interleave(3) * 2.0


class SelfLoops(torch.nn.Module):
    """torch_geometric's ``add_self_loops`` then a message over the edges: the loops are
    ``arange`` tiled into two rows, concatenated to the edge index (int64, an output) and
    read as indices."""

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> tuple:
        loops = torch.arange(0, 6).view(1, -1).repeat(2, 1)
        edges = torch.cat([edge_index, loops], dim=1)
        return edges, torch.relu(x.index_select(0, edges[0]) - x.index_select(-2, edges[1]))


class SharedCat(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple:
        c = torch.cat([a * 2.0, b * 2.0])
        row = c[0]
        return c, row, row * 3.0


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_repeats_are_index_maps_of_one_kernel(tmp_path: Path) -> None:
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(3, 1, 5, generator=g), torch.randn(2, 3, 4, 10, generator=g)]
    ops, out, want = fused(tmp_path, Tiled(), args)
    assert ops == ["repeat", "repeat_interleave", "add", "relu", "mul", "repeat_interleave",
                   "mul", "->", "2"], ops  # fmt: skip
    for o, w in zip(out, want, strict=True):
        torch.testing.assert_close(o, w, rtol=0, atol=0)


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_self_loops_are_integer_index_values(tmp_path: Path) -> None:
    """The tiled ``arange`` and the concatenated edge index stay integers, exact, through the
    lookups they feed; the edge index is stored as int64."""
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(6, 8, generator=g), torch.randint(0, 6, (2, 10), generator=g)]
    ops, out, want = fused(tmp_path, SelfLoops(), args)
    assert ops == ["arange", "reshape", "repeat", "cat", "getitem", "index_select", "getitem",
                   "index_select", "sub", "relu", "->", "2"], ops  # fmt: skip
    assert out[0].dtype == torch.int64 and torch.equal(out[0], want[0])
    torch.testing.assert_close(out[1], want[1], rtol=0, atol=0)


def test_repeat_refusals() -> None:
    """A count of 0 (an empty result) is refused at classification; outputs that are one
    memory in eager (a value and a view of it) are not made a group's outputs."""
    args = [torch.randn(2, 3), torch.randn(2, 3)]
    traced = trace_graph(SharedCat(), args)
    nodes = [n for n in traced.gm.graph.nodes if n.op.startswith("call")]
    why = make_group(traced, nodes)
    assert isinstance(why, str) and "views of one value 'cat'" in why, why
    group = select(traced)  # the concatenation alone: the view and its product stay eager's
    assert isinstance(group, Group) and [n.name for n in group.outputs] == ["cat"]
    empty = traced.gm.graph.call_method("repeat", (nodes[0], 0, 1))
    assert classify(empty, lambda n: 2) == "repeat by computed counts or by a count below 1"
