"""Shared test helpers: where the real GraphNet samples live (read in place, never copied)."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "graphnet"
"""Real GraphNet samples, a sibling of the repository (``../shared/fixtures/graphnet``)."""

SKIP_REASON = f"GraphNet fixtures not found at {FIXTURES} (they live outside the repository)"


def fixture_samples() -> list[Path]:
    """Every fixture folder with a model.py, at any depth, sorted; empty if absent."""
    if not FIXTURES.is_dir():
        return []
    return sorted(p.parent for p in FIXTURES.rglob("model.py"))


def fixture_path(relative: str) -> Path:
    """One fixture folder, e.g. ``"torchvision/resnet18"``; skips the test if it is absent."""
    path = FIXTURES / relative
    if not (path / "model.py").is_file():
        pytest.skip(SKIP_REASON if not FIXTURES.is_dir() else f"fixture {relative} not found")
    return path


def fixture_params() -> list:
    """``fixture_samples()`` as pytest params with readable ids (one skipped param if none)."""
    samples = fixture_samples()
    if not samples:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="no-fixtures")]
    return [pytest.param(p, id=p.relative_to(FIXTURES).as_posix()) for p in samples]


RESNET18 = "torchvision/resnet18"
RESNET10T = "timm/resnet10t.c3_in1k"
BERT = "transformers-auto-model/google/bert_uncased_L-2_H-128_A-2"
MLP_IRIS = "transformers-auto-model/sadhaklal_mlp-iris"
SQUEEZEBERT = "transformers-auto-model/squeezebert_squeezebert-uncased"
LIGHTGCN = "torchgeometric/LightGCN"


@pytest.fixture
def scripted_pool(monkeypatch):  # noqa: ANN001, ANN201
    """``passnet bench`` with its local pool replaced by a scripted executor: a test puts one in
    ``scripted_pool["executor"]``."""
    import passnet.runner.pool

    holder: dict = {}

    def pool(device, jobs=None, pin=True, prepare_ahead=1):  # noqa: ANN001, ANN202 - LocalPool
        return holder["executor"]

    monkeypatch.setattr(passnet.runner.pool, "LocalPool", pool)
    return holder
