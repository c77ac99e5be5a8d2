"""Kernels shared by the rules of this folder (imported as pass_dir.kernels and as kernels)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _mul_add_kernel(a_ptr, b_ptr, c_ptr, out_ptr, n, sign, BLOCK: tl.constexpr):
    # out = a * b + sign * c over a flat [n] view
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    c = tl.load(c_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * b + sign * c, mask=mask)


def _launch(a, b, c, sign):
    if not (a.shape == b.shape == c.shape) or not all(t.is_contiguous() for t in (a, b, c)):
        raise ValueError("mul-add kernels need three contiguous tensors of one shape")
    out = torch.empty_like(a)
    n = a.numel()
    _mul_add_kernel[(triton.cdiv(n, 1024),)](a, b, c, out, n, sign, BLOCK=1024)
    return out


@torch.fx.wrap
def fused_mul_add(a, b, c):
    return _launch(a, b, c, 1.0)


@torch.fx.wrap
def fused_mul_sub(a, b, c):
    return _launch(a, b, c, -1.0)
