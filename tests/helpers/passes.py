"""Throwaway pass folders, rule sources and GraphNet fixture modules the pass test modules
share (tests/test_passes.py, test_passes_order.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch

from passnet.graph.sample import load_module, load_sample, materialize

PASSES = Path(__file__).resolve().parents[1] / "passes"
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "graphnet"
RESNET18 = FIXTURES / "torchvision" / "resnet18"
BERT = FIXTURES / "transformers-auto-model" / "google" / "bert_uncased_L-2_H-128_A-2"
SWIN_0 = next(FIXTURES.glob("decomposed/*/*/_decomposed/*_0"), FIXTURES / "missing")

needs_fixtures = pytest.mark.skipif(not RESNET18.is_dir(), reason="GraphNet fixtures not found")


def write_pass(root: Path, files: dict[str, str], rules: list[str] | None = None) -> Path:
    """A pass folder under ``root``; ``rules`` defaults to every file stem given."""
    root.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        (root / name).write_text(textwrap.dedent(body))
    names = rules if rules is not None else [Path(n).stem for n in files]
    (root / "sorted_output_pass_rule_names.json").write_text(str(names).replace("'", '"'))
    return root


def simple_rule(pattern: str, params: str = "x") -> str:
    """Rule source whose replacement is a plain wrapped function (for count-only tests)."""
    return f"""
import torch
import torch.nn.functional as F

def pattern({params}):
{textwrap.indent(textwrap.dedent(pattern).strip(), "    ")}

def replacement_args({params}):
    return ({params},)

@torch.fx.wrap
def fake_kernel(*args):
    return args[0]

def replacement_func():
    return fake_kernel
"""


def fixture_module(folder: Path, size: int | None = None) -> tuple[torch.nn.Module, list]:
    sample = load_sample(folder)
    args = materialize(sample, seed=0)
    if size is not None:  # a smaller image keeps the Triton interpreter quick
        args[sample.arg_names.index("L_x_")] = torch.rand(1, 3, size, size)
    return load_module(sample), args
