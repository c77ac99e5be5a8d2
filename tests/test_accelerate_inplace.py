"""Rules that write into one of their inputs (passnet/accelerate/writes.py): derived from the
pattern, declared as the op's ``mutates_args``, refused where the replacement cannot make the
write or where the graph orders reads around it differently (docs/accelerate.md)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")  # before torch._dynamo imports Triton

import pytest
import torch
from helpers.accelerate import triton_op_of
from helpers.synth import FAST, forward_variant

import passnet
from passnet.accelerate import LibraryError, PassLibrary
from passnet.dataset.task import write_task
from passnet.passes.pattern import prepare_pattern

EXAMPLES_PASSES = Path(__file__).resolve().parents[1] / "examples" / "passes" / "add_layer_norm"

F = torch.nn.functional
INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"

# The graph Dynamo captures of ``Written`` (below), as test_synth_inplace.py writes its tasks.
DYNAMO_BODY = """
y = torch.nn.functional.relu(l_x_, inplace = True);  l_x_ = None
max_pool2d = torch.nn.functional.max_pool2d(y, 2);  y = None
return (max_pool2d,)
"""


class Written(torch.nn.Module):
    """The caller's ``x`` is written by the activation: a visible write."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(x, inplace=True)
        return F.max_pool2d(y, 2)


class ReadAfter(Written):
    """``x`` read again after the match: it must see the written value."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:  # type: ignore[override]
        y = F.relu(x, inplace=True)
        return F.max_pool2d(y, 2), x * 2


class ReadBetween(Written):
    """``x`` read between the write and the pool: the replacement, at the pool, would write
    after that read, so the match is left as it was."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:  # type: ignore[override]
        y = F.relu(x, inplace=True)
        s = x * 2
        return F.max_pool2d(y, 2), s


@pytest.fixture(scope="module")
def synth_pass(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``passnet synth``'s pass for Dynamo's graph of ``Written``: its kernel stores the relu
    into its input, as eager does (docs/synth-ops.md)."""
    from passnet.synth.driver import synthesize_task

    tmp = tmp_path_factory.mktemp("relu_pool")
    variant = forward_variant(tmp / "graphs" / "float32", DYNAMO_BODY, "float32")
    task = write_task(tmp / "relu_max_pool2d", [variant], name="relu_max_pool2d").path
    r = synthesize_task(task, tmp / "out", device="cpu", parameters=FAST)
    assert r.status == "written", r.reason
    return tmp / "out" / "relu_max_pool2d" / "pass"


def _run(module: torch.nn.Module, be: object) -> tuple[list, list, torch.Tensor, torch.Tensor]:
    """Outputs and the caller's tensor after the call: compiled with ``be``, and eager."""
    torch._dynamo.reset()
    x = torch.randn(2, 4, 9, 11)
    mine, eager = x.clone(), x.clone()
    with torch.no_grad():
        out, ref = torch.compile(module, backend=be)(mine), module(eager)
    assert not torch.equal(eager, x)  # eager wrote it
    as_list = lambda o: list(o) if isinstance(o, tuple) else [o]  # noqa: E731
    return as_list(out), as_list(ref), mine, eager


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize("inner", ["inductor", "eager"])
@pytest.mark.parametrize("module", [Written(), ReadAfter()], ids=["written", "read_after"])
def test_a_synthesised_rule_writes_the_callers_input(
    synth_pass: Path, inner: str, module: torch.nn.Module
) -> None:
    be = passnet.backend(passes=synth_pass, inner=inner)
    out, ref, mine, eager = _run(module, be)
    assert sum(be.fired().values()) == 1, be.summary()
    for got, want in zip(out, ref, strict=True):
        assert torch.equal(got, want)
    assert torch.equal(mine, eager)  # the caller sees eager's write
    if inner == "inductor":
        from passnet.accelerate import customops

        (rule,) = be.library.rules
        assert rule.writes and customops.mutated_args(rule) == ("a0",)
        schemas = [str(op._schema) for r, op, _, _ in customops._OPS.values() if r is rule.rule]
        assert schemas and all("Tensor(a0!) a0" in s for s in schemas), schemas
        assert be.reports[0].inner == "inductor" and not be.reports[0].note


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_a_read_between_the_write_and_the_match_end_keeps_the_graph(synth_pass: Path) -> None:
    be = passnet.backend(passes=synth_pass, inner="eager")
    out, ref, mine, eager = _run(ReadBetween(), be)
    assert sum(be.fired().values()) == 0
    ((label, rule),) = be.summary().items()
    assert rule["refused"] and "'s' uses 'l_x_' while the match does" in rule["miss"]
    assert all(torch.equal(a, b) for a, b in zip(out, ref, strict=True))
    assert torch.equal(mine, eager)


RULE = """
import torch

def pattern({params}):
    return {pattern}

def replacement_args({params}):
    return {args}

@torch.fx.wrap
def fused({params}):
    return {body}

def replacement_func():
    return fused
"""


def _rule(root: Path, pattern: str, args: str = "(x,)", body: str = "", params: str = "x") -> Path:
    """A one-rule pass folder; its replacement computes ``body`` (the pattern by default)."""
    folder = root / f"r{len(list(root.iterdir()))}"
    folder.mkdir()
    code = RULE.format(pattern=pattern, args=args, body=body or pattern, params=params)
    (folder / "Fused.py").write_text(textwrap.dedent(code), encoding="utf-8")
    (folder / "sorted_output_pass_rule_names.json").write_text(json.dumps(["Fused"]))
    return folder


def test_an_out_of_place_rule_does_not_drop_a_visible_inplace_write(tmp_path: Path) -> None:
    """A rule written out of place (its replacement leaves ``x`` alone) must not fire where the
    graph writes the caller's ``x``: the write would be lost. It fires nowhere, says why, and
    the graph keeps eager's write."""
    folder = _rule(tmp_path, "torch.nn.functional.max_pool2d(torch.nn.functional.relu(x), 2)")
    assert PassLibrary.load([folder]).rules[0].writes == {}
    be = passnet.backend(passes=folder, inner="eager")
    out, ref, mine, eager = _run(Written(), be)
    ((label, rule),) = be.summary().items()
    assert rule["count"] == 0 and "inplace may differ only where" in rule["miss"], rule
    assert torch.equal(out[0], ref[0]) and torch.equal(mine, eager)


class WriteThenPool(torch.nn.Module):
    """Dynamo's spelling of an unused ``x.relu_()``: the pool reads ``x`` after the write."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        x.relu_()
        return F.max_pool2d(x, 3, 2, 1) * 2, x + 1


class PoolThenWrite(torch.nn.Module):
    """The same structure, the pool reading ``x`` before the write: not the pattern's order."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        p = F.max_pool2d(x, 3, 2, 1)
        x.relu_()
        return p * 2, x + 1


@pytest.mark.parametrize("inner", ["inductor", "eager"])
def test_a_match_fires_only_where_the_graph_reads_in_the_patterns_order(
    tmp_path: Path, inner: str
) -> None:
    """A pattern that writes its input and then reads it (``(x.relu_(), max_pool2d(x))``)
    matches both graphs by structure; only the first computes what it says."""
    folder = _rule(tmp_path, "(x.relu_(), torch.nn.functional.max_pool2d(x, 3, 2, 1))")
    for module, fires in ((WriteThenPool(), 1), (PoolThenWrite(), 0)):
        be = passnet.backend(passes=folder, inner=inner)
        out, ref, mine, eager = _run(module, be)
        assert sum(be.fired().values()) == fires
        assert all(torch.equal(a, b) for a, b in zip(out, ref, strict=True))
        assert torch.equal(mine, eager)
    ((label, rule),) = be.summary().items()
    assert "reads its input 'x' after writing it, the graph's 'p' reads" in rule["miss"], rule


@pytest.mark.parametrize(
    "pattern, written",
    [
        (lambda x, y: x.relu_() + y, {0: ["relu_"]}),
        (lambda x, y: F.relu(y, inplace=True) * x, {1: ["relu"]}),
        (lambda x, y: x.relu_().clamp_(max=6) + y, {0: ["relu_", "clamp_"]}),
        (lambda x, y: F.hardtanh(y.view(-1), 0.0, 6.0, inplace=True) + x, {1: ["hardtanh"]}),
        (lambda x, y: torch.ops.aten.add_.Tensor(x, y) * 2, {0: ["add__tensor"]}),
        (lambda x, y: F.relu(x) + y, {}),
        (lambda x, y: (x + y).relu_(), {}),  # writes the sum's own memory
        (lambda x, y: F.relu(F.silu(x + y), inplace=True), {}),
    ],
    ids=["method_", "inplace_true", "chain", "view", "aten", "out_of_place", "fresh", "nested"],
)
def test_written_inputs_are_read_off_the_pattern(pattern: object, written: dict) -> None:
    from passnet.accelerate.writes import written_inputs

    got = written_inputs(prepare_pattern(pattern))  # type: ignore[arg-type]
    assert {i: [n.name for n in nodes] for i, nodes in got.items()} == written


@pytest.mark.parametrize(
    "args, why",
    [
        ("(x.clone(),)", "does not pass 'x' itself"),
        ("(x.contiguous(),)", "does not pass 'x' itself"),
        ("(x if x.dim() == 4 else x.view(-1),)", "neither traces with torch.fx nor runs"),
    ],
)
def test_a_rule_whose_replacement_cannot_make_the_write_is_refused(
    tmp_path: Path, args: str, why: str
) -> None:
    folder = _rule(tmp_path, "torch.nn.functional.relu(x, inplace=True) * 2", args)
    with pytest.raises(LibraryError, match="writes into its input 'x' in place|neither") as e:
        PassLibrary.load([folder])
    assert why in str(e.value) and "Fused.py: rule Fused" in str(e.value)


def test_a_pattern_whose_write_the_matcher_would_drop_is_left_out(tmp_path: Path) -> None:
    """An unused ``x.relu_()`` is dead code to the matcher: the rule would match every pool.
    It is a sound pass for its own task (``passnet synth`` writes such rules), so a library
    leaves it out and says why rather than refusing the whole load."""
    folder = _rule(tmp_path, "(x.relu_(), torch.nn.functional.max_pool2d(x, 2))[1]")
    with pytest.raises(LibraryError, match="returns nothing that needs that write"):
        PassLibrary.load([folder])  # nothing left to run
    lib = PassLibrary.load([folder, EXAMPLES_PASSES])
    assert [why for _, why in lib.unusable] and "needs that write" in lib.unusable[0][1]
    assert lib.unusable[0][0].endswith(":Fused") and lib.rules


def test_a_triton_op_declares_and_keeps_the_write(tmp_path: Path) -> None:
    """The triton-op path without Triton (as test_accelerate.py's triton-op test): an op whose
    body writes its input declares it (``mutates_args``), the write survives functionalization
    and Inductor makes it in the caller's tensor; a body that forgets the write is refused."""
    from torch._inductor.utils import run_and_get_code

    from passnet.accelerate import tritonops

    def op_of(folder: Path, name: str) -> object:
        return triton_op_of(folder, name, [torch.randn(4, 8)])

    op = op_of(_rule(tmp_path, "torch.nn.functional.relu(x, inplace=True) * 2"), "relu_w_probe")
    assert "Tensor(a0!) a0" in str(op._schema)  # type: ignore[attr-defined]
    x = torch.randn(4, 8)
    mine = x.clone()
    compiled = torch.compile(lambda a: op(a) + 1)  # type: ignore[operator]
    out, codes = run_and_get_code(compiled, mine)
    assert "relu_w_probe" not in "\n".join(codes)  # traced into, not called
    torch.testing.assert_close(out, torch.relu(x) * 2 + 1)
    assert torch.equal(mine, torch.relu(x))

    forgets = _rule(tmp_path, "torch.nn.functional.relu(x, inplace=True) * 2",
                    body="torch.nn.functional.relu(x) * 2")  # fmt: skip
    with pytest.raises(tritonops.NotTraceable, match="leaves a0 unwritten"):
        op_of(forgets, "relu_w_forgets")


class AddsOne(torch.nn.Module):
    """A graph that writes its input in place, not idempotently."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x.add_(1)
        return torch.relu(x + y)


def test_tuning_times_a_graph_that_writes_its_input_on_a_copy(tmp_path: Path) -> None:
    """Tuning calls the compiled graph many times: on the caller's own ``x`` each call would
    add one more; the caller must see the write once, from its own call."""
    from passnet.accelerate.tune import TuneCache

    folder = _rule(tmp_path, "torch.relu(x + y)", "(x, y)", params="x, y")
    torch._dynamo.reset()
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    mine, eager = x.clone(), x.clone()
    be = passnet.backend(passes=folder, inner="inductor",
                         tune=TuneCache(tmp_path / "tune.sqlite"))  # fmt: skip
    with torch.no_grad():
        out, ref = torch.compile(AddsOne(), backend=be)(mine, y), AddsOne()(eager, y)
    assert "tuned (timed)" in be.reports[0].tune
    assert torch.equal(out, ref) and torch.equal(mine, eager)
