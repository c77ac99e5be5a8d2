"""Linear layer with bias + CLIP's quick GELU fused into one Triton matmul (kernels.py).

Matches transformers' ``QuickGELUActivation`` after a linear layer (CLIP's MLP ``fc1``), at any
sizes: the pattern has no size literal, the kernel reads shapes and strides on every call.

Before (FX, as Dynamo captures CLIP's encoder):
    hidden_states_4 = torch._C._nn.linear(hidden_states_3, weight, bias)
    mul = 1.702 * hidden_states_4
    sigmoid = torch.sigmoid(mul)
    hidden_states_5 = hidden_states_4 * sigmoid
After:
    hidden_states_5 = fused_linear_quick_gelu(hidden_states_3, weight, bias)
"""

import torch
from pass_dir.kernels import QUICK_GELU, linear_act


def pattern(x, weight, bias):
    y = torch.nn.functional.linear(x, weight, bias)
    return y * torch.sigmoid(1.702 * y)


def replacement_args(x, weight, bias):
    return (x, weight, bias)


@torch.fx.wrap
def fused_linear_quick_gelu(x, weight, bias):
    return linear_act(x, weight, bias, QUICK_GELU)


def replacement_func():
    return fused_linear_quick_gelu
