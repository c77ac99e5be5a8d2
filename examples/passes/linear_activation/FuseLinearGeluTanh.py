"""Linear layer with bias + tanh-approximate GELU fused into one Triton matmul (kernels.py).

Matches ``F.gelu(F.linear(x, w, b), approximate="tanh")`` (``nn.GELU(approximate="tanh")``,
transformers' ``gelu_pytorch_tanh``), at any sizes: the pattern has no size literal, the
kernel reads shapes and strides on every call.

Before (FX, as Dynamo captures it):
    y = torch._C._nn.linear(x, weight, bias)
    out = torch._C._nn.gelu(y, approximate="tanh")
After:
    out = fused_linear_gelu_tanh(x, weight, bias)
"""

import torch
from pass_dir.kernels import GELU_TANH, linear_act


def pattern(x, weight, bias):
    y = torch.nn.functional.linear(x, weight, bias)
    return torch.nn.functional.gelu(y, approximate="tanh")


def replacement_args(x, weight, bias):
    return (x, weight, bias)


@torch.fx.wrap
def fused_linear_gelu_tanh(x, weight, bias):
    return linear_act(x, weight, bias, GELU_TANH)


def replacement_func():
    return fused_linear_gelu_tanh
