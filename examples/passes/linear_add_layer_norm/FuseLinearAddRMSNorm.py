"""A linear layer without bias, the residual add (the residual first) and Llama's RMSNorm, the
sum read by nothing else (the last block's end, before the final norm), as one Triton matmul
(kernels.py).
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
    return norm_weight * h.to(torch.float32)


def replacement_args(x, weight, residual, norm_weight, *, eps=1e-06, dtype=torch.float32):
    return (x, weight, residual, norm_weight, eps, dtype)


@torch.fx.wrap
def fused_linear_add_rms_norm(x, weight, residual, norm_weight, eps, dtype):
    if dtype != x.dtype:
        raise ValueError(f"fused_linear_add_rms_norm: the norm rounds to {dtype}, the input is {x.dtype}")
    return linear_add_ln(x, weight, None, residual, norm_weight, None, None, eps)


def replacement_func():
    return fused_linear_add_rms_norm
