"""``x * sigmoid(g)``: second rule of the folder, a different replacement function."""

import torch
import triton
import triton.language as tl


def pattern(x, g):
    return x * torch.sigmoid(g)


def replacement_args(x, g):
    return (x, g)


@triton.jit
def _mul_sigmoid_kernel(x_ptr, g_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * tl.sigmoid(g)).to(out_ptr.dtype.element_ty), mask=mask)


@torch.fx.wrap
def mul_sigmoid(x, g):
    if x.shape != g.shape or not (x.is_contiguous() and g.is_contiguous()):
        raise ValueError("mul_sigmoid needs two contiguous tensors of one shape")
    out = torch.empty_like(x)
    n = x.numel()
    _mul_sigmoid_kernel[(triton.cdiv(n, 512),)](x, g, out, n, BLOCK=512)
    return out


def replacement_func():
    return mul_sigmoid
