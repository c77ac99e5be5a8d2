"""A two-output pattern: the sum and its ReLU, both used downstream, from one kernel.

Before:
    add = a + b
    relu = torch.nn.functional.relu(add, inplace=False)
After:
    add_relu_pair = pass_dir_AddAndRelu_add_relu_pair(a, b)
    getitem = add_relu_pair[0];  getitem_1 = add_relu_pair[1]
"""

import torch
import triton
import triton.language as tl


def pattern(x, y):
    s = x + y
    r = torch.nn.functional.relu(s, inplace=False)
    return s, r


def replacement_args(x, y):
    return (x, y)


@triton.jit
def _add_relu_pair_kernel(x_ptr, y_ptr, sum_ptr, relu_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    tl.store(sum_ptr + offs, s, mask=mask)
    tl.store(relu_ptr + offs, tl.where(s > 0, s, tl.zeros_like(s)), mask=mask)


@torch.fx.wrap
def add_relu_pair(x, y):
    if x.shape != y.shape or not (x.is_contiguous() and y.is_contiguous()):
        raise ValueError("add_relu_pair needs two contiguous tensors of one shape")
    s, r = torch.empty_like(x), torch.empty_like(x)
    n = x.numel()
    _add_relu_pair_kernel[(triton.cdiv(n, 1024),)](x, y, s, r, n, BLOCK=1024)
    return s, r


def replacement_func():
    return add_relu_pair
