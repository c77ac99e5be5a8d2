"""``gelu(x + b)`` over rows, its launch plan (sizes, strides, grid) memoised per signature."""

import torch
import triton
import triton.language as tl

from passnet.passes.launch import cached
from passnet.passes.plans import plan_cache


def pattern(x, b):
    return torch.nn.functional.gelu(x + b)


def replacement_args(x, b):
    return (x, b)


@cached
@triton.jit
def _add_gelu_kernel(x_ptr, b_ptr, out_ptr, n_cols, sx0, sx1, sb, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row, col = offs // n_cols, offs % n_cols
    x = tl.load(x_ptr + row * sx0 + col * sx1, mask=mask).to(tl.float32)
    v = x + tl.load(b_ptr + col * sb, mask=mask).to(tl.float32)
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


@plan_cache
def _plan(sx, tx, sb, tb):
    if len(sx) != 2 or len(sb) != 1 or sb[0] != sx[1]:
        raise ValueError("add_gelu: x [M, N] and b [N] only")
    n = sx[0] * sx[1]
    block = min(triton.next_power_of_2(max(n, 1)), 1024)
    return (triton.cdiv(n, block),), (sx[1], tx[0], tx[1], tb[0], n), {"BLOCK": block}


@torch.fx.wrap
def add_gelu(x, b):
    if x.dtype != b.dtype:
        raise ValueError("add_gelu: x and b of one dtype")
    grid, ints, consts = _plan[x.shape, x.stride(), b.shape, b.stride()]
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    _add_gelu_kernel[grid](x, b, out, *ints, **consts)
    return out


def replacement_func():
    return add_gelu
