"""Linear layer and residual add (the residual first), with no dropout, whose sum is both
LayerNorm'd and read again: CLIP's encoder layer (``hidden_states = residual + out_proj(h)``,
then ``layer_norm2``), one Triton matmul writing the sum and the normalised rows (kernels.py).
"""

import torch
from pass_dir.kernels import linear_add_ln

FREE_LITERALS = {"normalized_shape": "layer_norm.normalized_shape", "eps": "layer_norm.eps"}


def pattern(x, weight, bias, residual, ln_weight, ln_bias):
    y = torch.nn.functional.linear(x, weight, bias)
    total = residual + y
    return total, torch.nn.functional.layer_norm(total, (768,), ln_weight, ln_bias, 1e-12)


def replacement_args(x, weight, bias, residual, ln_weight, ln_bias, *, normalized_shape=(768,), eps=1e-12):
    return (x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps)


@torch.fx.wrap
def fused_linear_add_layer_norm_sum(x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps):
    return linear_add_ln(x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps, with_sum=True)


def replacement_func():
    return fused_linear_add_layer_norm_sum
