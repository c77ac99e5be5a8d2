"""GraphNet sample format: reading real samples, materialising inputs, writing samples back."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from pathlib import Path

import pytest
import torch
from conftest import BERT, LIGHTGCN, MLP_IRIS, RESNET10T, RESNET18, SQUEEZEBERT, fixture_params
from conftest import fixture_path as fx

from passnet.graph.sample import (
    Sample,
    SampleError,
    TensorMeta,
    load_module,
    load_sample,
    materialize,
    run_sample,
    runnable_code,
    tensor_stats,
    with_dtype,
    write_sample,
)
from passnet.integrity import checks

TINY_MODEL = """import torch


class GraphModule(torch.nn.Module):
    def forward(self, x: torch.Tensor, w: torch.nn.parameter.Parameter):
        y = torch.nn.functional.linear(x, w)
        return (torch.relu(y),)
"""


def _meta(name: str, shape: list[int], dtype: str = "torch.float32", **kw) -> TensorMeta:
    return TensorMeta(name=name, shape=shape, dtype=dtype, device="cpu", **kw)


def _tiny(tmp_path: Path) -> Sample:
    metas = [_meta("x", [4, 8], mean=0.5, std=1.0), _meta("w", [3, 8], mean=0.0, std=0.1)]
    return write_sample(tmp_path / "tiny", TINY_MODEL, metas, {"model_name": "tiny"})


def _single(meta: TensorMeta, seed: int = 0, annotation: str | None = None) -> object:
    """Materialise one meta through a stand-in sample (no folder needed)."""
    sample = Sample(
        path=Path("/nowhere"),
        metas=[meta],
        graph_net={},
        code="",
        arg_names=[meta.name],
        arg_types={meta.name: annotation},
    )
    return materialize(sample, seed=seed)[0]


# --- real samples ------------------------------------------------------------------------------


@pytest.mark.parametrize("folder", fixture_params())
def test_every_fixture_loads_and_runs_on_cpu(folder: Path) -> None:
    sample = load_sample(folder)
    assert len(sample.metas) == len(sample.arg_names) > 0
    assert [m.name for m in sample.metas] == sample.arg_names
    outputs = run_sample(sample)
    assert outputs and all(isinstance(o, torch.Tensor) for o in outputs)
    for out in outputs:
        if out.is_floating_point():
            assert torch.isfinite(out).all(), f"{folder.name}: non-finite output"


def test_metas_follow_forward_order_and_dtype_is_first_float() -> None:
    sample = load_sample(fx(MLP_IRIS))
    assert sample.arg_names[:3] == [
        "L_self_modules_fc1_parameters_weight_",
        "L_self_modules_fc1_parameters_bias_",
        "s77",
    ]
    assert sample.dtype == "float32"
    assert sample.graph_net["dynamic"] is True
    assert sample.scalar_type("s77") is int and sample.scalar_type("L_x_") is None


def test_same_seed_same_values_other_seed_other_values() -> None:
    sample = load_sample(fx(BERT))
    a, b, c = (materialize(sample, seed=s) for s in (0, 0, 1))
    for x, y in zip(a, b, strict=True):
        assert torch.equal(x, y)
    random_args = [i for i, m in enumerate(sample.metas) if m.data is None]
    assert random_args
    assert all(not torch.equal(a[i], c[i]) for i in random_args)
    data_args = [i for i, m in enumerate(sample.metas) if m.data is not None]
    assert all(torch.equal(a[i], c[i]) for i in data_args)  # literal data is verbatim


def test_zero_std_weights_of_resnet10t_are_not_constant() -> None:
    sample = load_sample(fx(RESNET10T))
    zero_std = [i for i, m in enumerate(sample.metas) if m.std == 0 and m.data is None]
    assert len(zero_std) >= 10
    values = materialize(sample, seed=0)
    for i in zero_std:
        t, meta = values[i], sample.metas[i]
        assert t.numel() > 1 and t.std() > 0, meta.name
        assert abs(float(t.mean()) - meta.mean) < 0.1 + 0.2 * abs(meta.mean), meta.name
    # and the graph output depends on the input: two seeds give different logits
    assert not torch.equal(run_sample(sample, seed=0)[0], run_sample(sample, seed=1)[0])


def test_min_val_clamps_floats_batchnorm_running_var_non_negative() -> None:
    sample = load_sample(fx(RESNET18))
    values = materialize(sample, seed=3)
    var = [i for i, m in enumerate(sample.metas) if m.name.endswith("running_var_")]
    assert var and all(sample.metas[i].min_val == 0 for i in var)
    assert all((values[i] >= 0).all() for i in var)
    t = _single(_meta("v", [10000], mean=-1.0, std=5.0, min_val=0, max_val=0.5))
    assert float(t.min()) == 0.0 and float(t.max()) == 0.5


def test_zero_std_spread_respects_bounds_but_ignores_a_degenerate_range() -> None:
    t = _single(_meta("v", [1000], mean=0.0, std=0.0, min_val=0.0))
    assert (t >= 0).all() and t.std() > 0
    t = _single(_meta("v", [1000], mean=2.0, std=0.0, min_val=2.0, max_val=2.0))
    assert t.std() > 0  # a range recorded from a constant would pin it again
    t = _single(_meta("v", [1000], mean=None, std=None))
    assert t.std() > 0


def test_float_values_are_finite_and_within_100() -> None:
    t = _single(_meta("v", [1000], mean=1e6, std=1e7))
    assert torch.isfinite(t).all() and t.abs().max() <= 100


def test_integer_ranges() -> None:
    t = _single(_meta("i", [5000], "torch.int64", min_val=3, max_val=5))
    assert set(t.unique().tolist()) == {3, 4, 5}  # max_val is inclusive, like upstream
    t = _single(_meta("i", [5000], "torch.int64"))
    assert t.dtype == torch.int64 and t.min() >= 0 and t.max() < 8
    t = _single(_meta("i", [5000], "torch.int32", mean=2.0, std=1.0))
    assert t.dtype == torch.int32 and t.min() >= 0 and t.max() <= 4
    t = _single(_meta("i", [5000], "torch.int64", max_val=511))
    assert t.min() >= 0 and t.max() <= 511 and t.max() > 400
    t = _single(_meta("i", [5000], "torch.uint8", min_val=250, max_val=1000))
    assert t.min() >= 250 and t.max() <= 255
    b = _single(_meta("b", [5000], "torch.bool"))
    assert b.dtype == torch.bool and 0.4 < b.float().mean() < 0.6
    bert = load_sample(fx(BERT))
    pos = bert.arg_names.index("L_self_modules_embeddings_buffers_position_ids_")
    ids = materialize(bert)[pos]
    assert ids.shape == (1, 512) and ids.min() >= 0 and ids.max() <= 511


def test_symint_data_becomes_a_python_int_and_data_is_verbatim() -> None:
    sample = load_sample(fx(MLP_IRIS))
    value = materialize(sample)[sample.arg_names.index("s77")]
    assert type(value) is int and value == 4
    gcn = load_sample(fx(LIGHTGCN))
    i = gcn.arg_names.index("L_edge_index_")
    edges = materialize(gcn, seed=7)[i]
    assert edges.shape == (2, 500) and edges.flatten().tolist() == gcn.metas[i].data
    assert _single(_meta("s5", [], "torch.int64", data=[9])) == 9  # unannotated SymInt name
    assert _single(_meta("n", [], "torch.int64", mean=3.0), annotation="torch.SymInt") == 3


def test_cuda_meta_device_is_ignored_and_dtype_override_hits_floats_only() -> None:
    sample = load_sample(fx(SQUEEZEBERT))
    assert any(m.device == "cuda:0" for m in sample.metas)
    values = materialize(sample, device="cpu", dtype="bfloat16")
    tensors = [v for v in values if isinstance(v, torch.Tensor)]
    assert all(t.device.type == "cpu" and t.dtype == torch.bfloat16 for t in tensors)
    bert = load_sample(fx(BERT))
    half = materialize(bert, dtype="float16")
    assert {t.dtype for t in half} == {torch.float16, torch.int64}


# --- malformed samples -------------------------------------------------------------------------


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A valid tiny sample to break in a test."""
    return _tiny(tmp_path).path


def test_missing_folder_and_files_name_the_file(tmp_path: Path, broken: Path) -> None:
    with pytest.raises(SampleError, match="no such sample folder"):
        load_sample(tmp_path / "nope")
    (broken / "weight_meta.py").unlink()
    with pytest.raises(SampleError, match=r"weight_meta\.py: missing"):
        load_sample(broken)
    (broken / "model.py").unlink()
    with pytest.raises(SampleError, match=r"model\.py: missing"):
        load_sample(broken)


def test_bad_meta_syntax_names_the_file(broken: Path) -> None:
    (broken / "weight_meta.py").write_text("class Program_weight_tensor_meta_x:\n    name = (\n")
    with pytest.raises(SampleError, match=r"weight_meta\.py: unparsable"):
        load_sample(broken)


def test_meta_missing_a_field_names_file_class_and_field(broken: Path) -> None:
    text = (broken / "weight_meta.py").read_text().replace('    dtype = "torch.float32"\n', "", 1)
    (broken / "weight_meta.py").write_text(text)
    with pytest.raises(
        SampleError,
        match=r"weight_meta\.py: class Program_weight_tensor_meta_x: missing field dtype",
    ):
        load_sample(broken)


def test_meta_values_are_not_executed(broken: Path) -> None:
    text = (broken / "weight_meta.py").read_text().replace("std = 1.000", "std = __import__('os')")
    (broken / "weight_meta.py").write_text(text)
    with pytest.raises(SampleError, match=r"weight_meta\.py: class .*not a literal"):
        load_sample(broken)


def test_args_and_metas_must_match(broken: Path) -> None:
    model = broken / "model.py"
    model.write_text(TINY_MODEL.replace("w: torch.nn.parameter.Parameter", "w, extra"))
    with pytest.raises(SampleError, match=r"weight_meta\.py: .*without a meta class: extra"):
        load_sample(broken)
    model.write_text(TINY_MODEL.replace(", w: torch.nn.parameter.Parameter", ""))
    with pytest.raises(
        SampleError, match=r"weight_meta\.py: meta\(s\) for no forward argument.*: w"
    ):
        load_sample(broken)


def test_code_that_fails_names_model_py(broken: Path) -> None:
    model = broken / "model.py"
    model.write_text(TINY_MODEL.replace("return (torch.relu(y),)", "raise ValueError('boom')"))
    with pytest.raises(
        SampleError,
        match=r"model\.py: forward failed at line 7 \(raise ValueError\('boom'\)\): "
        r"ValueError: boom",
    ):
        run_sample(load_sample(broken))
    model.write_text(TINY_MODEL.replace("import torch", "import torch\nimport not_a_module_xyz"))
    with pytest.raises(SampleError, match=r"model\.py: cannot load: ModuleNotFoundError"):
        load_module(load_sample(broken))
    model.write_text("class GraphModule(:\n")
    with pytest.raises(SampleError, match=r"model\.py: unparsable"):
        load_sample(broken)


def test_scalar_without_a_value_is_an_error() -> None:
    with pytest.raises(SampleError, match="scalar argument 'n' has no data"):
        _single(_meta("n", [], "torch.int64"), annotation="torch.SymInt")


# --- writing -----------------------------------------------------------------------------------


def test_write_then_load_round_trip(tmp_path: Path) -> None:
    metas = [
        _meta("x", [4, 8], mean=0.5, std=1.25),
        _meta("w", [3, 8], mean=-0.125, std=0.0, min_val=-1.0, max_val=float("inf")),
    ]
    metas.append(_meta("idx", [3], "torch.int64", data=[0, 2, 1], min_val=0, max_val=2))
    code = TINY_MODEL.replace("w: torch.nn.parameter.Parameter", "w, idx")
    sources = {"parent": "p", "start": 0, "end": 2, "ops": ["a", "b"]}
    sample = write_sample(tmp_path / "s", code, metas, {"model_name": "rt"}, sources=sources)
    assert sample.metas == metas
    assert sample.code == code and sample.arg_names == ["x", "w", "idx"]
    assert sample.sources == sources and sample.graph_net["framework"] == "torch"
    folder = sample.path
    expected = {
        "model.py",
        "weight_meta.py",
        "input_meta.py",
        "input_tensor_constraints.py",
        "graph_net.json",
        "graph_hash.txt",
        "subgraph_sources.json",
    }
    assert {p.name for p in folder.iterdir()} == expected
    assert (folder / "graph_hash.txt").read_text() == hashlib.sha256(code.encode()).hexdigest()
    assert (folder / "input_meta.py").read_text() == ""
    # upstream tools exec weight_meta.py and read class attributes: that must work too
    spec = importlib.util.spec_from_file_location("wm", folder / "weight_meta.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cls = module.Program_weight_tensor_meta_w
    assert (cls.name, cls.shape, cls.dtype, cls.mean, cls.std) == (
        "w",
        [3, 8],
        "torch.float32",
        -0.125,
        0.0,
    )
    assert cls.max_val == float("inf") and module.Program_weight_tensor_meta_idx.data == [0, 2, 1]
    # rewriting without sources removes a stale subgraph_sources.json
    again = write_sample(folder, code, metas, {"model_name": "rt"})
    assert again.sources is None and not (folder / "subgraph_sources.json").exists()


def test_stride_round_trips_and_lays_out_the_same_values(tmp_path: Path) -> None:
    """A permuted dense layout (PassNet's ``stride`` attribute, a transposed activation) is
    written, read back, kept by dtype variants and materialised with the values of the same
    meta without it: only the layout differs."""
    plain = _meta("x", [4, 8], mean=0.5, std=1.0)
    strided = plain.model_copy(update={"stride": [1, 4]})
    w = _meta("w", [3, 8], mean=0.0, std=0.1)
    sample = write_sample(tmp_path / "t", TINY_MODEL, [strided, w], {"model_name": "t"})
    assert "    stride = [1, 4]\n" in (sample.path / "weight_meta.py").read_text()
    loaded = load_sample(sample.path)
    assert loaded.metas[0].stride == [1, 4] and loaded.metas[1].stride is None
    x = materialize(loaded, seed=3)[0]
    assert x.stride() == (1, 4) and not x.is_contiguous()
    assert torch.equal(x, _single(plain, seed=3))
    assert run_sample(loaded)
    half = with_dtype(loaded, "bfloat16", tmp_path / "t16")
    assert half.metas[0].stride == [1, 4] and materialize(half)[0].stride() == (1, 4)
    # a stride that is no permutation of a dense layout is a clear error
    text = (sample.path / "weight_meta.py").read_text().replace("[1, 4]", "[1, 1]")
    (sample.path / "weight_meta.py").write_text(text)
    with pytest.raises(SampleError, match=r"stride \[1, 1\] is not a permuted dense layout"):
        load_sample(sample.path)


def _strided_sample(tmp_path: Path) -> Sample:
    strided = _meta("x", [4, 8], mean=0.5, std=1.0).model_copy(update={"stride": [1, 4]})
    w = _meta("w", [3, 8], mean=0.0, std=0.1)
    return write_sample(tmp_path / "t", TINY_MODEL, [strided, w], {"model_name": "t"})


def test_secret_draws_keep_layout_and_statistics(tmp_path: Path) -> None:
    """A checked timed call's inputs are drawn by the device's own generator
    (``draw_on_device``): on CPU those are the very values of the usual draw; ``clone_tree``
    (the candidate's copy of the reference's inputs) keeps values and layout in new memory."""
    sample = _strided_sample(tmp_path)
    host = materialize(sample, seed=5)
    drawn = materialize(sample, seed=5, draw_on_device=True)
    copies = checks.clone_tree(host)
    for a, b, c in zip(host, drawn, copies, strict=True):
        assert torch.equal(a, b) and torch.equal(a, c)
        assert a.stride() == b.stride() == c.stride() and c.data_ptr() != a.data_ptr()
    assert host[0].stride() == (1, 4)


@pytest.mark.gpu
def test_secret_draws_on_cuda_stay_on_the_device(tmp_path: Path) -> None:
    sample = _strided_sample(tmp_path)
    host = materialize(sample, "cuda", seed=5)
    drawn = materialize(sample, "cuda", seed=5, draw_on_device=True)
    assert drawn[0].device.type == "cuda" and drawn[0].stride() == host[0].stride() == (1, 4)
    assert not torch.equal(drawn[0], host[0])  # the device's generator: other values
    assert abs(float(drawn[0].mean()) - 0.5) < 0.15  # the meta's statistics all the same


def test_fixture_survives_a_rewrite(tmp_path: Path) -> None:
    sample = load_sample(fx(BERT))
    copy = write_sample(tmp_path / "bert", sample.code, sample.metas, sample.graph_net)
    assert copy.metas == sample.metas
    assert json.loads((copy.path / "graph_net.json").read_text()) == sample.graph_net
    for a, b in zip(run_sample(sample, seed=2), run_sample(copy, seed=2), strict=True):
        assert torch.equal(a, b)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("rel", [BERT, MLP_IRIS, LIGHTGCN])
def test_with_dtype_variants_run(tmp_path: Path, rel: str, dtype: str) -> None:
    sample = load_sample(fx(rel))
    variant = with_dtype(sample, dtype, tmp_path / f"v_{dtype}")
    assert variant.dtype == dtype
    assert all(m.dtype != "torch.float32" for m in variant.metas)
    assert "torch.float32" not in variant.code
    outputs = run_sample(variant)
    assert all(o.dtype == getattr(torch, dtype) for o in outputs if o.is_floating_point())
    assert variant.metas[0].data == sample.metas[0].data


def test_with_dtype_rejects_non_float(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="int8"):
        with_dtype(load_sample(fx(MLP_IRIS)), "int8", tmp_path / "x")


def test_tensor_stats() -> None:
    stats = tensor_stats(torch.tensor([1.0, 2.0, 3.0, float("nan")]))
    assert stats == {"mean": 2.0, "std": 1.0, "min_val": 1.0, "max_val": 3.0}
    assert tensor_stats(torch.tensor([[4, -2]])) == {
        "mean": None,
        "std": None,
        "min_val": -2,
        "max_val": 4,
    }
    assert tensor_stats(torch.zeros(0))["mean"] is None
    assert tensor_stats(torch.tensor([0.12345]))["std"] == 0.0


def test_fixture_is_never_written(tmp_path: Path) -> None:
    """Writing next to a copy must leave the shared fixture untouched (tests read in place)."""
    src = fx(MLP_IRIS)
    before = {p.name: p.read_bytes() for p in src.iterdir()}
    work = tmp_path / "copy"
    shutil.copytree(src, work)
    with_dtype(load_sample(work), "float16", tmp_path / "half")
    assert {p.name: p.read_bytes() for p in src.iterdir()} == before


def test_zero_std_values_keep_their_sign_and_scale() -> None:
    """yolov8n-cls was rejected because a batch-norm eps recorded as 0.001 (std 0) was drawn
    with +-0.02 noise and came out negative."""
    for seed in range(20):
        eps = _single(_meta("eps", [], mean=0.001, std=0.0), seed=seed)
        assert 0.0006 < float(eps) < 0.0014
    t = _single(_meta("v", [1000], mean=-0.5, std=0.0))
    assert (t < 0).all() and 0.03 < float(t.std()) < 0.07
    t = _single(_meta("v", [1000], mean=0.0, std=0.0))
    assert (t < 0).any() and (t > 0).any()  # no sign recorded: both


CUDA_MODEL = """import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        y = x * 2.0
        bias = torch.ones(4, device=device(type="cuda", index=0))
        return (y + bias,)
"""


@pytest.mark.skipif(torch.cuda.is_available(), reason="maps devices only where CUDA is absent")
def test_a_cuda_pinned_sample_runs_on_cpu_with_its_device_mapped(tmp_path: Path) -> None:
    """A NeMo sample hard-codes device(type="cuda", index=0): on a machine without CUDA its
    device literals become CPU ones, so it validates and cuts there."""
    sample = write_sample(tmp_path / "s", CUDA_MODEL, [_meta("x", [4], mean=0.0, std=1.0)], {})
    assert sample.cuda_literals
    (out,) = run_sample(sample)
    (x,) = materialize(sample, seed=0)
    torch.testing.assert_close(out, x * 2.0 + 1.0)
    assert not load_sample(fx(RESNET18)).cuda_literals


CPU_CAPTURED_MODEL = """import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, x: torch.Tensor, table: torch.Tensor, ids: torch.Tensor):
        emb = torch.nn.functional.embedding(ids + 2, table)
        to = emb.to(device(type='cpu'))
        return (x + to,)
"""


def test_device_literals_name_the_device_the_sample_runs_on(tmp_path: Path) -> None:
    """OPT's position embedding is moved ``.to(inputs_embeds.device)``: cut on a CPU machine,
    model.py pins it to ``device(type='cpu')``, which broke eager, Inductor and the synthesizer
    alike on the H200. Loaded for a device, every device literal names that device (``meta``
    stands in for CUDA here: a CPU literal there mixes devices just the same)."""
    metas = [_meta("x", [2, 4], mean=0.0, std=1.0), _meta("table", [8, 4], mean=0.0, std=1.0),
             _meta("ids", [2], "torch.int64", mean=2.0, std=1.0)]  # fmt: skip
    sample = write_sample(tmp_path / "s", CPU_CAPTURED_MODEL, metas, {})
    assert "device(type='meta')" in runnable_code(sample, "meta")
    assert "device(type='cuda', index=1)" in runnable_code(sample, torch.device("cuda", 1))
    assert runnable_code(sample) == sample.code
    args = [t.to("meta") for t in materialize(sample, seed=0)]
    with pytest.raises((RuntimeError, NotImplementedError)):  # mixes devices
        load_module(sample)(*args)
    (out,) = load_module(sample, "meta")(*args)
    assert out.device.type == "meta" and out.shape == (2, 4)
    (cpu_out,) = run_sample(sample)  # the capture device still runs it unchanged
    assert cpu_out.device.type == "cpu"


def test_an_eps_rounded_to_zero_is_drawn_positive() -> None:
    """yolo11n-cls records its batch-norm eps (0.001) as mean 0.000, std 0.000: drawn around
    0 it came out negative (batch_norm refused it)."""
    for seed in range(10):
        eps = _single(_meta("L_self_modules_model_modules_0_modules_bn_eps", [], "torch.float64",
                            mean=0.0, std=0.0), seed=seed)  # fmt: skip
        assert 0 < float(eps) < 1e-4
    assert float(_single(_meta("bias", [], mean=0.0, std=0.0), seed=1)) != 0.0


def test_an_eps_recorded_as_zero_data_stays_positive() -> None:
    """BiT's weight-standardising eps (1e-8) is recorded as data [0.000000] (hf tiny-random
    BitModel): used as recorded, batch_norm(training=True) refused it. Data of other values is
    used exactly as recorded."""
    eps = _single(_meta("L_self_modules_embedder_modules_convolution_eps", [], "torch.float64",
                        mean=0.0, std=0.0, data=[0.0]))  # fmt: skip
    assert 0 < float(eps) <= 1e-6
    assert float(_single(_meta("bias", [], mean=0.0, std=0.0, data=[0.0]))) == 0.0
    recorded = _single(_meta("L_bn_eps", [], "torch.float64", mean=0.001, std=0.0, data=[0.001]))
    assert float(recorded) == 0.001


# --- value ranges from how model.py uses an argument ---------------------------------------------

ROLES_MODEL = """import torch


class GraphModule(torch.nn.Module):
    def forward(
        self,
        x: torch.Tensor,
        L_drop_: torch.Tensor,
        L_bn_var_: torch.Tensor,
        L_bn_mom_: torch.Tensor,
        L_bn_tol_: torch.Tensor,
        L_ids_: torch.Tensor,
        L_table_: torch.Tensor,
    ):
        l_drop_ = L_drop_
        item = l_drop_.item()
        l_drop_ = None
        y = torch.nn.functional.dropout(x, p=item, training=False)
        item = None
        item = L_bn_mom_.item()
        item_1 = L_bn_tol_.item()
        z = torch.batch_norm(
            y, None, None, torch.zeros(4), L_bn_var_, False, item, item_1, False
        )
        e = torch.nn.functional.embedding(L_ids_, L_table_)
        return (z, e)
"""


def _roles_sample(tmp_path: Path) -> Sample:
    """Scalars recorded as GraphNet records them (3 decimals, std 0, no data) that only their
    use in model.py gives a meaning: a dropout p of 0.000 (ELiRF mbart, distilbart-qgen, TrOCR,
    X-CLIP samples), an eps and a momentum under names that do not say so, a running_var with
    no min_val, and token ids whose statistics reach past the embedding table."""
    metas = [
        _meta("x", [2, 4, 3], mean=0.0, std=1.0),
        _meta("L_drop_", [], "torch.float64", mean=0.0, std=0.0),
        _meta("L_bn_var_", [4], mean=0.05, std=2.0),
        _meta("L_bn_mom_", [], "torch.float64", mean=0.0, std=0.0),
        _meta("L_bn_tol_", [], "torch.float64", mean=0.0, std=0.0),
        _meta("L_ids_", [2, 64], "torch.int64", mean=50.0, std=40.0),
        _meta("L_table_", [10, 3], mean=0.0, std=1.0),
    ]
    return write_sample(tmp_path / "roles", ROLES_MODEL, metas, {})


def test_values_stay_in_the_range_their_use_demands(tmp_path: Path) -> None:
    """A dropout p drawn around 0.000 went negative ('dropout probability has to be between 0
    and 1', gpssohi/distilbart-qgen-6-6 on seeds 0-2); so did an eps not named eps, and token
    ids drawn from mean +- 2 std indexed past a 10-row table."""
    sample = _roles_sample(tmp_path)
    ranges = sample.value_ranges
    assert ranges["L_drop_"].why == "p of dropout at line 18"
    assert (ranges["L_bn_tol_"].low, ranges["L_bn_tol_"].positive) == (0.0, True)
    assert ranges["L_ids_"].high == 9 and "x" not in ranges
    for seed in range(8):
        x, p, var, mom, eps, ids, _ = materialize(sample, seed=seed)
        assert 0.0 <= float(p) <= 1.0 and 0.0 <= float(mom) <= 1.0
        assert float(eps) > 0 and (var >= 0).all()
        assert int(ids.min()) >= 0 and int(ids.max()) <= 9 and ids.unique().numel() > 5
        run_sample(sample, seed=seed)


def test_value_ranges_follow_renames_and_forget_reassigned_names() -> None:
    from passnet.graph.ranges import value_ranges

    code = """import torch
class GraphModule(torch.nn.Module):
    def forward(self, a, b, w, idx):
        t = a
        t = None
        t = b.to(torch.float32)
        y = torch.nn.functional.layer_norm(w, (4,), None, None, t)
        k = torch.index_select(w, 0, idx)
        return torch._C._nn.scaled_dot_product_attention(y, y, y, None, float(a))
"""
    ranges = value_ranges(code, ["a", "b", "w", "idx"], {"w": [6, 4]})
    assert ranges["b"].positive and ranges["b"].why == "eps of layer_norm at line 7"
    assert (ranges["a"].low, ranges["a"].high) == (0.0, 1.0)  # dropout_p of SDPA, not an eps
    assert (ranges["idx"].low, ranges["idx"].high) == (0, 5)
    assert "w" not in ranges
    assert value_ranges("def broken(:", ["a"], {}) == {}
