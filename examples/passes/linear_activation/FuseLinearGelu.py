"""Linear layer with bias + GELU fused into one Triton matmul (kernels.py).

Matches ``F.gelu(F.linear(x, w, b))``, the MLP of BERT, RoBERTa, DistilBERT, ELECTRA, ViT,
DeiT, wav2vec 2.0 and Whisper (transformers' ``GELUActivation``, ``nn.GELU``), at any sizes:
the pattern has no size literal, the kernel reads shapes and strides on every call.

Before (FX, as Dynamo captures transformers' BERT):
    hidden_states_3 = torch._C._nn.linear(hidden_states_2, weight, bias)
    hidden_states_4 = torch._C._nn.gelu(hidden_states_3)
After:
    hidden_states_4 = fused_linear_gelu(hidden_states_2, weight, bias)
Eager writes the linear output to memory and reads it back for the activation; here the bias
add and the activation run in the matmul's epilogue.
"""

import torch
from pass_dir.kernels import GELU, linear_act


def pattern(x, weight, bias):
    y = torch.nn.functional.linear(x, weight, bias)
    return torch.nn.functional.gelu(y)


def replacement_args(x, weight, bias):
    return (x, weight, bias)


@torch.fx.wrap
def fused_linear_gelu(x, weight, bias):
    return linear_act(x, weight, bias, GELU)


def replacement_func():
    return fused_linear_gelu
