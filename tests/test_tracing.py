"""One tracer for the dataset, the reference and every candidate: torch calls on constants stay.

Regression for the harness bias of issue 11: candidates were traced with plain
``torch.fx.symbolic_trace``, which ran ``torch.ones(...)``/``triu`` once at trace time and
stored the mask as a constant, so eager timed against itself looked 1.6-1.7x faster on a
Falcon causal-mask task.
"""

from __future__ import annotations

import operator
from pathlib import Path

import pytest
import torch

from passnet.core.results import Parameters, Status
from passnet.evaluation.candidates import parse_candidate
from passnet.evaluation.evaluator import evaluate_task
from passnet.graph.meta import TensorMeta
from passnet.graph.sample import load_module, load_sample, materialize, write_sample
from passnet.passes.matcher import to_fx

# Falcon-style causal mask built from constants, then applied to the scores. The mask is
# large on purpose: if the tracer folded it, the candidate would skip most of the work.
MASK_MODEL = """import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, scores: torch.Tensor):
        ones = torch.ones((768, 768), dtype = torch.bool, device = device(type='cpu'))
        triu = ones.triu(diagonal = 1);  ones = None
        zeros = torch.zeros((768, 16), dtype = torch.bool, device = device(type='cpu'))
        mask = torch.cat([zeros, triu], dim = -1);  zeros = triu = None
        bias = torch.arange(784, device = device(type='cpu')).float() * 0.0
        masked = scores.masked_fill(mask[-1:, :784], -1e9);  mask = None
        out = torch.softmax(masked + bias, dim = -1);  masked = bias = None
        return (out,)
"""


@pytest.fixture(scope="module")
def mask_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("falcon_mask") / "sample"
    meta = TensorMeta(name="scores", shape=[1, 1, 1, 784], dtype="torch.float32",
                      device="cpu", mean=0.0, std=1.0)  # fmt: skip
    write_sample(folder, MASK_MODEL, [meta], {"model_name": "falcon-mask"})
    return folder


def test_constant_torch_calls_stay_nodes(mask_sample: Path) -> None:
    sample = load_sample(mask_sample)
    gm = to_fx(load_module(sample))
    targets = {getattr(n.target, "__name__", str(n.target)) for n in gm.graph.nodes}
    assert {"ones", "zeros", "cat", "arange"} <= targets
    # nothing was computed at trace time and frozen into the module
    assert not [n for n in gm.graph.nodes if n.op == "get_attr"]
    assert not [name for name, _ in gm.named_buffers()]
    (x,) = materialize(sample, device="cpu", seed=0)
    torch.testing.assert_close(gm(x)[0], load_module(sample)(x)[0])


def test_eager_against_itself_is_unbiased_on_a_constant_mask(mask_sample: Path) -> None:
    params = Parameters(warmup=3, trials=40, rounds=4, max_reruns=1, timeout_s=300)
    result = evaluate_task(mask_sample, parse_candidate("eager"), device="cpu", parameters=params)
    (variant,) = result.variants
    assert variant.status == Status.OK, variant.error
    # folded, the candidate skipped building a 768 x 784 mask per call: measured 26x "faster"
    assert 0.6 < variant.speedup < 1.6, variant.speedup


SYM_SIZE_MODEL = """import torch


class GraphModule(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        n = torch.ops.aten.sym_size.int(x, 0)
        y = x.view(n, -1) * 2.0
        return (torch.ops.aten.relu.default(y),)
"""


def test_operator_overloads_trace(tmp_path: Path) -> None:
    """GAE and bloom samples call ``torch.ops.aten.sym_size.int``; the tracer must keep the
    overload (it lost ``.int``, and the samples were rejected as untraceable)."""
    meta = TensorMeta(name="x", shape=[3, 4, 5], dtype="torch.float32", device="cpu",
                      mean=0.0, std=1.0)  # fmt: skip
    write_sample(tmp_path / "s", SYM_SIZE_MODEL, [meta], {"model_name": "sym-size"})
    sample = load_sample(tmp_path / "s")
    gm = to_fx(load_module(sample))
    targets = {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
    assert {"aten.sym_size.int", "aten.relu.default"} <= targets
    (x,) = materialize(sample, device="cpu", seed=0)
    torch.testing.assert_close(gm(x)[0], load_module(sample)(x)[0])


SETITEM_MODEL = """import torch


class GraphModule(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        buf = torch.zeros(2, 3, 4)
        buf[(slice(None, None, None), slice(None, None, None), 1)] = x
        setitem = buf
        return (setitem * 2.0,)
"""


def test_item_assignment_traces(tmp_path: Path) -> None:
    """timm's ConViT and Swin samples assign into a tensor (``t[...] = y``); the tracer must
    record it (it failed: 'Proxy' object does not support item assignment)."""
    meta = TensorMeta(name="x", shape=[2, 3], dtype="torch.float32", device="cpu",
                      mean=0.0, std=1.0)  # fmt: skip
    write_sample(tmp_path / "s", SETITEM_MODEL, [meta], {"model_name": "setitem"})
    sample = load_sample(tmp_path / "s")
    gm = to_fx(load_module(sample))
    assert any(n.target is operator.setitem for n in gm.graph.nodes)
    (x,) = materialize(sample, device="cpu", seed=0)
    torch.testing.assert_close(gm(x)[0], load_module(sample)(x)[0])
    assert not hasattr(torch.fx.Proxy, "__setitem__")  # the patch is undone
