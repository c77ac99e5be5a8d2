"""passnet synth on in-place activations whose write the caller sees: the kernel writes the
same memory (docs/synth-ops.md, "in-place writes into an input").

A task's graph whose input is written by ``relu(x, inplace=True)`` / ``x.relu_()`` before a
max pool (VGG's ``conv2d -> relu_ -> max_pool2d`` with the convolution left to eager): the
pass stores the activation into the input as eager does, and the pool reads the activated
value, in float32 and float16, 2x2 stride 2 and 3x3 stride 2 padding 1 windows.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from helpers.synth import FAST, forward_variant, one_rule_pass

from passnet.dataset.task import write_task
from passnet.graph.sample import load_module, load_sample, materialize
from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.scores.compare import compare_outputs
from passnet.synth.driver import STRICT_T, synthesize_task
from passnet.synth.emit import module_source
from passnet.synth.graph import Group, analyse, make_group, select, trace_graph

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"
F = torch.nn.functional

# forward bodies as Dynamo writes them: the activation's result read by the pool
# (``x = self.relu(x)``), or dropped, the pool reading the input the activation wrote
REBOUND = """
relu = torch.nn.functional.relu(l_x_, inplace = True);  l_x_ = None
max_pool2d = torch.nn.functional.max_pool2d(relu, 2, 2, 0, 1, ceil_mode = False, return_indices = False);  relu = None
return (max_pool2d,)
"""
DROPPED = """
relu_ = l_x_.relu_();  relu_ = None
max_pool2d = torch.nn.functional.max_pool2d(l_x_, 3, 2, 1, 1, ceil_mode = False, return_indices = False);  l_x_ = None
return (max_pool2d,)
"""


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize("body", [REBOUND, DROPPED], ids=["rebound_2x2", "dropped_3x3"])
def test_a_write_into_the_tasks_input_is_written_back(tmp_path: Path, body: str) -> None:
    variants = [
        forward_variant(tmp_path / "graphs" / dt, body, dt) for dt in ("float32", "float16")
    ]
    task = write_task(tmp_path / "relu_max_pool2d", variants, name="relu_max_pool2d").path
    r = synthesize_task(task, tmp_path / "out", device="cpu", parameters=FAST)
    assert r.status == "written", r.reason
    assert [rule["ops"] for rule in r.rules] == [["relu", "max_pool2d"]], r.rules
    assert r.verification is not None and r.verification["task_correct"]
    for v in r.verification["variants"]:
        assert v["status"] == "ok" and v["tightest_t"] <= STRICT_T, v
    pass_dir = tmp_path / "out" / "relu_max_pool2d" / "pass"
    for path in variants:  # the caller's tensor holds what eager leaves in it
        sample = load_sample(path)
        gm = to_fx(load_module(sample))
        assert apply_passes(gm, load_pass_dir(pass_dir)).total == 1
        x = materialize(sample, seed=1)[0]
        mine, eager = x.clone(), x.clone()
        with torch.no_grad():
            out, ref = gm(mine), load_module(sample)(eager)
        assert torch.equal(out[0], ref[0])
        assert torch.equal(mine, eager) and not torch.equal(mine, x), path.name


class Written(torch.nn.Module):
    """An input written in place by relu6 (hardtanh), the pool reading it after the write."""

    def forward(self, x: torch.Tensor) -> tuple:
        F.hardtanh(x, 0.0, 6.0, inplace=True)
        return (F.max_pool2d(x, 3, 2, 1) * 2.0,)


class ReadBefore(torch.nn.Module):
    """The input read before the write and after it: no group of all three (the kernel's
    write could land before its read), but relu and add are one, mul left before them."""

    def forward(self, x: torch.Tensor) -> tuple:
        y = x * 2.0
        F.relu(x, inplace=True)
        return (y + x,)


class ReadBetween(torch.nn.Module):
    """The input read outside the group between the write and the group's end: the
    replacement, at the group's end, would write after that read."""

    def forward(self, x: torch.Tensor) -> tuple:
        F.relu(x, inplace=True)
        i = torch.argmax(x)
        return (F.max_pool2d(x, 2) * 2.0, i)


class NotIdempotent(torch.nn.Module):
    """leaky_relu written back while the pool's windows read the input from other programs:
    a window that met the written value would apply the slope twice."""

    def forward(self, x: torch.Tensor) -> tuple:
        y = F.leaky_relu(x, 0.1, inplace=True)
        return (F.max_pool2d(y, 3, 2, 1),)


class Silu(torch.nn.Module):
    """NFNet's silu(inplace=True) on a convolution's output that the graph returns: the input
    is read only where it is written, by the same program, so any activation is written back."""

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> tuple:
        return (F.silu(x, inplace=True), g * 0.5)


def _apply(tmp_path: Path, module: torch.nn.Module, x: torch.Tensor, *rest: torch.Tensor) -> Group:
    """Synthesise ``module``'s group in process: its outputs are eager's at the strict level,
    its input after the call eager's (exactly where the activation is: the clamps)."""
    group = select(trace_graph(module, [x.clone(), *rest]))
    assert isinstance(group, Group), group
    src = module_source("test", "synth_test_0", analyse([group]), group.source, len(group.inputs))
    gm = to_fx(module)
    tmp_path.mkdir()
    assert apply_passes(gm, load_pass_dir(one_rule_pass(tmp_path, src))).total == 1
    mine, eager = x.clone(), x.clone()
    with torch.no_grad():
        out, ref = gm(mine, *rest), module(eager, *rest)
    for got, want in ((list(out), list(ref)), ([mine], [eager])):
        cmp = compare_outputs(got, want)
        assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp
    assert not torch.equal(mine, x)
    return group


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_the_written_value_is_what_later_reads_see(tmp_path: Path) -> None:
    x = torch.randn(2, 3, 9, 9) * 4
    g = _apply(tmp_path / "a", Written(), x)
    assert [n.name for n in g.nodes] == ["hardtanh", "max_pool2d", "mul"], g.nodes
    g = _apply(tmp_path / "b", ReadBefore(), x)
    assert [n.name for n in g.nodes] == ["relu", "add"], g.nodes  # mul reads x before
    for dtype in (torch.float32, torch.float16):
        s = tmp_path / f"silu_{dtype}"
        g = _apply(s, Silu(), torch.randn(2, 3, 5, 5).to(dtype), torch.randn(7).to(dtype))
        assert [n.name for n in g.nodes] == ["silu", "mul"], g.nodes


def test_writes_the_kernel_cannot_reproduce_are_refused() -> None:
    x = torch.randn(2, 3, 9, 9)
    traced = trace_graph(ReadBefore(), [x.clone()])
    why = make_group(traced, [n for n in traced.gm.graph.nodes if n.op == "call_function"])
    assert isinstance(why, str) and "'mul' reads the group's input 'x' before" in why, why
    traced = trace_graph(ReadBetween(), [x.clone()])
    nodes = [n for n in traced.gm.graph.nodes if n.name in ("relu", "max_pool2d", "mul")]
    why = make_group(traced, nodes)
    assert isinstance(why, str) and "'argmax' reads 'x' between" in why, why
    reason = select(trace_graph(NotIdempotent(), [x.clone()]))
    assert isinstance(reason, str) and "only idempotent activations" in reason, reason


SAME_SIZE_POOL = """
mul = l_x_ * 2.0;  l_x_ = None
relu = torch.nn.functional.relu(mul, inplace = False);  mul = None
max_pool2d = torch.nn.functional.max_pool2d(relu, 3, 1, 1, 1, ceil_mode = False, return_indices = False)
return (relu, max_pool2d)
"""


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_an_output_read_through_a_same_size_window_is_stored_at_its_own_place(
    tmp_path: Path,
) -> None:
    """``relu`` returned beside a 3x3 stride-1 max-pool of it: as many pool outputs as relu
    elements, so counting alone took the pool's first tap (shifted by the padding) for relu's
    own coordinates and stored it there (wrong by up to 8.6e19, the task lost)."""
    variants = [forward_variant(tmp_path / "graphs" / "float32", SAME_SIZE_POOL, "float32")]
    task = write_task(tmp_path / "relu_pool", variants, name="relu_pool").path
    r = synthesize_task(task, tmp_path / "out", device="cpu", parameters=FAST)
    assert r.status == "written", r.reason
    assert r.verification is not None and r.verification["task_correct"], r.verification
