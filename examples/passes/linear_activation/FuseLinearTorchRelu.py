"""Linear layer with bias + ``torch.relu`` fused into one Triton matmul (kernels.py).

Dynamo records ``torch.relu(y)`` as its own op, not as ``F.relu``, so it needs its own rule;
at any sizes: the pattern has no size literal, the kernel reads shapes and strides on every
call.

Before (FX):
    y = torch._C._nn.linear(x, weight, bias)
    out = torch.relu(y)
After:
    out = fused_linear_torch_relu(x, weight, bias)
"""

import torch
from pass_dir.kernels import RELU, linear_act


def pattern(x, weight, bias):
    y = torch.nn.functional.linear(x, weight, bias)
    return torch.relu(y)


def replacement_args(x, weight, bias):
    return (x, weight, bias)


@torch.fx.wrap
def fused_linear_torch_relu(x, weight, bias):
    return linear_act(x, weight, bias, RELU)


def replacement_func():
    return fused_linear_torch_relu
