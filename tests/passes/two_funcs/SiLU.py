"""``x * torch.sigmoid(x)`` (SiLU) as one Triton kernel, a second replacement function."""

import torch
import triton
import triton.language as tl


def pattern(x):
    return x * torch.sigmoid(x)


def replacement_args(x):
    return (x,)


@triton.jit
def _silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = x / (1.0 + tl.exp(-x))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


@torch.fx.wrap
def silu(x):
    if not x.is_contiguous():
        raise ValueError("silu needs a contiguous tensor")
    out = torch.empty_like(x)
    n = x.numel()
    _silu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def replacement_func():
    return silu
