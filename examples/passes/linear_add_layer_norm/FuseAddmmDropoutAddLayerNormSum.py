"""GPT-2's attention block end: ``Conv1D`` (an ``addmm`` on the flattened rows, weight [K, N],
then a view back), dropout (eval), ``attn_output + residual``, the sum both read by ``ln_2`` and
kept as the next residual: one Triton matmul writing the sum and the normalised rows
(kernels.py). The view's size is a free literal.
"""

import torch
from pass_dir.kernels import linear_add_ln

FREE_LITERALS = {"size": "view.1", "p": "dropout.p", "normalized_shape": "layer_norm.normalized_shape", "eps": "layer_norm.eps"}


def pattern(bias, x, weight, residual, ln_weight, ln_bias):
    h = torch.addmm(bias, x, weight)
    y = h.view((1, 16, 768))
    y = torch.nn.functional.dropout(y, 0.1, False, False)
    total = y + residual
    return total, torch.nn.functional.layer_norm(total, (768,), ln_weight, ln_bias, 1e-05)


def replacement_args(bias, x, weight, residual, ln_weight, ln_bias, *, size=(1, 16, 768), p=0.1, normalized_shape=(768,), eps=1e-05):
    return (x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps, size)


@torch.fx.wrap
def fused_addmm_add_layer_norm_sum(x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps, size):
    if x.dim() != 2:
        raise ValueError(f"fused_addmm_add_layer_norm_sum: addmm of a {x.dim()}-D input")
    return linear_add_ln(x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps, with_sum=True, w_kn=True, size=size)


def replacement_func():
    return fused_addmm_add_layer_norm_sum
