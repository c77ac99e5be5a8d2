"""Whole-model acceleration on the GPU: the replacement's kernel launched by Inductor itself
(a ``torch.library.triton_op``). Its own module: tests/test_accelerate.py runs Triton's
interpreter, set for the whole process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

import passnet
from passnet.accelerate.models import load_model
from passnet.scores.compare import compare_outputs

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "passes"
BERT_SITES = 5  # embeddings + 2 layers x (attention output, output): add then LayerNorm(128)


@pytest.mark.gpu
@pytest.mark.skipif(
    not torch.cuda.is_available() or os.environ.get("TRITON_INTERPRET") == "1",
    reason="needs a CUDA GPU and compiled Triton (TRITON_INTERPRET unset)",
)
def test_inductor_launches_the_replacement_kernel_itself() -> None:
    """On CUDA a ``cached``-kernel replacement is a triton op: Inductor traces into it and its
    generated code launches the pass's kernels (residual add + LayerNorm, linear + GELU), with
    no passnet op called per site."""
    from torch._inductor.utils import run_and_get_code

    loaded = load_model("bert", batch=2, size=16, device="cuda")
    be = passnet.backend(passes=EXAMPLES, inner="inductor")
    with torch.no_grad():
        reference = loaded()
        out, codes = run_and_get_code(loaded, torch.compile(loaded.model, backend=be))
    summary = be.summary()["examples/passes/add_layer_norm:FuseAddLayerNorm"]
    assert summary["launch"] == {"inductor": BERT_SITES}, summary["launch_why"]
    linear = be.summary()["examples/passes/linear_activation:FuseLinearGelu"]
    assert linear["launch"] == {"inductor": 2}, linear["launch_why"]  # a kernel of a helper module
    code = "\n".join(codes)
    assert "_add_layer_norm_kernel" in code and "_linear_act_kernel" in code
    assert "torch.ops.passnet" not in code
    comparison = compare_outputs(dict(out), dict(reference))
    assert comparison.tightest_passing_t is not None and comparison.tightest_passing_t <= -4
