"""``relu(a + b)``: first of two rules in one folder, each with its own replacement function."""

import torch
import triton
import triton.language as tl


def pattern(a, b):
    return torch.relu(a + b)


def replacement_args(a, b):
    return (a, b)


@triton.jit
def _add_relu_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(s, tl.zeros_like(s)), mask=mask)


@torch.fx.wrap
def add_relu(a, b):
    if a.shape != b.shape or not (a.is_contiguous() and b.is_contiguous()):
        raise ValueError("add_relu needs two contiguous tensors of one shape")
    out = torch.empty_like(a)
    n = a.numel()
    _add_relu_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out


def replacement_func():
    return add_relu
