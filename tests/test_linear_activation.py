"""The hand-written pass ``examples/passes/linear_activation``: a linear layer with bias and the
activation after it as one Triton matmul, at any size. Each rule on a small module (odd sizes,
float32 and bfloat16), a zoo model at a hidden size no pass was written for, and the guard
that hands an input the kernel cannot take back to the pattern. CPU, Triton's interpreter."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")  # before torch._dynamo imports Triton

import pytest
import torch
import torch.nn.functional as F
from helpers.accelerate import compiled_under, zoo_under

from passnet.accelerate import PassLibrary
from passnet.integrity.policy import check_pass_dir
from passnet.scores.compare import compare_outputs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "passes"
FOLDER = EXAMPLES / "linear_activation"
LABEL = "examples/passes/linear_activation:"
M, K, N = 5, 24, 40  # rows (batch x sequence), in and out features: no power of two, no tile


def _gelu_new(y: torch.Tensor) -> torch.Tensor:
    """transformers' ``NewGELUActivation`` (ALBERT, Phi, GPT-2), as it is written."""
    inner = math.sqrt(2.0 / math.pi) * (y + 0.044715 * torch.pow(y, 3.0))
    return 0.5 * y * (1.0 + torch.tanh(inner))


class LinearAct(torch.nn.Module):
    """``act(linear(x))`` with an ``nn.Linear`` of random weights and bias."""

    def __init__(self, act: Callable[[torch.Tensor], torch.Tensor]) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(K, N)
        self.act = act

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.fc(x))


class Conv1DGelu(torch.nn.Module):
    """GPT-2's MLP input: ``Conv1D`` (weight [K, N], ``addmm`` on the flattened rows, then the
    view back) and the tanh GELU formula."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(K, N) * 0.2)
        self.bias = torch.nn.Parameter(torch.randn(N))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        size = x.size()[:-1] + (N,)
        h = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(size)
        return _gelu_new(h)


CASES: dict[str, Callable[[], torch.nn.Module]] = {
    "FuseLinearGelu": lambda: LinearAct(torch.nn.GELU()),
    "FuseLinearGeluTanh": lambda: LinearAct(torch.nn.GELU(approximate="tanh")),
    "FuseLinearGeluNew": lambda: LinearAct(_gelu_new),
    "FuseLinearRelu": lambda: LinearAct(torch.nn.ReLU(inplace=True)),  # writes the fresh output
    "FuseLinearTorchRelu": lambda: LinearAct(torch.relu),
    "FuseLinearSilu": lambda: LinearAct(torch.nn.SiLU()),
    "FuseLinearQuickGelu": lambda: LinearAct(lambda y: y * torch.sigmoid(1.702 * y)),
    "FuseAddmmGeluNew": Conv1DGelu,
}


def test_the_folder_passes_the_policy_and_loads_every_rule() -> None:
    assert check_pass_dir(FOLDER) == []
    lib = PassLibrary.load([FOLDER])
    assert [label.removeprefix(LABEL) for label in lib.labels] == list(CASES)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize("rule", list(CASES))
def test_each_rule_fires_once_and_matches_eager(rule: str, dtype: torch.dtype) -> None:
    torch.manual_seed(0)
    model = CASES[rule]().to(dtype).eval()
    x = torch.randn(1, M, K, dtype=dtype)
    out, ref, be = compiled_under(FOLDER, model, x)
    fired = {label.removeprefix(LABEL): n for label, n in be.fired().items() if n}
    assert fired == {rule: 1}
    assert be.summary()[LABEL + rule]["fallback_calls"] == 0
    assert be.coverage()["bias+activation"] == (1, 1)  # CLIP's quick GELU counted too
    cmp = compare_outputs([out], [ref])
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -5, cmp


@pytest.mark.parametrize("name", ["bert", "gpt2"])
def test_a_zoo_model_at_hidden_96_fuses_every_bias_activation_site(name: str) -> None:
    """At a hidden size no pass was written for, with the whole bundled library (what
    ``passnet accelerate MODEL --passes examples/passes --hidden 96`` loads)."""
    out, ref, be = zoo_under(EXAMPLES, name, batch=2, size=8, hidden=96)
    assert be.coverage()["bias+activation"] == (2, 2)
    rule = "FuseAddmmGeluNew" if name == "gpt2" else "FuseLinearGelu"
    summary = be.summary()[LABEL + rule]
    assert summary["count"] == 2 and summary["fallback_calls"] == 0, summary
    cmp = compare_outputs(out, ref)
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -5, cmp


class Transposed(torch.nn.Module):
    """A linear layer over ``x.transpose(0, 1)``: rows that no single stride walks."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(K, N)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.fc(x.transpose(0, 1)))


@pytest.mark.parametrize(
    ("model", "x", "reason"),
    [
        (Transposed, torch.randn(2, 3, K), "does not flatten to [M, K]"),
        (
            lambda: LinearAct(F.gelu).double(),
            torch.randn(M, K, dtype=torch.float64),
            "needs one float dtype",
        ),
    ],
    ids=["non-flattenable-rows", "float64"],
)
def test_an_input_the_kernel_refuses_falls_back_to_the_pattern(
    model: Callable[[], torch.nn.Module], x: torch.Tensor, reason: str
) -> None:
    torch.manual_seed(0)
    out, ref, be = compiled_under(FOLDER, model().eval(), x)
    summary = be.summary()[LABEL + "FuseLinearGelu"]
    assert summary["count"] == 1 and summary["fallback_calls"] == 1, summary
    assert reason in summary["fallback_reason"]
    torch.testing.assert_close(out, ref, rtol=0, atol=0)  # the pattern itself ran
