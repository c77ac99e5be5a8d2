"""Linear layer with bias + the tanh GELU written out as a formula (transformers'
``NewGELUActivation``, ``gelu_new``: ALBERT, Phi), fused into one Triton matmul (kernels.py).

Matches at any sizes: the pattern has no size literal, the kernel reads shapes and strides on
every call.

Before (FX, as Dynamo captures ALBERT's feed-forward):
    ffn_output = torch._C._nn.linear(attn_output_6, weight, bias)
    mul = 0.5 * ffn_output
    pow_1 = torch.pow(ffn_output, 3.0)
    ... tanh(0.7978845608028654 * (ffn_output + 0.044715 * pow_1)) ...
    ffn_output_1 = mul * (1.0 + tanh)
After:
    ffn_output_1 = fused_linear_gelu_new(attn_output_6, weight, bias)
The kernel computes the formula in float32, rounding after each op to the input dtype as
eager does in float16 and bfloat16.
"""

import torch
from pass_dir.kernels import GELU_NEW, linear_act


def pattern(x, weight, bias):
    y = torch.nn.functional.linear(x, weight, bias)
    return 0.5 * y * (1.0 + torch.tanh(0.7978845608028654 * (y + 0.044715 * torch.pow(y, 3.0))))


def replacement_args(x, weight, bias):
    return (x, weight, bias)


@torch.fx.wrap
def fused_linear_gelu_new(x, weight, bias):
    return linear_act(x, weight, bias, GELU_NEW)


def replacement_func():
    return fused_linear_gelu_new
