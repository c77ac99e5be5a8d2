"""Pass folders: loading (and every way a folder can be broken), matching, rewriting, diagnostics.

Kernels run under the Triton interpreter on CPU, so TRITON_INTERPRET is set before anything in
this module can import triton.
"""

# ruff: noqa: E402
from __future__ import annotations

import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import shutil
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
import torch
import torch.nn.functional as F
from helpers.passes import (
    BERT,
    PASSES,
    RESNET18,
    ROOT,
    SWIN_0,
    fixture_module,
    needs_fixtures,
    simple_rule,
    write_pass,
)

from passnet.graph.sample import load_module, load_sample
from passnet.passes.closest import PartialMatcher
from passnet.passes.loader import PassLoadError, PassSet, load_pass_dir
from passnet.passes.matcher import apply_passes, find_matches, make_backend, to_fx, trace_pattern
from passnet.passes.pattern import Match, prepare_pattern


def apply_rules(tmp_path: Path, module: torch.nn.Module, files: dict[str, str]) -> list:
    """Rule reports of a throwaway pass folder applied to the FX graph of ``module``."""
    return apply_passes(to_fx(module), load_pass_dir(write_pass(tmp_path / "p", files))).rules


@pytest.mark.parametrize(
    "folder, names",
    [
        ("add_relu", ["FuseAddRelu"]),
        ("multi_output", ["AddAndRelu"]),
        ("two_funcs", ["ScaleByTwo", "SiLU"]),
        ("helper_import", ["MulAdd", "MulSub"]),
        ("no_match", ["FuseGelu"]),
    ],
)
def test_load_good_folders(folder: str, names: list[str]) -> None:
    ps = load_pass_dir(PASSES / folder)
    assert isinstance(ps, PassSet) and ps.names == names
    for rule in ps.rules:
        assert rule.path == PASSES / folder / f"{rule.name}.py"
        assert callable(rule.pattern) and callable(rule.replacement_args)
        assert rule.replacement is rule.module.replacement_func()
        assert rule.replacement.__module__.startswith("pass_dir.")


def test_helper_module_is_shared_by_both_import_forms() -> None:
    ps = load_pass_dir(PASSES / "helper_import")
    mul_add, mul_sub = ps.rules
    assert mul_add.replacement.__module__ == "pass_dir.kernels"
    assert mul_sub.module.kernels.fused_mul_add is mul_add.replacement  # one module object
    assert "pass_dir" not in sys.modules and not _pass_module_left("kernels")


def _pass_module_left(name: str) -> bool:
    """Whether ``sys.modules[name]`` is a pass folder's module (an installed package of that
    name, such as Hugging Face's ``kernels`` once transformers imported it, may be there)."""
    return getattr(sys.modules.get(name), "__name__", "").startswith("pass_dir")


def test_two_folders_do_not_mix(tmp_path: Path) -> None:
    rule = """
        from pass_dir.kernels import VALUE
        import kernels
        def pattern(x):
            return x + VALUE
        def replacement_args(x):
            return (x,)
        def replacement_func():
            return kernels.kernel
        """
    for tag in ("a", "b"):
        helper = f"VALUE = '{tag}'\ndef kernel(x):\n    return x\n"
        write_pass(tmp_path / tag, {"R.py": rule, "kernels.py": helper}, rules=["R"])
    a = load_pass_dir(tmp_path / "a")
    assert not _pass_module_left("kernels") and "pass_dir" not in sys.modules
    b = load_pass_dir(tmp_path / "b")
    assert (a.rules[0].module.VALUE, b.rules[0].module.VALUE) == ("a", "b")
    assert a.rules[0].module.kernels.VALUE == "a" and b.rules[0].module.kernels.VALUE == "b"
    assert a.rules[0].replacement is not b.rules[0].replacement


def test_helper_named_like_an_imported_package_does_not_shadow_it(tmp_path: Path) -> None:
    folder = write_pass(tmp_path / "p", {"R.py": simple_rule("return torch.relu(x)")}, ["R"])
    (folder / "torch.py").write_text("raise RuntimeError('shadowed torch')\n")
    assert load_pass_dir(folder).rules[0].module.torch is torch


def test_helper_shadows_an_imported_third_party_module(tmp_path: Path) -> None:
    """CI imported Hugging Face's `kernels` package (through transformers) before loading a pass
    whose helper is `kernels.py`: the folder's file must win, and the package must come back."""
    installed = ModuleType("kernels")
    installed_sub = ModuleType("kernels.layer")
    sys.modules.update({"kernels": installed, "kernels.layer": installed_sub})
    try:
        ps = load_pass_dir(PASSES / "helper_import")
        assert ps.rules[0].replacement.__module__ == "pass_dir.kernels"
        assert sys.modules["kernels"] is installed and sys.modules["kernels.layer"] is installed_sub
    finally:
        del sys.modules["kernels"], sys.modules["kernels.layer"]


def test_reload_sees_same_second_edit(tmp_path: Path) -> None:
    """A stale .pyc would hide an edit of the same size made within the same second."""
    folder = write_pass(tmp_path / "p", {"R.py": simple_rule("return x + 1")})
    assert load_pass_dir(folder).rules[0].pattern(1) == 2
    (folder / "R.py").write_text((folder / "R.py").read_text().replace("x + 1", "x + 7"))
    assert load_pass_dir(folder).rules[0].pattern(1) == 8
    assert not (folder / "__pycache__").exists()


@pytest.mark.parametrize(
    "folder, expected",
    [
        ("syntax_error", ["syntax_error/BrokenSyntax.py:11: SyntaxError: 'await' outside"]),
        ("missing_func", ["missing_func/NoReplacementFunc.py", "`replacement_func`"]),
        ("unstable_func", ["unstable_func/LambdaReplacement.py:14", "unstable", "lambda"]),
    ],
)
def test_broken_folders(folder: str, expected: list[str]) -> None:
    with pytest.raises(PassLoadError) as err:
        load_pass_dir(PASSES / folder)
    for text in expected:
        assert text in str(err.value)


ARGS = "def replacement_args(x):\n    return (x,)\n"
FACTORY = "def pattern(x):\n    return x\n" + ARGS + "def replacement_func():\n    "


# fmt: off
@pytest.mark.parametrize("source, expected", [
    ("import torch\n\nraise RuntimeError('no GPU')\n", "R.py:3: import of R.py failed: RuntimeError: no GPU"),
    ("pattern = 3\n" + ARGS, "R.py: `pattern` is a int, not a function"),
    (FACTORY.replace("func()", "func(x)") + "return x\n", "R.py:5: replacement_func() must take no arguments (it takes x)"),
    (FACTORY + "def k(x):\n        return x\n    return k\n", "R.py:5: replacement_func() is unstable: it returns a nested function"),
    ("import functools\n" + FACTORY + "return functools.partial(print)\n", "R.py:6: replacement_func() is unstable: two calls returned different objects"),
    (FACTORY + "return 3\n", "R.py:5: replacement_func() returned a int, not a callable"),
])
# fmt: on
def test_bad_rule_modules(tmp_path: Path, source: str, expected: str) -> None:
    with pytest.raises(PassLoadError) as err:
        load_pass_dir(write_pass(tmp_path / "p", {"R.py": source}))
    assert str(err.value).startswith("p/" + expected), str(err.value)


@pytest.mark.parametrize(
    "json_text, expected",
    [
        (None, "sorted_output_pass_rule_names.json: missing"),
        ("[oops", "invalid JSON"),
        ('{"R": 1}', "must be a JSON list of module stems"),
        ('["R", 3]', "must be a JSON list of module stems"),
        ('["Absent"]', "'Absent' but p/Absent.py does not exist"),
    ],
)
def test_bad_rule_lists(tmp_path: Path, json_text: str | None, expected: str) -> None:
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "R.py").write_text(simple_rule("return x"))
    if json_text is not None:
        (folder / "sorted_output_pass_rule_names.json").write_text(json_text)
    with pytest.raises(PassLoadError, match=expected.replace("[", r"\[")):
        load_pass_dir(folder)


def test_unclosed_parenthesis_and_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(PassLoadError, match=r"p/R.py:2: SyntaxError: '\(' was never closed"):
        load_pass_dir(write_pass(tmp_path / "p", {"R.py": "def pattern(x):\n    return f(x\n"}))
    with pytest.raises(PassLoadError, match="does not exist"):
        load_pass_dir(tmp_path / "nowhere")


class AddRelu(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor, w: torch.Tensor) -> tuple:
        s = a + b
        r = F.relu(s, inplace=False)
        return s * 2.0, r * torch.sigmoid(r), F.linear(r, w)


def toy_inputs() -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return [torch.randn(n, 33, generator=g) for n in (4, 4, 5)]


def assert_same(ref: tuple, out: tuple) -> None:
    for r, o in zip(ref, out, strict=True):
        torch.testing.assert_close(o, r)


def test_multi_output_and_two_functions_rewrite_toy() -> None:
    mod, x = AddRelu(), toy_inputs()
    gm = to_fx(mod)
    assert apply_passes(gm, load_pass_dir(PASSES / "multi_output")).matches == {"AddAndRelu": 1}
    report = apply_passes(gm, load_pass_dir(PASSES / "two_funcs"))
    assert report.matches == {"ScaleByTwo": 1, "SiLU": 1} and report.total == 2
    assert "add_relu_pair = pass_dir_AddAndRelu_add_relu_pair(a, b)" in (code := gm.code)
    assert "add_relu_pair[0]" in code and "add_relu_pair[1]" in code
    assert "pass_dir_ScaleByTwo_scale(getitem, 2.0)" in code and "pass_dir_SiLU_silu(" in code
    assert "relu(" not in code.replace("add_relu_pair", "") and "sigmoid" not in code
    assert_same(mod(*x), gm(*x))


def test_helper_import_rules_rewrite_toy() -> None:
    class MulAddSub(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
            return a * b + c, (a * c - b).relu()

    mod, x = MulAddSub(), toy_inputs()[:2] + [torch.randn(4, 33)]
    gm = to_fx(mod)
    report = apply_passes(gm, load_pass_dir(PASSES / "helper_import"))
    assert report.matches == {"MulAdd": 1, "MulSub": 1}
    assert "pass_dir_kernels_fused_mul_add(a, b, c)" in gm.code
    assert_same(mod(*x), gm(*x))


def test_kwargs_and_defaults_are_normalised(tmp_path: Path) -> None:
    class M(torch.nn.Module):
        def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> tuple:
            y = F.layer_norm(x, (33,), weight=w, bias=b, eps=1e-05)
            return F.relu(y, inplace=False), y.transpose(0, 1), F.dropout(y, 0.1, False)

    files = {
        "Relu.py": simple_rule("return F.relu(x)"),  # default inplace=False filled in
        "Ln.py": simple_rule("return F.layer_norm(x, [33], w, b, 1e-05)", "x, w, b"),
        "Tr.py": simple_rule("return x.transpose(dim0=0, dim1=1)"),
        "Drop.py": simple_rule("return F.dropout(x, p=0.1, training=False, inplace=False)"),
    }
    assert [r.matches for r in apply_rules(tmp_path, M(), files)] == [1, 1, 1, 1]
    graph = trace_pattern(lambda x: F.relu(x, inplace=True))
    relu = next(n for n in graph.nodes if n.op == "call_function")
    assert relu.args[1] is True and relu.kwargs == {}


def test_overlapping_matches_are_removed(tmp_path: Path) -> None:
    class Chain(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(torch.relu(torch.relu(torch.relu(torch.relu(x)))))

    folder = write_pass(tmp_path / "p", {"R.py": simple_rule("return torch.relu(torch.relu(x))")})
    gm = to_fx(Chain())
    assert apply_passes(gm, load_pass_dir(folder)).total == 2
    assert gm.code.count("fake_kernel(") == 2 and gm.code.count("torch.relu(") == 1


def test_replacement_args_constants_computed_and_untraceable(tmp_path: Path) -> None:
    common = """
        import torch
        def pattern(x, y):
            return x * y
        @torch.fx.wrap
        def mul_kernel(x, y, scale, route):
            assert route == "fast"
            return x * y * scale
        def replacement_func():
            return mul_kernel
        """
    variants = {
        "const.py": "def replacement_args(x, y):\n    return (y, x, 1.0, 'fast')\n",
        "computed.py": "def replacement_args(x, y):\n    return (x, y, y.shape[-1] / y.shape[-1], 'fast')\n",
        "untraceable.py": "def replacement_args(x, y):\n    if (x > 0).all():\n        pass\n    return (x, y, 1.0, 'fast')\n",
    }

    class Mul(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return a * b

    x = [torch.randn(3, 4), torch.randn(3, 4)]
    for name, tail in variants.items():
        folder = write_pass(tmp_path / name[:-3], {name: textwrap.dedent(common) + tail})
        gm = to_fx(Mul())
        assert apply_passes(gm, load_pass_dir(folder)).total == 1
        torch.testing.assert_close(gm(*x), x[0] * x[1])
        if name == "const.py":
            assert "mul_kernel = pass_dir_const_mul_kernel(b, a, 1.0, 'fast')" in gm.code
        if name == "computed.py":  # replacement_args' own ops are inlined before the call
            assert "getattr" in gm.code and "pass_dir_computed_mul_kernel(a, b, truediv" in gm.code
        if name == "untraceable.py":  # falls back to calling replacement_args at run time
            assert "mul_kernel = pass_dir_untraceable_mul_kernel(a, b)" in gm.code


def test_rule_problems_become_diagnostics(tmp_path: Path) -> None:
    files = {
        "Unused.py": simple_rule("return torch.relu(x)", "x, y"),
        "Arity.py": simple_rule("return torch.relu(x)").replace(
            "def replacement_args(x)", "def replacement_args(x, y)"
        ),
    }
    unused, arity = apply_rules(tmp_path, AddRelu(), files)
    assert unused.matches == 0 and "parameter(s) y not used" in unused.diagnostic
    assert arity.matches == 0 and "replacement_args cannot take the pattern's 1 inputs" in (
        arity.diagnostic
    )


def test_escaping_intermediate_is_diagnosed(tmp_path: Path) -> None:
    class Escape(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple:
            s = a + b
            return F.relu(s, inplace=False), s * 3

    rule_src = simple_rule("return F.relu(x + y, inplace=False)", "x, y")
    (rule,) = apply_rules(tmp_path, Escape(), {"R.py": rule_src})
    assert rule.matches == 0
    assert "pattern op 'add' feeds only 'relu' but graph node 'add' also feeds 'mul'" in (
        rule.diagnostic
    )


def test_make_backend_with_torch_compile() -> None:
    torch._dynamo.reset()
    sink: list = []
    mod, x = AddRelu(), toy_inputs()
    compiled = torch.compile(
        mod, backend=make_backend(load_pass_dir(PASSES / "multi_output"), sink)
    )
    assert_same(mod(*x), compiled(*x))
    assert [r.matches for r in sink] == [{"AddAndRelu": 1}]


def test_inplace_add_in_dynamo_graph_matches(tmp_path: Path) -> None:
    """Dynamo records ``x += y`` as operator.iadd; the add+relu pattern must still match."""

    class Residual(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            out = a * 1.5
            out += b
            return F.relu(out, inplace=True)

    torch._dynamo.reset()
    sink: list = []
    mod, x = Residual(), toy_inputs()[:2]
    compiled = torch.compile(mod, backend=make_backend(load_pass_dir(PASSES / "add_relu"), sink))
    torch.testing.assert_close(compiled(*x), mod(*x))
    assert sink[0].matches == {"FuseAddRelu": 1}


# ------------------------------------------------------- literals that cannot change the result

CONV_BN_RELU_RULE = """
import torch
import torch.nn.functional as F

def pattern(x, w, m, v, g, b):
    y = torch.conv2d(x, w, None, (1, 1), (1, 1), (1, 1), 1)
    y = F.batch_norm(y, m, v, g, b, False, 0.1, 1e-05)
    return F.relu(y, inplace=False)

def replacement_args(x, w, m, v, g, b):
    return (x, w, m, v, g, b)

@torch.fx.wrap
def folded_conv_bn_relu(x, w, m, v, g, b):  # batch norm folded into the convolution
    scale = g / torch.sqrt(v + 1e-05)
    y = torch.conv2d(x, w * scale[:, None, None, None], b - m * scale, 1, 1)
    return y.clamp_min(0)

def replacement_func():
    return folded_conv_bn_relu
"""


def bn_inputs(channels: int = 4) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    mean, var = torch.randn(channels, generator=g), torch.rand(channels, generator=g) + 0.5
    gamma, beta = torch.randn(channels, generator=g), torch.randn(channels, generator=g)
    return [mean, var, gamma, beta]


def test_eval_momentum_and_private_inplace_do_not_block_a_match(tmp_path: Path) -> None:
    """As torchvision's graphs have it: momentum 0.01 in eval mode, relu(inplace=True) on the
    batch norm's result; the synthesised pattern says 0.1 and inplace=False. Neither literal
    can change what the graph computes, so the rule fires and the result is unchanged."""

    class ConvBnRelu(torch.nn.Module):
        def forward(self, x, w, m, v, g, b):  # noqa: ANN001, ANN201 - model.py style
            y = torch.conv2d(x, w, None, (1, 1), (1, 1), (1, 1), 1)
            y = torch.nn.functional.batch_norm(y, m, v, g, b, False, 0.01, 1e-05)
            return torch.nn.functional.relu(y, inplace=True)

    mod = ConvBnRelu()
    gm = to_fx(mod)
    assert "momentum" not in gm.code and "0.01" in gm.code and "inplace = True" in gm.code
    folder = write_pass(tmp_path / "p", {"ConvBnRelu.py": CONV_BN_RELU_RULE})
    assert apply_passes(gm, load_pass_dir(folder)).matches == {"ConvBnRelu": 1}
    code = gm.code
    assert "folded_conv_bn_relu(x, w, m, v, g, b)" in code and "functional" not in code
    x = [torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3), *bn_inputs()]
    torch.testing.assert_close(gm(*x), mod(*x))


def test_inplace_on_a_shared_or_external_input_must_match(tmp_path: Path) -> None:
    """relu(y, inplace=True) where y is read again, or comes from outside the match: the write
    is visible (``z + y`` below is 2 * relu(y)), so ``inplace`` must match exactly."""

    class Shared(torch.nn.Module):
        def __init__(self, inplace: bool) -> None:
            super().__init__()
            self.inplace = inplace

        def forward(self, x, m, v, g, b):  # noqa: ANN001, ANN201
            y = torch.nn.functional.batch_norm(x, m, v, g, b, False, 0.1, 1e-05)
            z = torch.nn.functional.relu(y, inplace=self.inplace)
            return z + y

    both = "y = F.batch_norm(x, m, v, g, b, False, 0.1, 1e-05)\nreturn y, F.relu(y, inplace=False)"
    files = {"Both.py": simple_rule(both, "x, m, v, g, b")}
    (control,) = apply_rules(tmp_path / "a", Shared(inplace=False), files)
    assert control.matches == 1  # the pattern fits this graph but for the literal
    (shared,) = apply_rules(tmp_path / "b", Shared(inplace=True), files)
    assert shared.matches == 0
    assert shared.diagnostic == (
        "closest candidate: node 'batch_norm' (torch.nn.functional.batch_norm) — pattern "
        "output 1: at pattern op 'relu' / graph node 'relu' (relu): argument 1 (inplace): "
        "pattern has False, graph has True (inplace may differ only where the activation's "
        "input is made inside the match and read by nothing else; graph node 'batch_norm' "
        "also feeds 'add')"
    )
    x = [torch.randn(2, 4, 3, 3), *bn_inputs()]
    y = F.batch_norm(x[0], *x[1:], False, 0.1, 1e-05)
    torch.testing.assert_close(Shared(inplace=True)(*x), 2 * F.relu(y))  # what it computes
    (external,) = apply_rules(
        tmp_path / "c", Shared(inplace=True), {"R.py": simple_rule("return F.relu(x)")}
    )
    assert external.matches == 0 and external.diagnostic.endswith(
        "(inplace may differ only where the activation's input is made inside the match and "
        "read by nothing else; graph node 'batch_norm' is an input of the match, not made "
        "inside it)"
    )


def test_inplace_into_a_match_input_no_one_else_reads_is_loose(tmp_path: Path) -> None:
    """VGG's ``conv2d`` then ``relu(inplace=True)`` then ``max_pool2d``: the convolution's
    output comes from outside the match, but nothing else in the graph reads it, so eager's
    write is invisible and a rule written out of place fires; where the convolution's output is
    also returned, the write is visible and the rule must not fire."""

    class Vgg(torch.nn.Module):
        def __init__(self, expose: bool) -> None:
            super().__init__()
            self.expose = expose

        def forward(self, x, w):  # noqa: ANN001, ANN201
            y = torch.conv2d(x, w, None, 1, 1)
            out = F.max_pool2d(F.relu(y, inplace=True), 2, 2)
            return (out, y) if self.expose else out

    rule = simple_rule("return F.max_pool2d(F.relu(x), 2, 2)").replace(
        "return args[0]", "return F.max_pool2d(args[0], 2, 2).clamp_min(0)"  # out of place
    )
    x = [torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3)]
    (private,) = apply_rules(tmp_path / "a", Vgg(expose=False), {"ReluPool.py": rule})
    assert private.matches == 1
    gm = to_fx(Vgg(expose=False))
    apply_passes(gm, load_pass_dir(tmp_path / "a" / "p"))
    torch.testing.assert_close(gm(*x), Vgg(expose=False)(*x))
    (exposed,) = apply_rules(tmp_path / "b", Vgg(expose=True), {"ReluPool.py": rule})
    assert exposed.matches == 0 and "is an input of the match" in exposed.diagnostic


def test_momentum_must_match_in_training_mode(tmp_path: Path) -> None:
    class TrainBn(torch.nn.Module):
        def forward(self, x, m, v, g, b):  # noqa: ANN001, ANN201
            return torch.nn.functional.batch_norm(x, m, v, g, b, True, 0.01, 1e-05)

    def rule(training: bool, momentum: float) -> str:
        call = f"return F.batch_norm(x, m, v, g, b, {training}, {momentum}, 1e-05)"
        return simple_rule(call, "x, m, v, g, b")

    (same,) = apply_rules(tmp_path / "a", TrainBn(), {"Same.py": rule(True, 0.01)})
    assert same.matches == 1
    (other,) = apply_rules(tmp_path / "b", TrainBn(), {"Other.py": rule(True, 0.1)})
    assert other.matches == 0
    assert other.diagnostic == (
        "closest candidate: node 'batch_norm' (torch.nn.functional.batch_norm) — argument 6 "
        "(momentum): pattern has 0.1, graph has 0.01 (momentum may differ only where "
        "training=False on both sides)"
    )
    (eval_,) = apply_rules(tmp_path / "c", TrainBn(), {"Eval.py": rule(False, 0.01)})
    assert eval_.matches == 0 and eval_.diagnostic.endswith(
        "argument 5 (training): pattern has False, graph has True"
    )


def test_inplace_chain_inside_the_match_in_a_dynamo_graph(tmp_path: Path) -> None:
    """Dynamo records ``y += r`` as iadd, whose result is y itself: relu(inplace=True) on it
    writes y's memory. y made inside the match (the batch norm) and read only by the iadd: the
    rule fires. y an input of the match that nothing else reads (the batch norm's output): the
    write is invisible, so the smaller rule fires too (first in the folder, it wins). y a
    graph input: the write would reach the caller, so no match."""

    class BnAddRelu(torch.nn.Module):
        def forward(self, x, r, m, v, g, b):  # noqa: ANN001, ANN201
            y = torch.nn.functional.batch_norm(x, m, v, g, b, False, 0.03, 1e-05)
            y += r
            return torch.nn.functional.relu(y, inplace=True)

    bn_first = "y = F.batch_norm(x, m, v, g, b, False, 0.1, 1e-05)\nreturn F.relu(y + r)"
    files = {
        "AddRelu.py": simple_rule("return F.relu(x + r)", "x, r"),  # x: the match's input
        "BnAddRelu.py": simple_rule(bn_first, "x, r, m, v, g, b"),
    }
    folder = write_pass(tmp_path / "p", files)
    torch._dynamo.reset()
    sink: list = []
    mod, x = BnAddRelu(), [torch.randn(2, 4, 3, 3), torch.randn(2, 4, 3, 3), *bn_inputs()]
    compiled = torch.compile(mod, backend=make_backend(load_pass_dir(folder), sink))
    compiled(*x)
    (report,) = sink
    add_relu, bn_add_relu = report.rules
    assert (add_relu.matches, bn_add_relu.matches) == (1, 0)
    only_bn = write_pass(tmp_path / "q", {"BnAddRelu.py": files["BnAddRelu.py"]})
    torch._dynamo.reset()
    sink.clear()
    torch.compile(mod, backend=make_backend(load_pass_dir(only_bn), sink))(*x)
    assert sink[0].rules[0].matches == 1

    class InputAddRelu(torch.nn.Module):
        def forward(self, x, r):  # noqa: ANN001, ANN201
            x += r
            return torch.nn.functional.relu(x, inplace=True)

    torch._dynamo.reset()
    sink.clear()
    torch.compile(InputAddRelu(), backend=make_backend(load_pass_dir(folder), sink))(*x[:2])
    add_relu = sink[0].rules[0]
    assert add_relu.matches == 0 and "writes into the graph input" in add_relu.diagnostic


def test_inplace_add_whose_write_is_read_later_is_not_replaced(tmp_path: Path) -> None:
    """``x += y`` matched as ``x + y``: a replacement returns a new tensor, so a node that
    reads x after the iadd (an alias kept before it) would see x unwritten. No match there;
    the same graph without the later reader matches."""

    class Aliased(torch.nn.Module):
        def forward(self, a, b):  # noqa: ANN001, ANN201
            x = a * 2.0
            keep = x
            x += b
            return torch.nn.functional.relu(x), keep * 3.0

    class Plain(torch.nn.Module):
        def forward(self, a, b):  # noqa: ANN001, ANN201
            x = a * 2.0
            x += b
            return torch.nn.functional.relu(x)

    rule = simple_rule("return F.relu(x + r)", "x, r").replace(
        "return args[0]", "return F.relu(args[0] + args[1])"
    )  # a replacement that computes the pattern, so outputs can be compared
    folder = write_pass(tmp_path / "p", {"AddRelu.py": rule})
    for module, fires in ((Aliased(), 0), (Plain(), 1)):
        torch._dynamo.reset()
        sink: list = []
        args = [torch.randn(2, 8), torch.randn(2, 8)]
        compiled = torch.compile(module, backend=make_backend(load_pass_dir(folder), sink))
        with torch.no_grad():
            torch.testing.assert_close(compiled(*args), module(*[a.clone() for a in args]))
        (report,) = sink
        assert report.rules[0].matches == fires, report.rules[0].diagnostic
        if not fires:
            assert "in-place 'x_1' writes into 'x', which 'mul_1' reads after it" in (
                report.rules[0].diagnostic or ""
            ), report.rules[0].diagnostic


def test_a_constant_argument_torch_call_is_a_node_in_pattern_and_graph(tmp_path: Path) -> None:
    """``torch.ones(3)`` in model.py stays a node (passnet.graph.tracing, so eager and every
    candidate do the same work); the pattern is traced the same way, so a pattern that makes
    the same call matches it (plain symbolic_trace folded the pattern's call into a constant
    that no graph node could match)."""

    class M(torch.nn.Module):
        def forward(self, x):  # noqa: ANN001, ANN201
            return x * torch.ones(3) + 1.0

    (report,) = apply_rules(tmp_path, M(), {"Ones.py": simple_rule("return x * torch.ones(3) + 1.0")})
    assert report.matches == 1, report.diagnostic


# --------------------------------------------------------------------------- real GraphNet graphs


@needs_fixtures
def test_resnet18_add_relu_rewrite_matches_and_runs() -> None:
    mod, args = fixture_module(RESNET18, size=64)
    gm = to_fx(mod)
    placeholders = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
    assert placeholders == load_sample(RESNET18).arg_names
    report = apply_passes(gm, load_pass_dir(PASSES / "add_relu"))
    assert report.matches == {"FuseAddRelu": 8}  # one per BasicBlock
    code = gm.code
    assert "fused_add_relu = pass_dir_FuseAddRelu_fused_add_relu(" in code
    assert code.count("torch.nn.functional.relu(") == 17 - 8 and " + " not in code
    with torch.no_grad():
        assert_same(mod(*args), gm(*args))


@needs_fixtures
def test_resnet18_private_inplace_and_absent_op(tmp_path: Path) -> None:
    """model.py's ``relu(out, inplace=True)`` reads an add made inside the match and read by
    the relu alone, so a pattern spelling ``inplace=False`` matches it too (it used to miss)."""
    folder = tmp_path / "add_relu"
    shutil.copytree(PASSES / "add_relu", folder)
    rule = folder / "FuseAddRelu.py"
    rule.write_text(rule.read_text().replace("inplace=True", "inplace=False"))
    mod, _ = fixture_module(RESNET18)
    (near,) = apply_passes(to_fx(mod), load_pass_dir(folder)).rules
    assert (near.matches, near.diagnostic) == (8, None)
    (absent,) = apply_passes(to_fx(mod), load_pass_dir(PASSES / "no_match")).rules
    assert absent.diagnostic.startswith(
        "no node calls torch.nn.functional.gelu (graph calls: conv2d x20, batch_norm x20, "
        "relu x17, add x8"
    )


@needs_fixtures
def test_bert_layer_norm_matches_and_near_miss(tmp_path: Path) -> None:
    ln, params = "return F.layer_norm(x + r, (128,), w, b, 1e-12)", "x, r, w, b"
    variants = {"Bad": ln.replace("128", "768"), "Mul": ln.replace("+", "*"), "Good": ln}
    files = {f"{k}.py": simple_rule(v, params) for k, v in variants.items()}  # Good runs last
    bad, mul, good = apply_rules(tmp_path, fixture_module(BERT)[0], files)
    assert good.matches == 5  # the embeddings' ``+=`` (iadd) counts as add
    assert bad.diagnostic == (
        "closest candidate: node 'layer_norm' (torch.nn.functional.layer_norm) — "
        "argument 1 (normalized_shape): pattern has (768,), graph has (128,); declaring it "
        'free would match it: FREE_LITERALS = {"normalized_shape": '
        '"layer_norm.normalized_shape"} (docs/passes.md#free-literals)'
    )
    assert "pattern op 'layer_norm' takes argument 0 (input) from 'mul' (mul) but graph node" in (
        mul.diagnostic
    )


@needs_fixtures
@pytest.mark.parametrize(
    "fixture, spelled, with_bias, expected",
    [
        (BERT, "torch.nn.functional.linear", True, 13),  # graph spells torch._C._nn.linear
        (SWIN_0, "torch._C._nn.linear", True, 5),  # graph spells torch.nn.functional.linear
        (SWIN_0, "torch.nn.functional.linear", False, 2),  # bias=None filled in as default
    ],
)
def test_linear_aliases(
    tmp_path: Path, fixture: Path, spelled: str, with_bias: bool, expected: int
) -> None:
    params = "x, w, b" if with_bias else "x, w"
    lin = simple_rule(f"return {spelled}({params})", params)
    assert apply_rules(tmp_path, fixture_module(fixture)[0], {"Lin.py": lin})[0].matches == expected


@needs_fixtures
def test_resnet18_through_torch_compile() -> None:
    torch._dynamo.reset()
    mod, args = fixture_module(RESNET18, size=64)
    sink: list = []
    compiled = torch.compile(mod, backend=make_backend(load_pass_dir(PASSES / "add_relu"), sink))
    with torch.no_grad():
        assert_same(mod(*args), compiled(*args))
    assert [r.total for r in sink] == [8]  # Dynamo's graph has iadd; the pattern traced add


PAIR_RULE = """
import torch

def pattern(x, y, z):
    return x + y, torch.relu(z)

def replacement_args(x, y, z):
    return (x, y, z)

@torch.fx.wrap
def add_and_relu(x, y, z):
    return x + y, z.clamp_min(0)

def replacement_func():
    return add_and_relu
"""


def test_multi_output_with_independent_outputs_is_reordered(tmp_path: Path) -> None:
    """The sum's user sits between the two outputs, so it must move after the fused call."""

    class Between(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
            s = a + b
            t = s * 2
            return t, torch.relu(c)

    mod, x = Between(), toy_inputs()[:2] + [torch.randn(4, 33)]
    gm = to_fx(mod)
    assert apply_passes(gm, load_pass_dir(write_pass(tmp_path / "p", {"P.py": PAIR_RULE}))).total == 1
    order = [n.name for n in gm.graph.nodes]
    assert order.index("add_and_relu") < order.index("mul")
    assert_same(mod(*x), gm(*x))


def test_multi_output_whose_input_depends_on_an_output_is_refused(tmp_path: Path) -> None:
    class Cycle(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return torch.relu((a + b) * 2)

    (rule,) = apply_rules(tmp_path, Cycle(), {"Pair.py": PAIR_RULE})
    assert rule.matches == 0
    assert rule.diagnostic == (
        "closest candidate: node 'add' (operator.add) — input 'mul' of the match depends on "
        "its outputs"
    )


def _partial_matches(pattern, graph) -> list:  # noqa: ANN001
    """Every match the diagnostic walk (``closest.PartialMatcher``) finds, first wins."""
    claimed: set = set()
    walker = PartialMatcher(pattern, claimed)
    found = []
    for cand in walker.candidates(walker.outputs[0], graph):
        if cand not in claimed and isinstance(m := walker.match_from(cand, graph), Match):
            found.append(m)
            claimed.update(m.compute)
    return found


def test_subgraph_matcher_and_the_diagnostic_walk_agree_on_the_library() -> None:
    """Matches come from torch.fx's SubgraphMatcher; a miss is explained by PassNet's own walk,
    which applies the same rules. On every synthesised pass of the library and the bundled
    pass, each rule on every variant of its task, both find the same nodes."""
    library = ROOT / "examples" / "synth_passes"
    pairs = [(d / "pass", ROOT / "examples" / "suite" / d.name) for d in sorted(library.iterdir())
             if (d / "pass").is_dir()]
    pairs.append((ROOT / "examples" / "passes" / "add_layer_norm",
                  ROOT / "examples" / "tasks" / "bert_add_layer_norm"))
    checked = 0
    for pass_dir, task in pairs:
        rules = load_pass_dir(pass_dir).rules
        for variant in sorted((task / "graphs").glob("*/*")):
            graph = to_fx(load_module(load_sample(variant))).graph
            for rule in rules:
                pattern = prepare_pattern(rule.pattern)
                fx, miss = find_matches(pattern, graph)
                walked = _partial_matches(pattern, graph)
                assert [(set(m.compute), m.inputs, m.outputs) for m in fx] == [
                    (set(m.compute), m.inputs, m.outputs) for m in walked
                ], (task, rule.name)
                assert bool(miss) == (not fx)
                checked += len(fx)
    assert checked >= 150  # 168 with the library of 2026-12-05 (24 passes)


SCALED_PAIR_RULE = """
import torch

def pattern(x, y, z):
    return y * torch.exp(x), z * 0.25

def replacement_args(x, y, z):
    return (x, y, z)

@torch.fx.wrap
def scaled_pair(x, y, z):
    return y * torch.exp(x), z * 0.25

def replacement_func():
    return scaled_pair
"""


def test_a_pattern_op_never_stands_for_a_literal_of_the_graph(tmp_path: Path) -> None:
    """Megatron's ``exp, mul`` beside ``x * 0.25`` (a GraphNet corpus task): the pattern's
    ``y * exp(x)`` tried at the graph's ``z * 0.25`` must fail there (with SubgraphMatcher's
    ``ignore_literals`` it passed, and the match ended without the pattern's input ``x``)."""

    class Mega(torch.nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
            return c * 0.25, b * torch.exp(a)

    (rule,) = apply_rules(tmp_path, Mega(), {"ScaledPair.py": SCALED_PAIR_RULE})
    assert rule.matches == 1, rule.diagnostic
