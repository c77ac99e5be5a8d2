"""Launch plans memoised per input signature (passnet.passes.plans) and the synthesised
wrappers that use them (passnet.synth.wrapper)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from helpers.synth import SUITE, one_rule_pass

from passnet.dataset.task import load_task
from passnet.passes.loader import load_pass_dir
from passnet.passes.plans import PlanCache, plan_cache
from passnet.synth.emit import module_source
from passnet.synth.graph import analyse, select, trace_variant

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


def test_a_plan_is_computed_once_per_signature_and_never_for_a_refused_one() -> None:
    seen: list[tuple] = []

    @plan_cache(limit=2)
    def plan(shape: torch.Size, cuda: bool) -> tuple:
        seen.append((shape, cuda))
        if len(shape) != 2:
            raise ValueError("rank 2 only")
        return (shape[0] * shape[1],), {"BLOCK": 16 if cuda else 1024}

    x = torch.empty(3, 4)
    assert plan[x.shape, False] == ((12,), {"BLOCK": 1024}) == plan(x.shape, False)
    assert len(seen) == 1 and len(plan) == 1
    plan[torch.Size((5, 5)), True]
    for _ in range(2):  # a refused signature raises on every call and is never stored
        with pytest.raises(ValueError, match="rank 2 only"):
            plan[torch.Size((5,)), False]
    assert len(plan) == 2 and len(seen) == 4
    plan[torch.Size((6, 6)), False]  # past the limit: computed, not stored
    plan[torch.Size((6, 6)), False]
    assert len(plan) == 2 and len(seen) == 6
    assert isinstance(plan, PlanCache) and "2 plans" in repr(plan)


def test_a_plan_holds_no_tensor() -> None:
    """What would make it a cache of outputs is refused on the miss that would store it."""
    leak = plan_cache(lambda shape: (torch.zeros(shape),))
    with pytest.raises(TypeError, match="value holds a Tensor"):
        leak[(2, 2),]
    assert len(leak) == 0
    keyed = plan_cache(lambda t: (1,))
    with pytest.raises(TypeError, match="signature holds a Tensor"):
        keyed[torch.ones(2),]
    with pytest.raises(TypeError, match="a tuple of its function's arguments"):
        keyed[3]


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_a_synthesised_wrapper_plans_once_per_signature(tmp_path: Path) -> None:
    """The suite's add + LayerNorm rule: a second call of one signature reuses its plan, a
    transposed input (other strides) gets its own and is still exact, a shape the guards
    refuse raises every time and is never stored."""
    task = load_task(SUITE / "fusible_add_layer_norm_1f059508")
    group = select(trace_variant(task.variants[0]))
    source = module_source("t", "synth_t_0", analyse([group]), group.source, len(group.inputs))
    assert "@plan_cache" in source and "in0.stride()" in source
    rule = load_pass_dir(one_rule_pass(tmp_path, source)).rules[0]
    plans = rule.module._synth_t_0_plan
    g = torch.Generator().manual_seed(0)
    x, r = torch.randn(2, 8, 128, generator=g), torch.randn(2, 8, 128, generator=g)
    w, b = torch.randn(128, generator=g), torch.randn(128, generator=g)
    for _ in range(2):
        torch.testing.assert_close(rule.replacement(x, r, w, b), rule.pattern(x, r, w, b))
    assert len(plans) == 1
    xt = torch.randn(8, 2, 128, generator=g).transpose(0, 1)
    torch.testing.assert_close(rule.replacement(xt, r, w, b), rule.pattern(xt, r, w, b))
    assert len(plans) == 2
    for _ in range(2):
        with pytest.raises(ValueError, match="shapes outside those generated for"):
            rule.replacement(torch.randn(2, 8, 64), torch.randn(2, 8, 64), w[:64], b[:64])
    assert len(plans) == 2


def test_a_wrapper_whose_outputs_may_alias_its_inputs_stays_plain() -> None:
    """Outputs that may be views of the inputs (the suite's ``contiguous, reshape`` task under
    the ``correct`` keep rule) are made from the tensors on every call: no plan."""
    task = load_task(SUITE / "fusible_contiguous_reshape_7b1ac56d")
    group = select(trace_variant(task.variants[0], noop_copies=False))
    kernel = analyse([group])
    assert kernel.aliases
    source = module_source("t", "synth_t_0", kernel, group.source, len(group.inputs))
    assert "@plan_cache" not in source and "plan_cache" not in source
    assert ".is_contiguous():" in source


def test_a_plan_is_frozen_and_the_cache_is_written_only_by_its_misses() -> None:
    """A memo cannot hide in a plan: the value a call gets back cannot be changed, the cache
    cannot be written directly, and a signature cannot carry an identity."""
    plan = plan_cache(lambda n: ([n, n], {"BLOCK": n}))
    value = plan[4,]
    assert value == ((4, 4), {"BLOCK": 4}) and isinstance(value[0], tuple)
    assert type(value) is tuple  # a tuple stays an exact tuple (the native launch path's grid)
    assert type(plan_cache(lambda n: (n, 1))[3,]) is tuple
    with pytest.raises(TypeError):
        value[1]["memo"] = 1  # a read-only mapping
    for write in (lambda: plan.__setitem__((5,), 1), lambda: plan.update({(5,): 1}),
                  lambda: plan.setdefault((5,), 1), lambda: plan.pop((4,)), plan.clear,
                  lambda: plan.__delitem__((4,))):  # fmt: skip
        with pytest.raises(TypeError, match="written only by its own misses"):
            write()
    assert dict(plan) == {(4,): value}
    x = torch.ones(2)
    for identity in (id(x), x.data_ptr(), hash(x), float(id(x))):
        with pytest.raises(TypeError, match="as large as an address or an id"):
            plan[identity,]
    fills = plan_cache(lambda v: (v,))  # a masked fill's value: a dtype's limit, an infinity
    for fill in (torch.finfo(torch.bfloat16).min, float("-inf"), torch.finfo(torch.float32).max):
        assert fills[fill,] == (fill,)


def test_a_plan_of_symbolic_sizes_is_computed_uncached_while_a_triton_op_is_traced() -> None:
    """Inductor traces a triton op's body on fake tensors whose sizes may be symbols, which do
    not hash (H100: the linear-activation pass fell back to the opaque op on ``unhashable
    type: non-nested SymInt`` in its plan lookup). Inside ``symbolic_plans`` such a signature
    gets its plan computed and not stored; everywhere else a lookup stays a plain dict one."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from passnet.passes.launch import traced_launches

    calls: list[tuple] = []

    @plan_cache
    def plan(shape: torch.Size, cuda: bool) -> tuple:
        calls.append((shape, cuda))
        return (shape[0] * 2, shape[1]), {"BLOCK": 16}

    def body(x: torch.Tensor) -> torch.Tensor:
        out_shape, consts = plan[x.shape, x.is_cuda]
        assert consts == {"BLOCK": 16}
        return x.new_empty(out_shape)

    with pytest.raises(TypeError, match="SymInt"):  # outside: a symbolic size does not hash
        make_fx(body, tracing_mode="symbolic")(torch.randn(4, 8))
    with traced_launches(lambda fn: fn):
        assert type(plan) is not PlanCache  # looked up through Python only in here
        traced = make_fx(body, tracing_mode="symbolic")(torch.randn(4, 8))
        traced2 = make_fx(body, tracing_mode="symbolic")(torch.randn(4, 8))
    assert type(plan) is PlanCache and len(plan) == 0  # nothing symbolic stored
    assert len(calls) == 2 and not isinstance(calls[-1][0][0], int)  # computed each time
    assert traced(torch.randn(3, 5)).shape == (6, 5) and traced2 is not None  # shape-generic
    body(torch.randn(4, 8))  # concrete sizes: stored as before
    assert list(plan) == [(torch.Size([4, 8]), False)]
