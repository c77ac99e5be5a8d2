"""The hand-written pass ``examples/passes/linear_add_layer_norm``: a linear layer, (dropout,)
the residual add and a LayerNorm as one Triton matmul with the row statistics in its epilogue,
at any size. Each rule on a small module (odd sizes, float32 and bfloat16), zoo models at a
hidden size no pass was written for (post-norm BERT, pre-norm ViT and Whisper), and the guard
that hands an input the kernel cannot take back to the pattern. CPU, Triton's interpreter."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")  # before torch._dynamo imports Triton

import pytest
import torch
import torch.nn.functional as F
from helpers.accelerate import compiled_under, zoo_under

from passnet.accelerate import PassLibrary
from passnet.integrity.policy import check_pass_dir
from passnet.passes.loader import load_pass_dir
from passnet.scores.compare import compare_outputs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "passes"
FOLDER = EXAMPLES / "linear_add_layer_norm"
LABEL = "examples/passes/linear_add_layer_norm:"
M, K, N = 5, 24, 40  # rows (batch x sequence), in and out features: no power of two


class Block(torch.nn.Module):
    """``LayerNorm(dropout(linear(x)) + r)`` in one of the spellings models use; ``with_sum``
    returns the sum too (a pre-norm model reads it again as the next residual)."""

    def __init__(self, dropout: bool, residual_first: bool, with_sum: bool, eps: float) -> None:
        super().__init__()
        self.fc, self.ln = torch.nn.Linear(K, N), torch.nn.LayerNorm(N, eps=eps)
        self.drop = torch.nn.Dropout(0.3) if dropout else None
        self.residual_first, self.with_sum = residual_first, with_sum
        with torch.no_grad():  # weights and bias that are not LayerNorm's defaults
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = self.fc(x)
        if self.drop is not None:
            y = self.drop(y)
        total = r + y if self.residual_first else y + r
        out = self.ln(total)
        return (total, out * 2) if self.with_sum else (out,)


class Conv1DBlock(Block):
    """GPT-2's spelling: ``Conv1D`` (weight [K, N], ``addmm`` on the flattened rows, then the
    view back), dropout, the residual add, ``LayerNorm``."""

    def __init__(self, dropout: bool, residual_first: bool, with_sum: bool, eps: float) -> None:
        super().__init__(dropout, residual_first, with_sum, eps)
        self.weight = torch.nn.Parameter(torch.randn(K, N) * 0.2)

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> tuple[torch.Tensor, ...]:
        size = x.size()[:-1] + (N,)
        y = torch.addmm(self.fc.bias, x.view(-1, x.size(-1)), self.weight).view(size)
        y = self.drop(y) if self.drop is not None else y
        total = r + y if self.residual_first else y + r
        out = self.ln(total)
        return (total, out * 2) if self.with_sum else (out,)


class RMSBlock(torch.nn.Module):
    """Llama's block end: a linear layer without bias, ``residual + y``, ``LlamaRMSNorm`` as
    transformers writes it (float32 statistics, back to the input dtype, the weight's product).
    The constructor takes ``Block``'s arguments; only ``with_sum`` and ``eps`` count."""

    def __init__(self, dropout: bool, residual_first: bool, with_sum: bool, eps: float) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(K, N, bias=False)
        self.weight = torch.nn.Parameter(torch.rand(N) + 0.5)
        self.with_sum, self.eps = with_sum, eps

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> tuple[torch.Tensor, ...]:
        total = r + self.fc(x)
        h = total.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        out = self.weight * h.to(total.dtype)
        return (total, out * 2) if self.with_sum else (out,)


CASES = {  # rule -> (module, dropout, residual first, with the sum), in the folder's order
    "FuseLinearDropoutAddLayerNorm": (Block, True, False, False),
    "FuseResidualLinearDropoutAddLayerNorm": (Block, True, True, False),
    "FuseLinearAddLayerNorm": (Block, False, False, False),
    "FuseResidualLinearAddLayerNorm": (Block, False, True, False),
    "FuseAddmmDropoutAddLayerNorm": (Conv1DBlock, True, False, False),
    "FuseResidualAddmmDropoutAddLayerNorm": (Conv1DBlock, True, True, False),
    "FuseLinearAddRMSNorm": (RMSBlock, False, True, False),
    "FuseLinearDropoutAddLayerNormSum": (Block, True, False, True),
    "FuseResidualLinearDropoutAddLayerNormSum": (Block, True, True, True),
    "FuseLinearAddLayerNormSum": (Block, False, False, True),
    "FuseResidualLinearAddLayerNormSum": (Block, False, True, True),
    "FuseAddmmDropoutAddLayerNormSum": (Conv1DBlock, True, False, True),
    "FuseResidualAddmmDropoutAddLayerNormSum": (Conv1DBlock, True, True, True),
    "FuseLinearAddRMSNormSum": (RMSBlock, False, True, True),
}


def test_the_folder_passes_the_policy_and_loads_every_rule() -> None:
    assert check_pass_dir(FOLDER) == []
    lib = PassLibrary.load([FOLDER])
    assert [label.removeprefix(LABEL) for label in lib.labels] == list(CASES)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize("rule", list(CASES))
def test_each_rule_fires_once_and_matches_eager(rule: str, dtype: torch.dtype) -> None:
    torch.manual_seed(0)
    module, *form = CASES[rule]
    model = module(*form, eps=1e-6).to(dtype).eval()
    x, r = torch.randn(1, M, K, dtype=dtype), torch.randn(1, M, N, dtype=dtype)
    out, ref, be = compiled_under(FOLDER, model, x, r)
    fired = {label.removeprefix(LABEL): n for label, n in be.fired().items() if n}
    assert fired == {rule: 1}
    assert be.summary()[LABEL + rule]["fallback_calls"] == 0
    norm = "add+rms_norm" if module is RMSBlock else "add+layer_norm"
    assert be.coverage()[norm] == (1, 1)
    cmp = compare_outputs(list(out), list(ref))
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -5, cmp


@pytest.mark.parametrize(("name", "rules"), [
    # post-norm: two sites a layer (the embeddings' add + LayerNorm has no linear before it)
    ("bert", {"FuseLinearDropoutAddLayerNorm": 4}),
    # pre-norm: the sum is the next residual, but the last one only feeds the final LayerNorm
    ("vit", {"FuseLinearDropoutAddLayerNormSum": 3, "FuseLinearDropoutAddLayerNorm": 1}),
    # the residual first, and a transposed one (the convolutions' output): rows on two strides
    ("whisper-encoder", {"FuseResidualLinearDropoutAddLayerNormSum": 3,
                         "FuseResidualLinearDropoutAddLayerNorm": 1}),
    # no dropout, the residual first: CLIP's encoder; its last sum feeds no LayerNorm
    ("clip-vision", {"FuseResidualLinearAddLayerNormSum": 3}),
    # RMSNorm after a linear layer without bias (Mistral's is the same code); the last sum
    # feeds only the final norm
    ("llama", {"FuseLinearAddRMSNormSum": 3, "FuseLinearAddRMSNorm": 1}),
    # Conv1D (addmm, then a view), the residual second after attention, first after the MLP
    ("gpt2", {"FuseAddmmDropoutAddLayerNormSum": 2, "FuseResidualAddmmDropoutAddLayerNormSum": 1,
              "FuseResidualAddmmDropoutAddLayerNorm": 1}),
])  # fmt: skip
def test_zoo_models_at_hidden_96_fuse_their_block_ends(name: str, rules: dict[str, int]) -> None:
    """At a hidden size no pass was written for, with the whole bundled library (what
    ``passnet accelerate MODEL --passes examples/passes --hidden 96`` loads)."""
    out, ref, be = zoo_under(EXAMPLES, name, batch=2, size=8, hidden=96)
    summary = {k.removeprefix(LABEL): v for k, v in be.summary().items() if k.startswith(LABEL)}
    assert {k: v["count"] for k, v in summary.items() if v["count"]} == rules
    assert all(v["fallback_calls"] == 0 for v in summary.values()), summary
    norm = "add+rms_norm" if name == "llama" else "add+layer_norm"
    assert be.coverage()[norm][1] == sum(rules.values())
    cmp = compare_outputs(out, ref)
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -5, cmp


class Wide(torch.nn.Module):
    """A row too long for one tile: the kernel refuses it, the pattern runs instead."""

    def __init__(self) -> None:
        super().__init__()
        self.fc, self.ln = torch.nn.Linear(8, 1100), torch.nn.LayerNorm(1100)

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return self.ln(self.fc(x) + r)


def test_a_row_wider_than_a_tile_falls_back_to_the_pattern() -> None:
    torch.manual_seed(0)
    model = Wide().eval()
    out, ref, be = compiled_under(FOLDER, model, torch.randn(3, 8), torch.randn(3, 1100))
    summary = be.summary()[LABEL + "FuseLinearAddLayerNorm"]
    assert summary["count"] == 1 and summary["fallback_calls"] == 1
    assert "do not fit one tile" in str(summary)
    torch.testing.assert_close(out, ref)


def test_the_kernel_alone_against_eager_in_float16() -> None:
    """The wrapper on its own, in float16, with a weight stored [K, N] (``addmm``'s layout)."""
    linear_add_ln = load_pass_dir(FOLDER).rules[0].replacement.__globals__["linear_add_ln"]
    torch.manual_seed(0)
    x, w = torch.randn(M, K).half(), (torch.randn(K, N) * 0.2).half()
    b, r = torch.randn(N).half(), torch.randn(M, N).half()
    lw, lb = torch.rand(N).half() + 0.5, torch.randn(N).half()
    total, out = linear_add_ln(x, w, b, r, lw, lb, (N,), 1e-5, with_sum=True, w_kn=True)
    want_total = torch.addmm(b.float(), x.float(), w.float()).half() + r
    want = F.layer_norm(want_total.float(), (N,), lw.float(), lb.float(), 1e-5).half()
    for got, ref in ((total, want_total), (out, want)):
        cmp = compare_outputs([got], [ref])
        assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= -3, cmp
