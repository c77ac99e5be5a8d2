"""Residual add + RMSNorm returning both the sum and the normed rows (a two-output pattern)."""

import torch
import triton
import triton.language as tl


def pattern(x, residual, weight):
    h = x + residual
    var = h.pow(2).mean(-1, keepdim=True)
    out = h * torch.rsqrt(var + 1e-06) * weight
    return h, out


def replacement_args(x, residual, weight):
    return (x, residual, weight)


@triton.jit
def _residual_rms_kernel(x_ptr, r_ptr, w_ptr, h_ptr, out_ptr, C, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    base = row * C
    h = tl.load(x_ptr + base + cols, mask=mask, other=0.0) + tl.load(
        r_ptr + base + cols, mask=mask, other=0.0)
    tl.store(h_ptr + base + cols, h, mask=mask)
    hf = h.to(tl.float32)
    inv = tl.math.rsqrt(tl.sum(hf * hf, axis=0) / C + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + base + cols, (hf * inv * w).to(out_ptr.dtype.element_ty), mask=mask)


@torch.fx.wrap
def residual_rms_norm(x, residual, weight):
    C = x.shape[-1]
    if x.shape != residual.shape or not (x.is_contiguous() and residual.is_contiguous()):
        raise ValueError("residual_rms_norm needs two contiguous inputs of one shape")
    h, out = torch.empty_like(x), torch.empty_like(x)
    _residual_rms_kernel[(x.numel() // C,)](x, residual, weight, h, out, C, 1e-06,
                                            BLOCK=triton.next_power_of_2(C))
    return h, out


def replacement_func():
    return residual_rms_norm
