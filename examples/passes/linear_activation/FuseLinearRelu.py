"""Linear layer with bias + ReLU fused into one Triton matmul (kernels.py).

Matches ``F.relu(F.linear(x, w, b))`` (``nn.ReLU``: MobileBERT, OPT; also ``inplace=True``
where nothing else reads the linear's output, docs/accelerate.md), at any sizes: the pattern
has no size literal, the kernel reads shapes and strides on every call.

Before (FX, as Dynamo captures ``nn.ReLU``):
    y = torch._C._nn.linear(x, weight, bias)
    out = torch.nn.functional.relu(y, inplace=False)
After:
    out = fused_linear_relu(x, weight, bias)
"""

import torch
from pass_dir.kernels import RELU, linear_act


def pattern(x, weight, bias):
    y = torch.nn.functional.linear(x, weight, bias)
    return torch.nn.functional.relu(y)


def replacement_args(x, weight, bias):
    return (x, weight, bias)


@torch.fx.wrap
def fused_linear_relu(x, weight, bias):
    return linear_act(x, weight, bias, RELU)


def replacement_func():
    return fused_linear_relu
