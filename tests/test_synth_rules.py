"""A pass's rules analysed wherever they match (passnet.synth.rules), and mixed float dtypes
promoted as eager promotes them (passnet.synth.shapes.promote).

A rule chosen in one variant is applied to every variant; before, its kernel was analysed
only where it was chosen, and a GraphNet task (MoLFormer's masked mean pooling, float32
variant: ``mask.float() * hidden``) failed its bfloat16 and float16 variants at run time.
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest
import torch
from helpers.synth import FAST, ROOT

from passnet.dataset.task import load_task
from passnet.passes.loader import load_pass_dir, write_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.scores.compare import compare_outputs
from passnet.synth.driver import STRICT_T, synthesize_task
from passnet.synth.graph import Group, select, select_all, trace_graph
from passnet.synth.rules import plan_rules, rule_modules

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


class ReluAndGate(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> tuple:
        return (x + y).relu(), z.sigmoid() * 3.0


def _args(y_int: bool) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    y = torch.randint(-4, 4, (4, 8), generator=g) if y_int else torch.randn(4, 8, generator=g)
    return [torch.randn(4, 8, generator=g), y, torch.randn(4, 8, generator=g)]


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_a_rule_that_cannot_serve_a_match_elsewhere_is_dropped(tmp_path: Path) -> None:
    """Float inputs: all four ops are one group. An int64 ``y``: ``x + y`` reads an integer as
    a float operand, so that variant's group is relu, sigmoid and mul. The four-op pattern
    matches the integer variant too, where no kernel serves it: it is dropped (a pass with it
    failed that variant), and the three-op rule is analysed on, and fires in, both."""
    module = ReluAndGate()
    floats, ints = (trace_graph(module, _args(k)) for k in (False, True))
    chosen = [g for t in (floats, ints) for g in select_all(t)]  # type: ignore[union-attr]
    assert [len(g.nodes) for g in chosen] == [4, 3]
    plan = plan_rules([floats, ints], chosen)
    assert [d["ops"] for d in plan.dropped] == [["add", "relu", "sigmoid", "mul"]]
    assert "reads 'y' of dtype torch.int64" in plan.dropped[0]["reason"]
    assert [r.summary("r")["ops"] for r in plan.rules] == [["relu", "sigmoid", "mul"]]
    assert [g.traced for g in plan.rules[0].groups] == [floats, ints]
    write_pass_dir(tmp_path / "pass", rule_modules("t", plan))
    for y_int in (False, True):
        args, gm = _args(y_int), to_fx(module)
        assert apply_passes(gm, load_pass_dir(tmp_path / "pass")).total == 1
        with torch.no_grad():
            cmp = compare_outputs(list(gm(*args)), list(module(*args)))
        assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp


def test_mixed_float_dtypes_promote_as_eager_does() -> None:
    """bfloat16 * float32 is float32 (the group lowers, its result a float32 tensor); a 0-dim
    float32 tensor does not promote a bfloat16 one in eager, so the rule's float32 would
    disagree with the graph: refused with that reason rather than computed in another dtype."""

    class Scale(torch.nn.Module):
        def forward(self, h: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
            return (h * m.float()).relu()

    h = torch.randn(2, 6, 8, dtype=torch.bfloat16)
    group = select(trace_graph(Scale(), [h, torch.ones(2, 6, 1, dtype=torch.int64)]))
    assert isinstance(group, Group), group
    assert [op.name for op in group.ops.values()] == ["cast", "mul", "relu"]
    scalar = select(trace_graph(Scale(), [h, torch.tensor(2)]))
    assert isinstance(scalar, str) and "dtype rule for mul disagrees with the graph" in scalar


def test_a_rule_chosen_in_one_dtype_serves_the_others(tmp_path: Path) -> None:
    """The MoLFormer corpus task (examples/graphnet_suite.tgz): ``mask.float() * hidden`` is
    chosen in float32; in bfloat16 and float16 it now lowers too (promotion), and the rule is
    analysed on all three matches. It used to fail both half-precision variants (the kernel's
    guard raised: shapes outside those generated for)."""
    name = "fusible_layer_norm_unsqueeze_expand_as_float_etc_2226ce40"
    with tarfile.open(ROOT / "examples" / "graphnet_suite.tgz") as tar:
        members = [m for m in tar.getmembers() if f"/{name}/" in m.name]
        tar.extractall(tmp_path / "corpus", members=members, filter="data")
    task = next((tmp_path / "corpus").glob(f"*/{name}"))
    assert {v.dtype for v in load_task(task).variants} == {"float32", "float16", "bfloat16"}
    r = synthesize_task(task, tmp_path / "out", parameters=FAST, keep="correct")
    assert r.status == "written", r.reason
    assert r.dropped == []
    # the whole masked mean pooling (sums over the sequence dim, count, division): one rule
    assert [(rule["ops"], rule["matches"]) for rule in r.rules] == [
        (["cast", "mul", "sum", "sum", "clamp", "div"], 3)]  # fmt: skip
    assert r.verification is not None and r.verification["task_correct"]
    assert all(v["tightest_t"] <= STRICT_T for v in r.verification["variants"])
