"""Linear layer with bias + SiLU fused into one Triton matmul (kernels.py).

Matches ``F.silu(F.linear(x, w, b))`` (``nn.SiLU``, transformers' ``SiLUActivation``), at any
sizes: the pattern has no size literal, the kernel reads shapes and strides on every call.

Before (FX, as Dynamo captures ``nn.SiLU``):
    y = torch._C._nn.linear(x, weight, bias)
    out = torch.nn.functional.silu(y, inplace=False)
After:
    out = fused_linear_silu(x, weight, bias)
"""

import torch
from pass_dir.kernels import SILU, linear_act


def pattern(x, weight, bias):
    y = torch.nn.functional.linear(x, weight, bias)
    return torch.nn.functional.silu(y)


def replacement_args(x, weight, bias):
    return (x, weight, bias)


@torch.fx.wrap
def fused_linear_silu(x, weight, bias):
    return linear_act(x, weight, bias, SILU)


def replacement_func():
    return fused_linear_silu
