"""Llama's and Mistral's block end: ``o_proj`` / ``down_proj`` (a linear layer without bias),
``residual + y``, the sum both normalised by the next ``LlamaRMSNorm`` (float32 statistics,
``.to(input_dtype)``, the weight's product) and kept as the next residual: one Triton matmul
writing the sum and the normalised rows (kernels.py). ``eps`` and the input dtype are free.
"""

import torch
from pass_dir.kernels import linear_add_ln

FREE_LITERALS = {"eps": "add_1.b", "dtype": "to_1.1"}


def pattern(x, weight, residual, norm_weight):
    y = torch.nn.functional.linear(x, weight, None)
    total = residual + y
    h = total.to(torch.float32)
    variance = h.pow(2).mean(-1, keepdim=True)
    h = h * torch.rsqrt(variance + 1e-06)
    return total, norm_weight * h.to(torch.float32)


def replacement_args(x, weight, residual, norm_weight, *, eps=1e-06, dtype=torch.float32):
    return (x, weight, residual, norm_weight, eps, dtype)


@torch.fx.wrap
def fused_linear_add_rms_norm_sum(x, weight, residual, norm_weight, eps, dtype):
    if dtype != x.dtype:
        raise ValueError(f"fused_linear_add_rms_norm_sum: the norm rounds to {dtype}, the input is {x.dtype}")
    return linear_add_ln(x, weight, None, residual, norm_weight, None, None, eps, with_sum=True)


def replacement_func():
    return fused_linear_add_rms_norm_sum
