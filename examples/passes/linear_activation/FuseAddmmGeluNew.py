"""GPT-2's MLP input: ``Conv1D`` (``addmm`` + view) and the tanh GELU formula, fused into one
Triton matmul (kernels.py).

Before (FX, as Dynamo captures transformers' GPT-2, hidden 96):
    x_4 = torch.addmm(c_fc_bias, view_8, c_fc_weight)          # weight [K, N]
    x_5 = x_4.view((1, 16, 384))
    mul_1 = 0.5 * x_5
    pow_1 = torch.pow(x_5, 3.0)
    ... tanh(0.7978845608028654 * (x_5 + 0.044715 * pow_1)) ...
    hidden_states_5 = mul_1 * (1.0 + tanh)
After:
    hidden_states_5 = fused_addmm_gelu_new(view_8, c_fc_weight, c_fc_bias, (1, 16, 384))
The view's sizes (batch, sequence, 4 x hidden) are a free literal, so the rule fires at every
size. The kernel computes the formula in float32, rounding after each op to the input dtype as
eager does in float16 and bfloat16.
"""

import torch
from pass_dir.kernels import GELU_NEW, linear_act

FREE_LITERALS = {"size": "view.1"}


def pattern(bias, x, weight):
    h = torch.addmm(bias, x, weight)
    y = h.view((1, 16, 384))
    return 0.5 * y * (1.0 + torch.tanh(0.7978845608028654 * (y + 0.044715 * torch.pow(y, 3.0))))


def replacement_args(bias, x, weight, *, size=(1, 16, 384)):
    return (x, weight, bias, size)


@torch.fx.wrap
def fused_addmm_gelu_new(x, weight, bias, size):
    if x.dim() != 2:
        raise ValueError(f"fused_addmm_gelu_new: addmm of a {x.dim()}-D input")
    out = linear_act(x, weight, bias, GELU_NEW, True)
    known = 1  # the product of the sizes other than one -1
    for s in size:
        known *= s if s != -1 else 1
    holes = sum(s == -1 for s in size)
    fits = out.numel() == known if holes == 0 else holes == 1 and out.numel() % max(known, 1) == 0
    if not fits or size[-1] != out.shape[-1]:
        raise ValueError(f"fused_addmm_gelu_new: view {size} of a {tuple(out.shape)} product")
    return out.view(size)


def replacement_func():
    return fused_addmm_gelu_new
