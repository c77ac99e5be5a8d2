"""Linear layer, residual add (the residual first) and LayerNorm with no dropout between them,
as one Triton matmul (kernels.py): ``LayerNorm(input + dense(h))``, the sum read by nothing else.
"""

import torch
from pass_dir.kernels import linear_add_ln

FREE_LITERALS = {"normalized_shape": "layer_norm.normalized_shape", "eps": "layer_norm.eps"}


def pattern(x, weight, bias, residual, ln_weight, ln_bias):
    y = torch.nn.functional.linear(x, weight, bias)
    return torch.nn.functional.layer_norm(residual + y, (768,), ln_weight, ln_bias, 1e-12)


def replacement_args(x, weight, bias, residual, ln_weight, ln_bias, *, normalized_shape=(768,), eps=1e-12):
    return (x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps)


@torch.fx.wrap
def fused_linear_add_layer_norm(x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps):
    return linear_add_ln(x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps)


def replacement_func():
    return fused_linear_add_layer_norm
