"""``x * 2.0`` as a Triton kernel; the factor travels as a constant from replacement_args."""

import torch
import triton
import triton.language as tl


def pattern(x):
    return x * 2.0


def replacement_args(x):
    return (x, 2.0)


@triton.jit
def _scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


@torch.fx.wrap
def scale(x, factor):
    if not x.is_contiguous():
        raise ValueError("scale needs a contiguous tensor")
    out = torch.empty_like(x)
    n = x.numel()
    _scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, factor, BLOCK=1024)
    return out


def replacement_func():
    return scale
