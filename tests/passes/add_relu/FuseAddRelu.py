"""Residual add + ReLU (torchvision ResNet basic block) fused into one Triton kernel.

Before (FX of GraphNet resnet18; Dynamo records ``out += identity`` as operator.iadd):
    out_4 += x_3;  out_5 = out_4
    out_6 = torch.nn.functional.relu(out_5, inplace=True)
After:
    fused_add_relu = pass_dir_FuseAddRelu_fused_add_relu(out_4, x_3)
"""

import torch
import triton
import triton.language as tl


def pattern(in_0, in_1):
    in_0 += in_1
    tmp = in_0
    return torch.nn.functional.relu(tmp, inplace=True)


def replacement_args(in_0, in_1):
    return (in_0, in_1)


@triton.jit
def _add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # flat [n] view of three contiguous tensors of one shape and dtype
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(s > 0, s, tl.zeros_like(s)), mask=mask)


@torch.fx.wrap
def fused_add_relu(x, y):
    if x.shape != y.shape or x.dtype != y.dtype:
        raise ValueError("fused_add_relu needs two tensors of one shape and dtype")
    if not (x.is_contiguous() and y.is_contiguous()):
        raise ValueError("fused_add_relu needs contiguous tensors")
    out = torch.empty_like(x)
    n = x.numel()
    block = 1024
    _add_relu_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block)
    return out


def replacement_func():
    return fused_add_relu
