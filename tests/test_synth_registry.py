"""The synthesizer's op registry and IR (issue 37): how a new op is added, end to end.

A new unary op is one registration (its targets and its IR); a new reduction is one
registration plus its IR pattern (what turns the row's values into one value per row). Each
is registered for the test only (``registry.scope``), synthesised into a pass for a tiny
module, and run through Triton's interpreter against eager.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import torch
from helpers.synth import one_rule_pass
from torch.fx import Node

from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.scores.compare import compare_outputs
from passnet.synth import printer, registry
from passnet.synth.driver import STRICT_T
from passnet.synth.emit import module_source
from passnet.synth.graph import Group, analyse, select, trace_graph
from passnet.synth.ir import Const, Expr, Int, Max, Name, Reduce, Size, SizeOp, call, cmp, where
from passnet.synth.op_model import Op
from passnet.synth.opdefs.pointwise import Unary
from passnet.synth.opdefs.reductions import Collapsing
from passnet.synth.ops import canonical_name, classify

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


class AbsMul(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple:
        return (torch.abs(x - y) * 0.5,)


class RowMax(torch.nn.Module):
    def forward(self, x: torch.Tensor, r: torch.Tensor) -> tuple:
        h = torch.relu(x + r)
        return (h, h.amax(-1))


def _synthesised(
    tmp_path: Path, module: torch.nn.Module, args: list
) -> tuple[list[str], str, Any, Any]:
    """The group's op names, its kernel's body, and the module's outputs with the pass applied
    (it must fire once) and eager's."""
    group = select(trace_graph(module, args))
    assert isinstance(group, Group), group
    kernel = analyse([group])
    source = module_source("t", "synth_t_0", kernel, group.source, len(group.inputs))
    gm = to_fx(module)
    assert apply_passes(gm, load_pass_dir(one_rule_pass(tmp_path, source, "synth_t_0"))).total == 1
    with torch.no_grad():
        names = [op.name for op in group.ops.values()]
        return names, printer.body_text(kernel.phases), gm(*args), module(*args)


def _node(module: torch.nn.Module, args: list, key: str) -> Node:
    traced = trace_graph(module, args)
    return next(n for n in traced.gm.graph.nodes if n.op != "placeholder"
                and canonical_name(n) == key)  # fmt: skip


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_new_unary_op_is_one_registration(tmp_path: Path, dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(4, 33, generator=g).to(dtype) for _ in range(2)]
    assert classify(_node(AbsMul(), args, "torch.abs"), lambda n: 2) == "unsupported op abs"
    with registry.scope():

        @registry.register
        class Abs(Unary):
            name, targets = "abs", ("torch.abs", "Tensor.abs")

            def emit(self, b: Any, a: Expr) -> Expr:
                return b.let(call("tl.abs", a))

        names, body, out, want = _synthesised(tmp_path, AbsMul(), args)
    assert names == ["sub", "abs", "mul"]
    assert "tl.abs(" in body
    cmp_ = compare_outputs(list(out), list(want))
    assert cmp_.tightest_passing_t is not None and cmp_.tightest_passing_t <= STRICT_T, cmp_
    assert classify(_node(AbsMul(), args, "torch.abs"), lambda n: 2) == "unsupported op abs"


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_a_new_reduction_is_one_registration_plus_its_ir_pattern(
    tmp_path: Path, dtype: torch.dtype
) -> None:
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(3, 5, 40, generator=g).to(dtype) for _ in range(2)]
    with registry.scope():

        @registry.register
        class Amax(Collapsing):  # binder, shape rule and schedule: the mean/sum family's
            name, targets = "amax", ("torch.amax", "Tensor.amax")

            def combine(self, b: Any, op: Op, v: Expr) -> Expr:  # the IR pattern
                return b.let(Reduce("max", where(b.name("cmask"), v, Const("float('-inf')"))))

        names, body, out, want = _synthesised(tmp_path, RowMax(), args)
    assert names == ["add", "relu", "amax"]
    assert "tl.max(tl.where(cmask, " in body and "axis=1)[:, None]" in body
    for got, ref in zip(out, want, strict=True):  # a max picks a value: exact
        assert torch.equal(got, ref)


def test_every_op_is_registered_once_with_its_rules() -> None:
    ops = registry.registered()
    assert len(ops) >= 45
    seen: set[str] = set()
    for name, defn in ops.items():
        assert defn.name == name and defn.targets, name
        assert not seen & set(defn.targets), name
        seen |= set(defn.targets)
    assert registry.lookup("Tensor.amax") is None
    assert registry.lookup("torch.nn.functional.layer_norm") is ops["layer_norm"]
    assert ops["mean"].reduction(Op(ops["mean"], [None], {"dims": 2, "keepdim": True})).dims == 2


def test_the_printer_groups_sizes_and_resolves_scoped_names() -> None:
    """Parentheses come from the tree; a phase's names from the kernel's phase count; a
    plan's metadata reads from its parameters."""
    a, b = Size(0, 1), Size(1, 1)
    prod = SizeOp("*", (SizeOp("+", (a, b)), Int(4)))
    assert printer.expr(prod) == "(s0[1] + s1[1]) * 4"
    assert printer.expr(SizeOp("*", (Max((a, b)), Int(4)))) == "max(s0[1], s1[1]) * 4"
    assert printer.expr((Name("a") - Name("b")) * Name("c") + -Name("d")) == "(a - b) * c + -d"
    assert printer.expr(cmp(">=", Name("t"), 0) & cmp("<", Name("t"), Name("n"))) == (
        "(t >= 0) & (t < n)"
    )
    offs = Name("offs", scope=1)
    assert printer.expr(offs) == "offs"
    assert printer.expr(offs, printer.Context(phases=2)) == "offs_1"
