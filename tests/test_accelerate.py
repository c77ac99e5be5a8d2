"""Whole-model acceleration (passnet/accelerate): the backend inside torch.compile on a real zoo
model through Triton's interpreter, the library's conflict rule, ``passnet accelerate``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")  # before torch._dynamo imports Triton

import pytest
import torch
from helpers.accelerate import triton_op_of
from typer.testing import CliRunner

import passnet
from passnet.accelerate import LibraryError, PassLibrary
from passnet.accelerate.models import ModelError, load_model
from passnet.cli import app
from passnet.scores.compare import compare_outputs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "passes"
BERT_SITES = 5  # embeddings + 2 layers x (attention output, output): add then LayerNorm(128)

RULE = """
import torch

def pattern({args}):
    return {body}

def replacement_args({args}):
    return ({args},)

@torch.fx.wrap
def {fn}({args}):
    {guard}
    return {body}

def replacement_func():
    return {fn}
"""


def _folder(root: Path, name: str, args: str, body: str, guard: str = "pass") -> Path:
    """A pass folder with one rule whose replacement computes its own pattern in torch."""
    folder = root / name
    folder.mkdir(parents=True)
    rule = f"Fuse{name.title().replace('_', '')}"
    code = RULE.format(args=args, body=body, fn=f"fused_{name}", guard=guard)
    (folder / f"{rule}.py").write_text(textwrap.dedent(code), encoding="utf-8")
    (folder / "sorted_output_pass_rule_names.json").write_text(json.dumps([rule]))
    return folder


class AddReluAdd(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return torch.relu(a + b) + c


def _inputs() -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(0)
    return tuple(torch.randn(4, 8, generator=g) for _ in range(3))


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    add_relu = _folder(tmp_path, "add_relu", "x, y", "torch.relu(x + y)")
    add = _folder(tmp_path, "add", "x, y", "x + y")
    return add_relu, add


def test_backend_fires_on_bert_inside_inductor() -> None:
    """A real model: the pass fires at every site, survives Inductor as a custom op, runs."""
    loaded = load_model("bert", batch=1, size=16)
    be = passnet.backend(passes=EXAMPLES, inner="inductor")
    rule = be.library.rules[0].rule
    calls = []
    kernel = rule.replacement
    rule.replacement = lambda *a: calls.append(1) or kernel(*a)  # the op reads it per call
    with torch.no_grad():
        reference = loaded()
        out = loaded(torch.compile(loaded.model, backend=be))
    fired = {rule: n for rule, n in be.fired().items() if n}
    assert fired == {"examples/passes/add_layer_norm:FuseAddLayerNorm": BERT_SITES,
                     "examples/passes/linear_activation:FuseLinearGelu": 2}  # fmt: skip
    assert [r.inner for r in be.reports] == ["inductor"] and not be.reports[0].note
    assert len(calls) == BERT_SITES  # the Triton kernel ran inside Inductor's code
    summary = be.summary()["examples/passes/add_layer_norm:FuseAddLayerNorm"]
    assert summary["where"][1]["module"] == "encoder.layer.0.attention.output.LayerNorm"
    # under Triton's interpreter no triton op can be traced: the opaque op, and why
    assert summary["launch"] == {"custom-op": BERT_SITES}
    assert be.coverage() == {"add+layer_norm": (5, 5), "add+rms_norm": (0, 0),
                             "bias+activation": (2, 2)}  # fmt: skip
    assert "interpreter" in summary["launch_why"]
    comparison = compare_outputs(dict(out), dict(reference))
    assert comparison.tightest_passing_t is not None and comparison.tightest_passing_t <= -4


def test_conflict_rule_earlier_folder_wins(folders: tuple[Path, Path]) -> None:
    add_relu, add = folders
    model, args = AddReluAdd(), _inputs()
    for paths, order, fired, lost in [
        ([add_relu, add], "folders", {"add_relu": 1, "add": 1}, ("add", "add_relu")),
        ([add, add_relu], "folders", {"add": 2, "add_relu": 0}, ("add_relu", "add")),
        ([add, add_relu], "larger", {"add": 1, "add_relu": 1}, ("add", "add_relu")),
    ]:
        lib = PassLibrary.load(paths, order=order)
        gm = torch.fx.symbolic_trace(model)
        report = lib.apply(gm)
        counts = {label.split("/")[-1].split(":")[0]: n for label, n in _counts(report, lib)}
        assert counts == fired, (paths, order)
        (skip,) = report.skipped
        loser, winner = lost
        assert skip.rule.endswith(f"{loser}:Fuse{loser.title().replace('_', '')}")
        assert skip.held_by[0].split("/")[-1].startswith(f"{winner}:") and "add" in skip.nodes
        torch.testing.assert_close(gm(*args), model(*args), rtol=0, atol=0)


def _counts(report, lib: PassLibrary) -> list[tuple[str, int]]:  # noqa: ANN001
    return [(label, report.counts().get(label, 0)) for label in lib.labels]


def test_library_discovers_folders_and_rejects_bad_ones(tmp_path: Path) -> None:
    _folder(tmp_path / "synth" / "task_a", "pass", "x, y", "x + y")
    _folder(tmp_path / "synth" / "task_b", "rejected_pass", "x, y", "x - y")
    lib = PassLibrary.load([tmp_path / "synth", EXAMPLES])
    assert [f.parent.name for f in lib.folders] == ["task_a", "passes", "passes", "passes"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(LibraryError, match="no pass folder"):
        PassLibrary.load([tmp_path / "empty"])
    with pytest.raises(LibraryError, match=r"syntax_error.*SyntaxError"):
        PassLibrary.load([ROOT / "tests" / "passes" / "syntax_error"])
    with pytest.raises(ModelError, match="unknown model 'no-such-model'"):
        load_model("no-such-model")
    with pytest.raises(ModelError, match="no such file"):
        load_model(str(tmp_path / "missing.py") + ":make")
    with pytest.raises(ModelError, match="applies to transformers zoo models"):
        load_model(str(tmp_path / "missing.py") + ":make", hidden=64)


def test_unregistrable_replacement_runs_eagerly_and_says_so(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("passnet.accelerate.customops.op_target", lambda r, m: "no op for you")
    model, args = AddReluAdd(), _inputs()
    be = passnet.backend(passes=[folders[0]], inner="inductor")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = torch.compile(model, backend=be)(*args)
    assert any("runs eagerly, without Inductor" in str(w.message) for w in seen)
    assert be.reports[0].inner == "eager" and "no op for you" in be.reports[0].note
    assert sum(be.fired().values()) == 1
    torch.testing.assert_close(out, model(*args))


def test_a_guard_refusing_a_site_falls_back_to_the_pattern(tmp_path: Path) -> None:
    """A synth pass's guard raises ValueError at a site of another shape: that call runs the
    pattern, counted, and the model stays correct (gemma and phi hit this with a mul+add)."""
    guard = "if x.shape[0] != 4: raise ValueError('written for 4 rows')"
    folder = _folder(tmp_path, "guarded", "x, y", "torch.relu(x + y)", guard)

    class TwoSites(torch.nn.Module):
        def forward(self, a, b, c, d) -> tuple[torch.Tensor, ...]:  # noqa: ANN001
            return torch.relu(a + b), torch.relu(c + d)

    model, args = TwoSites(), (*torch.randn(2, 4, 8), *torch.randn(2, 3, 8))
    be = passnet.backend(passes=folder, inner="inductor")
    out = torch.compile(model, backend=be)(*args)
    torch.testing.assert_close(out, model(*args))
    (rule,) = be.summary().values()
    assert rule["count"] == 2 and rule["fallback_calls"] == 1
    assert "written for 4 rows" in rule["fallback_reason"]
    # a rule that fell back fused nothing for sure: its sites count as found, not fused
    assert be.coverage()["bias+activation"] == (2, 0)
    fine = passnet.backend(passes=folder, inner="inductor")
    torch._dynamo.reset()
    torch.compile(model, backend=fine)(*torch.randn(2, 4, 8), *torch.randn(2, 4, 8))
    assert fine.coverage()["bias+activation"] == (2, 2)


def test_synthesised_style_pattern_fires_on_inplace_relu_after_eval_batch_norm(
    tmp_path: Path,
) -> None:
    """torchvision's conv -> BatchNorm2d(momentum=0.01) -> ReLU(inplace=True) against a pattern
    written as the synthesizer writes it (momentum 0.1, inplace=False): eval mode never reads
    momentum and the relu writes only the batch norm's own result, so the rule fires."""
    bn = "torch.nn.functional.batch_norm(x, m, v, w, b, False, 0.1, 1e-05)"
    folder = _folder(tmp_path, "bn_relu", "x, m, v, w, b",
                     f"torch.nn.functional.relu({bn}, inplace=False)")  # fmt: skip
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1, bias=False),
        torch.nn.BatchNorm2d(4, momentum=0.01),
        torch.nn.ReLU(inplace=True),
    ).eval()
    model[1].running_mean.normal_()
    model[1].running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 3, 8, 8)
    be = passnet.backend(passes=folder, inner="inductor")
    with torch.no_grad():
        out = torch.compile(model, backend=be)(x)
        torch.testing.assert_close(out, model(x))
    assert sum(be.fired().values()) == 1 and not be.reports[0].note


def test_named_backend_reads_its_library_from_the_environment(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PASSNET_PASSES", os.pathsep.join(map(str, folders)))
    monkeypatch.setenv("PASSNET_INNER", "eager")
    model, args = AddReluAdd(), _inputs()
    torch._dynamo.reset()
    torch.testing.assert_close(torch.compile(model, backend="passnet")(*args), model(*args))
    from passnet.accelerate.backend import _NAMED

    (be,) = [b for k, b in _NAMED.items() if k[1] == "eager" and str(folders[0]) in k[0]]
    assert sum(be.fired().values()) == 2


def test_cli_on_a_zoo_model_and_a_factory(tmp_path: Path, folders: tuple[Path, Path]) -> None:
    out = tmp_path / "bert.json"
    args = ["accelerate", "bert", "--passes", str(EXAMPLES), "--size", "16", "--inner", "eager"]
    res = CliRunner().invoke(app, [*args, "--time", "--warmup", "1", "--trials", "2",
                                   "--rounds", "1", "--json", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["fired"] == BERT_SITES + 2 and data["correct"]  # + the two linear + GELU
    assert data["checks"]["passnet"]["tightest_t"] <= -4
    assert set(data["timing"]) == {"eager", "passnet"} and "mean nothing" in data["timing_note"]
    module = tmp_path / "mine.py"
    module.write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, a, b, c):\n"
        "        return torch.relu(a + b) + c\n"
        "def make(batch=2):\n"
        "    return M(), tuple(torch.randn(batch, 8) for _ in range(3))\n"
    )
    mine = tmp_path / "mine.json"
    res = CliRunner().invoke(app, ["accelerate", f"{module}:make", "--passes", str(folders[0]),
                                   "--inner", "eager", "--json", str(mine)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "not timed on CPU" in " ".join(res.output.split())  # the table wraps long paths
    rules = json.loads(mine.read_text())["rules"]
    assert [v["count"] for k, v in rules.items() if k.endswith("add_relu:FuseAddRelu")] == [1]
    bad = CliRunner().invoke(app, ["accelerate", "no-such-model", "--passes", str(EXAMPLES)])
    assert bad.exit_code == 2 and "unknown model" in bad.output
    bad = CliRunner().invoke(app, ["accelerate", "bert", "--passes", str(tmp_path / "none")])
    assert bad.exit_code == 2 and "not a folder" in bad.output


def test_library_leaves_out_synthesised_passes_slower_than_eager(tmp_path: Path) -> None:
    """examples/synth_passes holds every task's synthesised pass, some slower than eager on
    their own task (the suite scores a correct pass by its speedup): ``min_speedup`` leaves
    those out by their synth.json verification; folders without one (examples/passes) stay."""
    import math

    lib = ROOT / "examples" / "synth_passes"
    everything = PassLibrary.load([lib])
    assert len(everything.folders) == len([d for d in lib.iterdir() if d.is_dir()])
    picked = PassLibrary.load([EXAMPLES, lib], min_speedup=1.0)
    slow = set()
    for d in lib.iterdir():
        if d.is_dir():
            runs = json.loads((d / "synth.json").read_text())["verification"]["variants"]
            speeds = [v["speedup"] for v in runs if v["speedup"]]
            if math.exp(sum(map(math.log, speeds)) / len(speeds)) < 1.0:
                slow.add(d / "pass")
    assert slow and {f for f, _ in picked.skipped} == slow
    assert all(s < 1.0 for _, s in picked.skipped)
    assert not slow & set(picked.folders) and EXAMPLES / "add_layer_norm" in picked.folders
    assert len(picked.folders) + len(slow) == len(everything.folders) + len(
        PassLibrary.load([EXAMPLES]).folders
    )
    with pytest.raises(LibraryError, match="below --min-speedup"):
        PassLibrary.load([lib], min_speedup=100.0)


def test_a_rewritten_graph_exports_with_each_replacement_as_a_custom_op(
    folders: tuple[Path, Path],
) -> None:
    """Replacements registered as ``torch.library`` custom ops keep a rewritten graph a graph:
    ``torch.export`` takes Dynamo's graph after the library rewrote it, the replacement stays
    one ``passnet::`` op in the exported program, and the program computes the model."""
    from passnet.accelerate.customops import op_target

    library = PassLibrary.load([folders[0]])
    rewritten = []

    def capture(gm: torch.fx.GraphModule, example_inputs: list) -> object:
        report = library.apply(gm, 0, op_target)
        rewritten.append((gm, list(example_inputs), report))
        return gm.forward

    model, args = AddReluAdd(), _inputs()
    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(model, backend=capture, fullgraph=True)(*args)
    ((gm, example_inputs, report),) = rewritten
    assert report.counts() == {library.labels[0]: 1} and not report.note
    program = torch.export.export(gm, tuple(example_inputs))
    ops = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
    assert sum(t.startswith("passnet.") for t in ops) == 1, ops
    (out,) = program.module()(*example_inputs)
    torch.testing.assert_close(out, model(*args))


def test_tune_drops_a_site_that_makes_the_graph_slower_and_remembers(tmp_path: Path) -> None:
    """A rule that costs 20 ms a call: timed in place against the graph without it, dropped,
    and the decision read back from the cache by a later compile (nothing timed again)."""
    from passnet.accelerate.tune import TuneCache

    folder = _folder(tmp_path, "slow", "x, y", "torch.relu(x + y)", "import time; time.sleep(0.02)")
    model, args = AddReluAdd(), _inputs()
    cache = TuneCache(tmp_path / "tune.sqlite")
    be = passnet.backend(passes=folder, inner="inductor", tune=cache)
    out = torch.compile(model, backend=be)(*args)
    torch.testing.assert_close(out, model(*args))
    (rule,) = be.summary().values()
    assert rule["count"] == 0 and len(rule["dropped_by_tune"]) == 1
    assert "timed): 0 of 1 fired site(s) kept" in be.reports[0].tune
    torch._dynamo.reset()
    again = passnet.backend(passes=folder, inner="inductor", tune=cache)
    torch.compile(model, backend=again)(*args)
    assert "from the tuning cache): 0 of 1" in again.reports[0].tune


def test_tune_keeps_sites_greedily_where_the_graph_gets_faster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The greedy rule on scripted medians: a site stays only when the graph with it beats the
    best so far by more than the margin."""
    from passnet.accelerate import tune

    gm = torch.fx.symbolic_trace(AddReluAdd())
    sites = [("r:a", ("n1",)), ("r:b", ("n2",)), ("r:c", ("n3",))]
    # the graph's time by the set of sites compiled into it
    cost = {(): 100.0, ("r:a",): 90.0, ("r:a", "r:b"): 89.5, ("r:a", "r:c"): 70.0}
    built: list[tuple[str, ...]] = []

    def compile_with(g, keep):  # noqa: ANN001, ANN202
        chosen = tuple(label for label, nodes in sites if keep(label, list(nodes)))
        built.append(chosen)
        return lambda *a: chosen

    def fake_measure(sides, device, **kw):  # noqa: ANN001, ANN202, ARG001
        class W:
            def __init__(self, us: float) -> None:
                self.wall = type("T", (), {"median_us": us})()

        return {s.name: W(cost[s.fn()]) for s in sides}

    monkeypatch.setattr(tune, "measure", fake_measure)
    decision = tune.tune_graph(gm, list(_inputs()), sites, compile_with)
    assert decision.kept == [("r:a", ("n1",)), ("r:c", ("n3",))]  # b: 0.6% is noise
    assert decision.base_us == 100.0 and built[0] == ()


def test_tune_keeps_nothing_when_the_kept_graph_does_not_beat_the_bare_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two steps that each won on their own medians, then the kept graph timed once more
    against the graph with no site: not faster by the margin, so no site is kept."""
    from passnet.accelerate import tune

    gm = torch.fx.symbolic_trace(AddReluAdd())
    sites = [("r:a", ("n1",)), ("r:b", ("n2",))]
    races = iter([(100.0, 97.0), (97.5, 95.0), (100.0, 99.0)])  # a, then b, then the check
    seen: list[int] = []

    def fake_measure(sides, device, trials, **kw):  # noqa: ANN001, ANN202, ARG001
        class W:
            def __init__(self, us: float) -> None:
                self.wall = type("T", (), {"median_us": us})()

        seen.append(trials)
        first, second = next(races)
        return {sides[0].name: W(first), sides[1].name: W(second)}

    monkeypatch.setattr(tune, "measure", fake_measure)
    decision = tune.tune_graph(gm, list(_inputs()), sites, lambda g, keep: lambda *a: None)
    assert decision.kept == [] and decision.base_us == 100.0
    assert seen == [50, 50, 100]  # the check times twice the calls


class _SiteKinds(torch.nn.Module):
    """One site of each kind, written as Hugging Face writes them."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 8))
        self.b = torch.nn.Parameter(torch.randn(8))

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> tuple[torch.Tensor, ...]:
        ln = torch.nn.functional.layer_norm(x + r, (8,))
        v = ln + r
        rms = v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6)
        act = torch.nn.functional.gelu(torch.nn.functional.linear(rms, self.w, self.b))
        y = torch.addmm(self.b, rms, self.w).view(2, 8)
        tanh_gelu = 0.5 * y * (1.0 + torch.tanh(0.79 * (y + 0.044715 * torch.pow(y, 3.0))))
        plain = torch.tanh(x)  # no GELU: no site
        return act, tanh_gelu, plain, torch.relu(rms)  # relu of no bias: no site


def test_sites_of_each_kind_and_their_coverage() -> None:
    from passnet.accelerate.sites import coverage, find_sites

    gm = torch.fx.symbolic_trace(_SiteKinds())
    sites = find_sites(gm.graph)
    assert [(s.kind, s.nodes) for s in sites] == [
        ("add+layer_norm", ("add", "layer_norm")),
        ("add+rms_norm", ("add_1", "rsqrt")),
        ("bias+activation", ("gelu",)),
        ("bias+activation", ("tanh",)),
    ]
    fired = [["add", "layer_norm"], ["rsqrt", "mul"]]  # the second misses the residual add
    assert coverage(sites, fired) == {
        "add+layer_norm": (1, 1), "add+rms_norm": (1, 0), "bias+activation": (2, 0),
    }  # fmt: skip


def test_a_triton_op_is_traced_into_by_inductor(tmp_path: Path) -> None:
    """The triton-op path without Triton (which needs CUDA there): a replacement of torch ops
    registered by tritonops.register is traced on fake tensors, and Inductor compiles its body
    into the graph instead of calling the op; its output takes the pattern's layout."""
    from torch._inductor.utils import run_and_get_code

    other_layout = "x, y = x.t().contiguous().t(), y.t().contiguous().t()"  # column-major
    folder = _folder(tmp_path, "relu_t", "x, y", "torch.relu(x + y)", other_layout)
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    op = triton_op_of(folder, "relu_t_probe", [x, y])
    assert op(x, y).stride() == (8, 1) and torch.equal(op(x, y), torch.relu(x + y))
    out, codes = run_and_get_code(torch.compile(lambda a, b: op(a, b) * 2), x, y)
    torch.testing.assert_close(out, torch.relu(x + y) * 2)
    assert "relu_t_probe" not in "\n".join(codes)  # traced into, not called
    traced = torch.compile(lambda a, b: op(a, b))(x, y)  # the op's own output: conformed
    assert traced.stride() == (8, 1) and torch.equal(traced, torch.relu(x + y))


def test_an_op_name_follows_the_pass_sources(tmp_path: Path) -> None:
    """Compile caches key graphs by op names: one name must mean one implementation in every
    process, so the name hashes the folder's sources, the signature and the binding."""
    from passnet.accelerate.customops import _op_name

    # sources no other test registers in this process (the same sources share one name)
    folder = _folder(tmp_path, "add_relu", "x, y", "torch.relu(x + y)", "pass  # op names")
    rule = PassLibrary.load([folder]).rules[0]
    schema = "(Tensor a0, Tensor a1) -> Tensor"
    first = _op_name(rule, schema, {})
    assert first.startswith("FuseAddRelu_") and len(first) == len("FuseAddRelu_") + 12
    assert _op_name(rule, schema, {}).startswith(first + "_")  # taken here already
    other_binding = _op_name(rule, schema, {"eps": 1e-5})
    (folder / "FuseAddRelu.py").write_text(
        (folder / "FuseAddRelu.py").read_text().replace("relu(x + y)", "relu(y + x)")
    )
    edited = _op_name(rule, schema, {})
    assert len({first[:25], other_binding[:25], edited[:25]}) == 3


def test_output_layouts_are_found_for_symbolic_sizes() -> None:
    """Inductor traces a triton op's body on fake tensors whose sizes may be symbols (a SymInt
    does not hash): the pattern's output layouts are then worked out uncached (H200: the
    bundled pass fell back to the opaque op on ``unhashable type: non-nested SymInt``)."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from passnet.accelerate.customops import _layouts

    cache: dict = {}
    seen = []

    def body(x: torch.Tensor) -> torch.Tensor:
        (layout,) = _layouts(lambda a: (a + 1).t(), (x,), cache)
        seen.append(layout)
        return torch.empty_strided(layout[0], layout[1], dtype=layout[2])

    make_fx(body, tracing_mode="symbolic")(torch.randn(4, 8))
    shape, stride, dtype = seen[0]
    assert len(shape) == 2 and not isinstance(shape[0], int)  # symbols, transposed
    assert dtype == torch.float32 and cache == {}
    body(torch.randn(4, 8))  # concrete sizes: cached
    assert list(cache.values()) == [[((8, 4), (1, 8), torch.float32)]]


def test_dynamos_restart_request_passes_through_the_backend(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inductor may ask Dynamo to trace a frame again (``RestartAnalysis``: after a recompile
    it treats a float input as a tensor). That is no failure: the backend lets it through and
    forgets the aborted graph, instead of running it eagerly (seen when a model was compiled
    again at another hidden size)."""
    import torch._inductor.compile_fx as compile_fx_module
    from torch._dynamo.exc import TensorifyScalarRestartAnalysis

    real, asked = compile_fx_module.compile_fx, []

    def restart_once(gm, inputs, **kw):  # noqa: ANN001, ANN003, ANN202
        asked.append(1)
        if len(asked) == 1:
            raise TensorifyScalarRestartAnalysis
        return real(gm, inputs, **kw)

    monkeypatch.setattr(compile_fx_module, "compile_fx", restart_once)
    torch._dynamo.reset()
    be = passnet.backend(passes=[folders[0]], inner="inductor")
    model, args = AddReluAdd(), _inputs()
    with torch.no_grad():
        out = torch.compile(model, backend=be)(*args)
    torch.testing.assert_close(out, model(*args))
    assert len(asked) == 2 and [r.inner for r in be.reports] == ["inductor"]
    assert not be.reports[0].note and sum(be.fired().values()) == 1


def test_a_bundled_kernel_pass_traces_with_symbolic_sizes() -> None:
    """Inductor traces a triton op's body on fake tensors, whose sizes may be symbols: the
    linear-activation pass's plan lookup must take them (``unhashable type: non-nested
    SymInt``: the rule fell back to the opaque op on an H100). And registering the op inside a
    Dynamo backend (a tracing context with a shape environment) must leave that environment
    alone: the trial trace gave the examples symbols without a source there, and Dynamo's
    guard building failed on them (H100: IndexError in ``symbol_to_source``). Its Triton
    kernels are compiled functions only outside the interpreter: a child without it."""
    code = """if True:
        import sys; sys.path.insert(0, "tests")
        from pathlib import Path
        import torch
        from torch._guards import TracingContext, tracing
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.experimental.proxy_tensor import make_fx
        from torch.fx.experimental.symbolic_shapes import ShapeEnv
        from helpers.accelerate import triton_op_of
        x, w, b = torch.randn(2, 8, 32), torch.randn(64, 32), torch.randn(64)
        dynamo = FakeTensorMode(shape_env=ShapeEnv())
        with tracing(TracingContext(dynamo)):  # as a backend is called
            op = triton_op_of(Path("examples/passes/linear_activation"), "la_sym", [x, w, b])
        env = dynamo.shape_env
        symbols = getattr(env, "backed_var_to_val", None) or env.var_to_val
        print("ambient", len(symbols), len(env.guards))
        g = make_fx(lambda *a: op(*a), tracing_mode="symbolic")(x, w, b)
        print("traced", "la_sym" in g.code)
    """
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ambient 0 0" in done.stdout and "traced True" in done.stdout, done.stdout
