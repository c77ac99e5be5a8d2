"""Free literals (issue 38): a rule module's ``FREE_LITERALS`` leaves literals that follow the
input (a LayerNorm's normalized_shape and eps, a softmax dim, a view's sizes, a scale) free;
the matcher binds them per match and passes them to ``replacement_args``; ``passnet synth``
emits such generic rules by default, so a rule synthesised for hidden 128 fires on 192 and 64.

Kernels run under the Triton interpreter on CPU (TRITON_INTERPRET is set before anything here
can import triton).
"""

# ruff: noqa: E402
from __future__ import annotations

import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import importlib.util
import json
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from helpers.passes import write_pass

import passnet
from passnet.integrity.policy import check_pass_dir
from passnet.passes.loader import PassLoadError, load_pass_dir, write_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.passes.pattern import bound_pattern, free_literals, prepare_pattern
from passnet.scores.compare import compare_outputs
from passnet.synth.graph import select_all, trace_graph
from passnet.synth.rules import plan_rules, rule_modules

ADD_LN = """
import torch

{free}

def pattern(x, r, w, b):
    return torch.nn.functional.layer_norm(x + r, (128,), w, b, 1e-12)

def replacement_args(x, r, w, b, *, normalized_shape=(128,), eps=1e-12):
    return (x, r, w, b, normalized_shape, eps)

@torch.fx.wrap
def fused_add_layer_norm(x, r, w, b, normalized_shape, eps):
    if tuple(normalized_shape) != tuple(x.shape[-1:]):
        raise ValueError("normalized_shape is not the last dim")
    return torch.nn.functional.layer_norm(x + r, normalized_shape, w, b, eps)

def replacement_func():
    return fused_add_layer_norm
"""
FREE = (
    'FREE_LITERALS = {"normalized_shape": "layer_norm.normalized_shape", "eps": "layer_norm.eps"}'
)


class AddLayerNorm(torch.nn.Module):
    """A residual add and a LayerNorm of width ``hidden``: BERT's output block."""

    def __init__(self, hidden: int, eps: float = 1e-12) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(hidden)
        self.w = torch.nn.Parameter(torch.randn(hidden, generator=g))
        self.b = torch.nn.Parameter(torch.randn(hidden, generator=g))
        self.hidden, self.eps = hidden, eps

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x + r, (self.hidden,), self.w, self.b, self.eps)


def _inputs(*shape: int, dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(sum(shape))
    return [torch.randn(*shape, generator=g).to(dtype) for _ in range(2)]


def _rule(tmp_path: Path, free: str = FREE, name: str = "p") -> Path:
    return write_pass(tmp_path / name, {"FuseAddLayerNorm.py": ADD_LN.format(free=free)})


def _exact(gm: torch.fx.GraphModule, module: torch.nn.Module, args: list) -> None:
    with torch.no_grad():
        torch.testing.assert_close(gm(*args), module(*args), rtol=0, atol=0)


# -- the contract and the matcher ------------------------------------------------------------
def test_a_free_literal_binds_the_graphs_value_per_match(tmp_path: Path) -> None:
    """One rule written for hidden 128 and eps 1e-12 fires on 192 and 64 with their own eps;
    the replacement gets the graph's values (the result is bit-exact only with them)."""
    folder = _rule(tmp_path)
    for hidden, eps in ((128, 1e-12), (192, 1e-5), (64, 1e-6)):
        module, gm = AddLayerNorm(hidden, eps), to_fx(AddLayerNorm(hidden, eps))
        gm.load_state_dict(module.state_dict())
        report = apply_passes(gm, load_pass_dir(folder))
        assert report.matches == {"FuseAddLayerNorm": 1}, report.rules
        assert f"({hidden},), {eps!r})" in gm.code  # the bound literals, in the rewritten call
        _exact(gm, module, _inputs(2, 8, hidden))


def test_the_static_policy_reads_the_declaration(tmp_path: Path) -> None:
    """A module-level dict of strings and keyword defaults that are literals: nothing the
    policy needs a new name for."""
    rule = """
    import torch

    FREE_LITERALS = {"dim": "softmax.dim", "scale": ["mul.b"]}

    def pattern(x):
        return torch.softmax(x * 0.125, -1)

    def replacement_args(x, *, dim=-1, scale=0.125):
        return (x, dim, scale)

    @torch.fx.wrap
    def fused(x, dim, scale):
        if dim % x.dim() != x.dim() - 1:
            raise ValueError("the kernel reduces the last dim")
        return x.new_empty(x.shape)

    def replacement_func():
        return fused
    """
    assert check_pass_dir(write_pass(tmp_path / "p", {"Softmax.py": rule})) == []


def test_without_the_declaration_a_rule_matches_as_before_and_says_what_to_free(
    tmp_path: Path,
) -> None:
    folder = _rule(tmp_path, free="")
    gm = to_fx(AddLayerNorm(128))
    assert apply_passes(gm, load_pass_dir(folder)).total == 1
    (report,) = apply_passes(to_fx(AddLayerNorm(192)), load_pass_dir(folder)).rules
    assert report.matches == 0
    assert (
        "argument 1 (normalized_shape): pattern has (128,), graph has (192,)" in report.diagnostic
    )
    assert (
        'FREE_LITERALS = {"normalized_shape": "layer_norm.normalized_shape"}' in report.diagnostic
    )


def test_upstreams_loader_reads_a_rule_with_free_literals(tmp_path: Path) -> None:
    """Upstream imports the module and calls replacement_args(*args): the extra module-level
    name is ignored and the keywords' defaults are the pattern's own literals."""
    path = _rule(tmp_path) / "FuseAddLayerNorm.py"
    spec = importlib.util.spec_from_file_location("FuseAddLayerNorm", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x, r = _inputs(2, 8, 128)
    w, b = torch.ones(128), torch.zeros(128)
    args = module.replacement_args(x, r, w, b)
    assert args[4:] == ((128,), 1e-12)
    torch.testing.assert_close(module.replacement_func()(*args), module.pattern(x, r, w, b))


def test_a_free_literal_binds_only_its_kind_and_one_value_per_keyword(tmp_path: Path) -> None:
    """``(128,)`` binds a one-item sequence, not ``(4, 192)``; one keyword in two places
    binds only where both hold the same value."""
    two = """
    import torch
    F = torch.nn.functional
    FREE_LITERALS = {"eps": ["layer_norm.eps", "layer_norm_1.eps"],
                     "normalized_shape": ["layer_norm.normalized_shape",
                                          "layer_norm_1.normalized_shape"]}

    def pattern(x, w, b):
        y = F.layer_norm(x, (128,), w, b, 1e-5)
        return F.layer_norm(y, (128,), w, b, 1e-5)

    def replacement_args(x, w, b, *, eps=1e-5, normalized_shape=(128,)):
        return (x, w, b, normalized_shape, eps)

    @torch.fx.wrap
    def twice(x, w, b, normalized_shape, eps):
        y = F.layer_norm(x, normalized_shape, w, b, eps)
        return F.layer_norm(y, normalized_shape, w, b, eps)

    def replacement_func():
        return twice
    """
    folder = write_pass(tmp_path / "two", {"Twice.py": two})

    class Twice(torch.nn.Module):
        def __init__(self, shape: tuple[int, ...], eps: tuple[float, float]) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.rand(shape))
            self.b = torch.nn.Parameter(torch.rand(shape))
            self.shape, self.eps = shape, eps

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = F.layer_norm(x, self.shape, self.w, self.b, self.eps[0])
            return F.layer_norm(y, self.shape, self.w, self.b, self.eps[1])

    for shape, eps, fires, why in [
        ((192,), (1e-6, 1e-6), 1, ""),
        ((192,), (1e-6, 1e-5), 0, "free literal 'eps' is 1e-06 elsewhere in the match"),
        ((4, 192), (1e-5, 1e-5), 0, "free literal 'normalized_shape' binds only a sequence of 1"),
    ]:
        module = Twice(shape, eps)
        gm = to_fx(module)
        (report,) = apply_passes(gm, load_pass_dir(folder)).rules
        assert report.matches == fires and why in (report.diagnostic or ""), report
        if fires:
            _exact(gm, module, [torch.randn(2, 3, *shape)])


def test_a_declaration_that_names_nothing_says_so(tmp_path: Path) -> None:
    cases = {
        '{"eps": "layernorm.eps"}': "the pattern has no call 'layernorm'",
        '{"eps": "layer_norm.epsilon"}': "layer_norm has no argument 'epsilon'",
        '{"w": "layer_norm.weight"}': "layer_norm's weight is no literal in the pattern",
        '{"epsilon": "layer_norm.eps"}': "replacement_args takes no keyword 'epsilon'",
    }
    for i, (free, why) in enumerate(cases.items()):
        folder = _rule(tmp_path, f"FREE_LITERALS = {free}", f"p{i}")
        (report,) = apply_passes(to_fx(AddLayerNorm(128)), load_pass_dir(folder)).rules
        assert report.matches == 0 and why in (report.diagnostic or ""), (free, report)
    wrong_default = ADD_LN.format(free=FREE).replace("eps=1e-12)", "eps=1e-5)")
    folder = write_pass(tmp_path / "default", {"FuseAddLayerNorm.py": wrong_default})
    (report,) = apply_passes(to_fx(AddLayerNorm(128)), load_pass_dir(folder)).rules
    assert "eps must default to the pattern's literal 1e-12" in (report.diagnostic or "")
    folder = _rule(tmp_path, 'FREE_LITERALS = ["eps"]', "list")
    with pytest.raises(PassLoadError, match="FREE_LITERALS is a list"):
        load_pass_dir(folder)


def test_the_bound_pattern_computes_what_the_graph_did() -> None:
    """What a fallback (or a custom op's fake kernel) runs at a match: the pattern with the
    match's literals."""
    scope: dict = {"torch": torch}
    exec(textwrap.dedent(ADD_LN.format(free="")), scope)  # noqa: S102 - the test's own source
    pattern = prepare_pattern(scope["pattern"], {"normalized_shape": "layer_norm.normalized_shape",
                                                  "eps": "layer_norm.eps"})  # fmt: skip
    assert free_literals(pattern) == {"normalized_shape": (128,), "eps": 1e-12}
    x, r = _inputs(2, 3, 192)
    w, b = torch.rand(192), torch.rand(192)
    got = bound_pattern(pattern, {"normalized_shape": (192,), "eps": 1e-5})(x, r, w, b)
    torch.testing.assert_close(got, F.layer_norm(x + r, (192,), w, b, 1e-5), rtol=0, atol=0)


# -- passnet synth: generic rules ----------------------------------------------------------
def _synth(tmp_path: Path, module: torch.nn.Module, args: list, generic: bool = True,
           name: str = "pass") -> Path:  # fmt: skip
    """The pass ``passnet synth`` writes for one traced module (without verification)."""
    traced = trace_graph(module, args)
    groups = select_all(traced)
    assert not isinstance(groups, str), groups
    folder = tmp_path / name
    write_pass_dir(folder, rule_modules("t", plan_rules([traced], groups, generic)))
    assert check_pass_dir(folder) == []
    return folder


def _applied(folder: Path, module: torch.nn.Module, args: list) -> tuple[int, int | None]:
    """Matches of the pass in ``module`` and the tightest level its outputs pass at."""
    gm = to_fx(module)
    fired = apply_passes(gm, load_pass_dir(folder)).total
    with torch.no_grad():
        got, ref = gm(*args), module(*args)
    got, ref = (list(v) if isinstance(v, (tuple, list)) else [v] for v in (got, ref))
    return fired, compare_outputs(got, ref).tightest_passing_t


def test_a_rule_synthesised_for_hidden_128_fires_on_192_and_64(tmp_path: Path) -> None:
    generic = _synth(tmp_path, AddLayerNorm(128), _inputs(2, 8, 128))
    source = next(generic.glob("synth_*.py")).read_text()
    assert '"eps": "layer_norm.eps"' in source and "cmask = cols < n0" in source
    literal = _synth(tmp_path, AddLayerNorm(128), _inputs(2, 8, 128), generic=False, name="lit")
    for hidden, eps, dtype in ((192, 1e-5, torch.float32), (64, 1e-6, torch.float32),
                               (192, 1e-12, torch.bfloat16)):  # fmt: skip
        module = AddLayerNorm(hidden, eps).to(dtype)
        fired, t = _applied(generic, module, _inputs(3, 5, hidden, dtype=dtype))
        assert fired == 1 and t is not None and t <= -5, (hidden, dtype, t)
        (report,) = apply_passes(to_fx(module), load_pass_dir(literal)).rules
        assert report.matches == 0
        assert f"pattern has (128,), graph has ({hidden},)" in report.diagnostic


def test_one_generic_rule_serves_variants_a_literal_rule_each_served(tmp_path: Path) -> None:
    traced = [trace_graph(AddLayerNorm(h), _inputs(2, 4, h)) for h in (16, 128)]
    chosen = [g for t in traced for g in select_all(t)]  # type: ignore[union-attr]
    assert [len(plan_rules(traced, chosen, generic).rules) for generic in (True, False)] == [1, 2]
    (rule,) = plan_rules(traced, chosen).rules
    assert rule.summary("r")["free"] == {"normalized_shape": "layer_norm.normalized_shape",
                                         "eps": "layer_norm.eps"}  # fmt: skip
    assert rule.summary("r")["matches"] == 2


class ScaledSoftmax(torch.nn.Module):
    """Attention scores: scaled by 1/sqrt(head dim), masked, softmax over ``dim``."""

    def __init__(self, head: int, dim: int) -> None:
        super().__init__()
        self.scale, self.dim = 1.0 / head**0.5, dim

    def forward(self, q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.softmax(q * self.scale + mask, dim=self.dim)


def test_a_softmax_dim_and_a_scale_are_free(tmp_path: Path) -> None:
    """Synthesised for head dim 64 (scale 0.125) and dim=-1: fires on head dim 128 written as
    dim=3 (the same row); on dim=1 it fires too, and its wrapper refuses the call."""
    folder = _synth(tmp_path, ScaledSoftmax(64, -1), _inputs(2, 4, 16, 16))
    source = next(folder.glob("synth_*.py")).read_text()
    assert '"scalar": "mul.b"' in source and '"dim": "softmax.dim"' in source
    assert "dim % 4 == 3" in source
    fired, t = _applied(folder, ScaledSoftmax(128, 3), _inputs(1, 2, 8, 24))
    assert fired == 1 and t is not None and t <= -5
    gm = to_fx(ScaledSoftmax(128, 1))
    assert apply_passes(gm, load_pass_dir(folder)).total == 1
    with pytest.raises(ValueError, match="shapes outside those generated for"):
        gm(*_inputs(1, 2, 8, 24))


class ViewAddLayerNorm(torch.nn.Module):
    """A flat hidden state viewed as [batch, seq, hidden], a residual, a LayerNorm."""

    def __init__(self, batch: int, hidden: int) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.rand(hidden))
        self.b = torch.nn.Parameter(torch.rand(hidden))
        self.batch, self.hidden = batch, hidden

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        h = x.view(self.batch, -1, self.hidden) + r
        return F.layer_norm(h, (self.hidden,), self.w, self.b, 1e-5)


def test_a_views_sizes_are_free(tmp_path: Path) -> None:
    def args(batch: int, seq: int, hidden: int) -> list[torch.Tensor]:
        return [torch.randn(batch * seq, hidden), torch.randn(batch, seq, hidden)]

    folder = _synth(tmp_path, ViewAddLayerNorm(2, 128), args(2, 8, 128))
    source = next(folder.glob("synth_*.py")).read_text()
    assert '"size": "view.1"' in source and '"size_1": "view.3"' in source
    for batch, seq, hidden in ((4, 3, 192), (1, 5, 64)):
        fired, t = _applied(folder, ViewAddLayerNorm(batch, hidden), args(batch, seq, hidden))
        assert fired == 1 and t is not None and t <= -5, (batch, hidden, t)


def test_a_synthesised_generic_rule_reads_as_upstream_reads_it(tmp_path: Path) -> None:
    """Upstream calls replacement_args(*args): the pattern's own literals reach the kernel,
    which then computes the pattern on the configuration it was written for."""
    folder = _synth(tmp_path, AddLayerNorm(128), _inputs(2, 8, 128))
    path = next(folder.glob("synth_*.py"))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x, r = _inputs(2, 8, 128)
    w, b = torch.rand(128), torch.rand(128)
    args = module.replacement_args(x, r, w, b)
    assert args[4:] == ((128,), 1e-12)
    torch.testing.assert_close(module.replacement_func()(*args), module.pattern(x, r, w, b))


# -- passnet accelerate ----------------------------------------------------------------------
class TwoBlocks(torch.nn.Module):
    """Two encoder blocks' residual add + LayerNorm around a linear, hidden ``hidden``."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.ModuleList(torch.nn.Linear(hidden, hidden) for _ in range(2))
        self.norm = torch.nn.ModuleList(torch.nn.LayerNorm(hidden, eps=1e-12) for _ in range(2))
        for n in self.norm:
            torch.nn.init.normal_(n.weight)
            torch.nn.init.normal_(n.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for lin, norm in zip(self.lin, self.norm, strict=True):
            x = norm(torch.relu(lin(x)) + x)
        return x


@pytest.mark.parametrize("inner", ["eager", "inductor"])
def test_accelerate_fires_a_rule_synthesised_for_128_in_a_192_model(
    tmp_path: Path, inner: str
) -> None:
    generic = _synth(tmp_path, AddLayerNorm(128), _inputs(2, 8, 128))
    literal = _synth(tmp_path, AddLayerNorm(128), _inputs(2, 8, 128), generic=False, name="lit")
    model, x = TwoBlocks(192).eval(), torch.randn(2, 6, 192)
    for folder, sites in ((generic, 2), (literal, 0)):
        torch._dynamo.reset()
        be = passnet.backend(passes=[folder], inner=inner)
        with torch.no_grad():
            out = torch.compile(model, backend=be)(x)
            cmp = compare_outputs([out], [model(x)])
        (rule,) = be.summary().values()
        assert rule["count"] == sites and rule["fallback_calls"] == 0, rule
        assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -4, cmp
        if not sites:
            assert "pattern has (128,), graph has (192,)" in rule["miss"]


def test_the_synth_command_emits_generic_rules_unless_told_literal(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from passnet.cli import app

    task = (
        Path(__file__).resolve().parent / "data" / "suite-cpu" / "fusible_add_layer_norm_2f1524fe"
    )
    for flags, shapes, rules in (([], "generic", 1), (["--literal-shapes"], "literal", 3)):
        out = tmp_path / shapes
        res = CliRunner().invoke(app, ["synth", str(task), "--out", str(out), "--no-verify",
                                       *flags])  # fmt: skip
        assert res.exit_code == 0, res.output
        report = json.loads((out / task.name / "synth.json").read_text())
        assert report["shapes"] == shapes and len(report["rules"]) == rules, report
        sources = [p.read_text() for p in (out / task.name / "pass").glob("synth_*.py")]
        assert all(("FREE_LITERALS = {" in s) == (shapes == "generic") for s in sources)


def test_a_zoo_bert_at_hidden_192_fuses_every_residual_layer_norm(tmp_path: Path) -> None:
    """The zoo's BERT built at a hidden size no suite task has (``--hidden``): the rule
    synthesised from a hidden-128 add + LayerNorm fuses all five of its sites, correctly."""
    from passnet.accelerate.models import load_model

    generic = _synth(tmp_path, AddLayerNorm(128), _inputs(2, 8, 128))
    loaded = load_model("bert", batch=2, size=8, hidden=192)
    assert loaded.shape.endswith("-h192")
    torch._dynamo.reset()
    be = passnet.backend(passes=[generic], inner="eager")
    with torch.no_grad():
        out, ref = loaded(torch.compile(loaded.model, backend=be)), loaded()
    assert be.coverage()["add+layer_norm"] == (5, 5)
    cmp = compare_outputs(dict(out), dict(ref))
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -4, cmp


def test_the_zoo_library_fuses_t5s_residual_rms_norm_at_a_new_hidden_size() -> None:
    """``examples/zoo_passes`` (generic rules, committed) on the zoo's T5 encoder built at
    hidden size 192: all four residual add + RMSNorm sites fused (T5's float32 graph has no
    cast between ``rsqrt`` and the multiply, unlike the half-precision tasks' patterns), and
    the outputs correct."""
    from passnet.accelerate.models import load_model

    library = Path(__file__).resolve().parents[1] / "examples" / "zoo_passes"
    loaded = load_model("t5-encoder", batch=1, size=8, hidden=192)
    torch._dynamo.reset()
    be = passnet.backend(passes=[library], inner="eager")
    with torch.no_grad():
        out, ref = loaded(torch.compile(loaded.model, backend=be)), loaded()
    assert be.coverage()["add+rms_norm"] == (4, 4)
    cmp = compare_outputs(dict(out), dict(ref))
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -4, cmp


@pytest.mark.parametrize(
    "model, sites",
    [("swin", {"add+layer_norm": (3, 3), "bias+activation": (2, 2)}),
     ("convnext", {"bias+activation": (4, 4)}),
     ("resnet", {"bias+activation": (4, 4)})],  # residual add + ReLU, from 5-D tasks
)  # fmt: skip
def test_the_zoo_library_fuses_vision_models_sites_at_a_new_width(
    model: str, sites: dict[str, tuple[int, int]]
) -> None:
    """Swin (``embed_dim``), ConvNeXt and ResNet (``hidden_sizes``, every stage scaled) built
    at a first-stage width of 24, which no task has: ``examples/passes`` and
    ``examples/zoo_passes`` fuse every residual add + LayerNorm and bias + activation site
    (ResNet's residual batch_norm + add + ReLU by a rule from 5-D tasks, rank-padded), no rule
    falling back, outputs correct."""
    from passnet.accelerate.models import load_model

    root = Path(__file__).resolve().parents[1] / "examples"
    loaded = load_model(model, batch=1, size=32, hidden=24)
    assert loaded.shape.endswith("-h24")
    torch._dynamo.reset()
    be = passnet.backend(passes=[root / "passes", root / "zoo_passes"], inner="eager")
    with torch.no_grad():
        out, ref = loaded(torch.compile(loaded.model, backend=be)), loaded()
    assert {k: v for k, v in be.coverage().items() if v[0]} == sites
    cmp = compare_outputs(dict(out), dict(ref))
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -4, cmp


def test_a_stage_width_list_keeps_its_ratios() -> None:
    from passnet.dataset.zoo import hidden_width, resolve

    zoo = resolve("transformers/convnext")
    with hidden_width(24) as applied:
        model = zoo.build(zoo.shapes[0])
    assert applied == ["hidden_sizes"] and model.config.hidden_sizes == [24, 48, 96, 192]
