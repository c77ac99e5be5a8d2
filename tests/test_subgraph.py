"""Cutting subgraphs out of real GraphNet samples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.fx
from conftest import BERT, LIGHTGCN, MLP_IRIS, RESNET18
from conftest import fixture_path as fx

from passnet.graph.sample import SampleError, load_module, load_sample, materialize, run_sample
from passnet.graph.subgraph import COMPUTE_OPS, cut_subgraph, graph_ops, trace


class _Values(torch.fx.Interpreter):
    """Every node's value, cloned the moment it is produced (in-place ops cannot alter it)."""

    def __init__(self, gm: torch.fx.GraphModule) -> None:
        super().__init__(gm, garbage_collect_values=False)
        self.values: dict[str, Any] = {}

    def run_node(self, n: torch.fx.Node) -> Any:
        result = super().run_node(n)
        key = str(n.target) if n.op == "placeholder" else n.name
        self.values[key] = result.clone() if isinstance(result, torch.Tensor) else result
        return result


def _expected(parent_rel: str, start: int, end: int, seed: int) -> tuple[dict, list]:
    """Parent values by name and the range's outputs, computed independently of the cutter."""
    parent = load_sample(fx(parent_rel))
    gm = trace(parent)
    recorder = _Values(gm)
    with torch.no_grad():
        recorder.run(*materialize(parent, seed=seed))
    nodes = [n for n in gm.graph.nodes if n.op in COMPUTE_OPS][start:end]
    inside = set(nodes)
    outs = [n for n in nodes if any(u not in inside for u in n.users)] or [nodes[-1]]
    return recorder.values, [recorder.values[n.name] for n in outs]


def _check_cut(parent_rel: str, start: int, end: int, out: Path, seed: int = 0) -> None:
    sub = cut_subgraph(load_sample(fx(parent_rel)), start, end, out, seed=seed)
    values, expected = _expected(parent_rel, start, end, seed)
    module = load_module(load_sample(sub.path))
    with torch.no_grad():
        actual = module(*[values[name] for name in sub.arg_names])
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    # its metas describe the real intermediate values; it replays from them on its own too
    for name, meta in zip(sub.arg_names, sub.metas, strict=True):
        value = values[name]
        if isinstance(value, torch.Tensor):
            assert meta.shape == list(value.shape) and meta.dtype == str(value.dtype)
    assert run_sample(sub, seed=5)
    sources = json.loads((out / "subgraph_sources.json").read_text())
    assert sources["parent"] == str(fx(parent_rel).resolve())
    assert (sources["start"], sources["end"]) == (start, end)
    assert sources["ops"] == graph_ops(load_sample(fx(parent_rel)))[start:end]
    assert sub.graph_net["model_name"].endswith(f"_start{start}_end{end}")


def test_graph_ops_have_readable_names() -> None:
    assert graph_ops(load_sample(fx(MLP_IRIS))) == [
        "torch._C._nn.linear",
        "torch.relu",
        "torch._C._nn.linear",
    ]
    ops = graph_ops(load_sample(fx(RESNET18)))
    assert ops[:4] == [
        "torch.conv2d",
        "torch.nn.functional.batch_norm",
        "torch.nn.functional.relu",
        "torch.nn.functional.max_pool2d",
    ]
    assert {"add", "torch.flatten", "torch._C._nn.linear"} <= set(ops)
    bert = graph_ops(load_sample(fx(BERT)))
    assert "torch.nn.functional.layer_norm" in bert and "torch.tensor" in bert


@pytest.mark.parametrize("start,end", [(0, 3), (3, 11), (10, 30), (60, 69)])
def test_cut_resnet18_matches_parent_intermediates(tmp_path: Path, start: int, end: int) -> None:
    _check_cut(RESNET18, start, end, tmp_path / "cut", seed=1)


@pytest.mark.parametrize("start,end", [(0, 10), (5, 20), (20, 40)])
def test_cut_bert_matches_parent_intermediates(tmp_path: Path, start: int, end: int) -> None:
    _check_cut(BERT, start, end, tmp_path / "cut")


def test_cut_keeps_constant_creating_calls(tmp_path: Path) -> None:
    """``torch.ones(...)`` with constant args stays a call, not a frozen input tensor."""
    _check_cut(LIGHTGCN, 0, 20, tmp_path / "cut")
    code = (tmp_path / "cut" / "model.py").read_text()
    assert "torch.ones((500,)" in code and "from torch import device" in code


def test_cut_model_py_is_graphnet_style(tmp_path: Path) -> None:
    sub = cut_subgraph(load_sample(fx(RESNET18)), 3, 11, tmp_path / "cut")
    code = sub.code
    assert code.startswith("import torch\n")
    assert "class GraphModule(torch.nn.Module):\n    def forward(self, " in code
    assert "relu: torch.Tensor" in code  # an intermediate value became an argument
    assert "torch.nn.functional.max_pool2d(relu" in code
    relu = sub.meta("relu")
    assert relu.min_val is not None and relu.min_val >= 0 and relu.data is None
    assert sub.metas[0].name.startswith("L_self_modules_")  # original weights keep their meta
    assert (sub.path / "graph_hash.txt").is_file()


def test_whole_graph_cut_equals_the_parent(tmp_path: Path) -> None:
    parent = load_sample(fx(MLP_IRIS))
    sub = cut_subgraph(parent, 0, 3, tmp_path / "all")
    args = dict(zip(parent.arg_names, materialize(parent, seed=4), strict=True))
    with torch.no_grad():
        got = load_module(sub)(*[args[n] for n in sub.arg_names])
        want = load_module(parent)(*materialize(parent, seed=4))
    assert torch.equal(got[0], want[0])


def test_small_intermediates_keep_their_data(tmp_path: Path) -> None:
    sub = cut_subgraph(load_sample(fx(LIGHTGCN)), 1, 3, tmp_path / "cut")
    getitem = sub.meta("getitem")  # alpha[0]: a 0-d tensor read from outside the range
    assert getitem.shape == [] and getitem.data == [0.25]


def test_bad_ranges_are_sample_errors(tmp_path: Path) -> None:
    sample = load_sample(fx(MLP_IRIS))
    for start, end in [(2, 2), (-1, 2), (0, 4)]:
        with pytest.raises(SampleError, match=r"model\.py: range"):
            cut_subgraph(sample, start, end, tmp_path / "x")
    with pytest.raises(SampleError, match="overwrite its parent"):
        cut_subgraph(sample, 0, 1, sample.path)


TRANSPOSED = """import torch


class GraphModule(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        t = x.transpose(1, 2)
        c = t.contiguous()
        relu = torch.relu(c)
        add = relu + 1
        return (add,)
"""


def test_cut_input_keeps_a_permuted_layout(tmp_path: Path) -> None:
    """A range starting at contiguous() of a transposed activation: its sample records the
    stride, so the input is transposed again and eager pays the copy, as in the parent; its
    structural hash sees the layout the way the decomposition's range hash does."""
    from passnet.dataset.hashing import input_specs, value_spec
    from passnet.graph.sample import TensorMeta, write_sample

    meta = TensorMeta(name="x", shape=[2, 3, 5], dtype="torch.float32", mean=0.0, std=5.0)
    parent = write_sample(tmp_path / "parent", TRANSPOSED, [meta], {"model_name": "p"})
    sub = cut_subgraph(parent, 1, 4, tmp_path / "cut")
    transposed = materialize(parent)[0].transpose(1, 2)
    assert sub.metas[0].stride == list(transposed.stride()) == [15, 1, 5]
    x = materialize(load_sample(sub.path))[0]
    assert x.shape == transposed.shape and x.stride() == transposed.stride()
    assert input_specs(sub) == [value_spec(transposed)] != [value_spec(transposed.contiguous())]
