"""Model zoo and capture: offline zoo entries, validated Dynamo captures, clear failures."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from passnet.dataset import zoo
from passnet.dataset.capture import CaptureError, capture, capture_zoo
from passnet.graph.sample import load_sample, materialize, run_sample


class _Block(torch.nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(dim, dim)
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x + torch.nn.functional.gelu(self.fc(x)))


class _Breaks(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum().item() > 0:  # data-dependent control flow: a graph break
            return x * 2
        return x - 1


def test_unknown_model_lists_close_matches() -> None:
    with pytest.raises(zoo.ZooError, match=r"unknown model 'bertt'.*Did you mean: .*bert"):
        zoo.resolve("bertt")
    assert zoo.resolve("gpt2") is zoo.ZOO["transformers/gpt2"]
    with pytest.raises(zoo.ZooError, match="unknown library"):
        zoo.select(library="keras")


def test_zoo_covers_libraries_and_reports_missing_ones() -> None:
    assert {m.library for m in zoo.ZOO.values()} == set(zoo.LIBRARIES)
    assert len({m.family for m in zoo.ZOO.values()}) >= 15
    for library in ("torchvision", "timm", "torchaudio"):
        model = next(m for m in zoo.ZOO.values() if m.library == library)
        if importlib.util.find_spec(library) is None:
            assert model.unavailable() == f"{library} is not installed (pip install {library})"
            result = capture_zoo(model, model.shapes[0], Path("/nonexistent"), 1 << 30)
            assert result.sample is None and "not installed" in result.error


def test_capture_writes_validated_sample(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = _Block().eval()
    sample = capture(model, (torch.randn(2, 4, 16),), tmp_path / "block", "block")
    # every weight and input is a forward argument, nothing else
    assert len(sample.arg_names) == 5 and "get_attr" not in sample.code
    weights = [m for m in sample.metas if m.shape == [16, 16]]
    assert weights and weights[0].std and weights[0].std > 0
    # the constant LayerNorm weight (all ones) must not replay as a constant
    ln_weight = next(m for m in sample.metas if "norm" in m.name and "weight" in m.name)
    assert ln_weight.min_val is None and ln_weight.max_val is None
    out = run_sample(load_sample(sample.path), seed=3)[0]
    assert out.shape == (2, 4, 16) and torch.isfinite(out).all()
    assert sample.graph_net["weights"] == "real"


def test_channels_last_input_keeps_its_layout(tmp_path: Path) -> None:
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3).eval()
    x = torch.randn(2, 3, 8, 8).to(memory_format=torch.channels_last)
    sample = capture(conv, (x,), tmp_path / "conv", "conv")
    meta = next(m for m in sample.metas if m.shape == [2, 3, 8, 8])
    assert meta.stride == list(x.stride()) == [192, 1, 24, 3]
    assert materialize(load_sample(sample.path))[sample.metas.index(meta)].stride() == x.stride()


def test_capture_rejects_graph_breaks(tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match="Dynamo capture failed"):
        capture(_Breaks(), (torch.randn(4),), tmp_path / "breaks", "breaks")


def test_too_large_model_is_captured_on_meta(tmp_path: Path) -> None:
    model = zoo.ZooModel(
        "test/block", "torch", "block", "nlp", lambda s: _Block().eval(),
        lambda m, s: (torch.randn(s.batch, s.size, 16),), (zoo.Shape(1, 8),),
    )  # fmt: skip
    result = capture_zoo(model, zoo.Shape(1, 8), tmp_path / "meta", max_bytes=0)
    assert result.error is None and result.weights == "meta" and result.parameters > 0
    sample = load_sample(tmp_path / "meta")
    assert sample.graph_net["weights"] == "meta"
    assert all(m.mean is None and m.std is None for m in sample.metas)
    # shapes and dtypes only, yet still a runnable sample
    assert run_sample(sample)[0].shape == (1, 8, 16)


class _ReadsInit(torch.nn.Module):
    """Reads a weight's value in __init__ (as torchvision's RegNet does): no meta build."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)
        self.scale = float(self.lin.weight.abs().max()) + 1.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.lin(x)) * self.scale


def test_model_that_cannot_build_on_meta_is_sized_for_real(tmp_path: Path) -> None:
    model = zoo.ZooModel(
        "test/reads", "torch", "reads", "nlp", lambda s: _ReadsInit().eval(),
        lambda m, s: (torch.randn(s.batch, s.size, 16),), (zoo.Shape(1, 8),),
    )  # fmt: skip
    result = capture_zoo(model, zoo.Shape(1, 8), tmp_path / "real", 1 << 30)
    assert result.error is None and result.weights == "real" and result.parameters == 16 * 17
    assert run_sample(load_sample(tmp_path / "real"))[0].shape == (1, 8, 16)
    too_big = capture_zoo(model, zoo.Shape(1, 8), tmp_path / "big", max_bytes=0)
    assert too_big.error and "cannot be built on the meta device" in too_big.error


def test_real_zoo_model_captures(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    model = zoo.resolve("distilbert")
    result = capture_zoo(model, zoo.Shape(1, 8), tmp_path / "distilbert", 1 << 32)
    assert result.error is None, result.error
    sample = load_sample(tmp_path / "distilbert")
    assert sample.graph_net["family"] == "distilbert" and sample.graph_net["shape"] == "b1-s8"
    ids = next(m for m in sample.metas if m.dtype == "torch.int64" and m.shape == [1, 8])
    assert ids.data is not None and len(ids.data) == 8
