"""``layer_norm`` over a last dim of 768: one program per row, mean and variance by ``tl.sum``."""

import torch
import triton
import triton.language as tl

_SUPPORTED = (torch.float16, torch.bfloat16, torch.float32)
_EPS = 1e-05


def pattern(x, weight, bias):
    return torch.nn.functional.layer_norm(x, (768,), weight, bias, 1e-05)


def replacement_args(x, weight, bias):
    return (x, weight, bias)


@triton.jit
def _layer_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, stride_x, stride_out, C, eps,
                       BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / C
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / C
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    y = diff * tl.math.rsqrt(var + eps) * w + b
    tl.store(out_ptr + row * stride_out + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@torch.fx.wrap
def layer_norm_768(x, weight, bias):
    C = x.shape[-1]
    if x.dtype not in _SUPPORTED or not x.is_contiguous() or weight.numel() != C:
        raise ValueError("layer_norm_768 needs a contiguous float input matching the weight")
    B = x.numel() // C
    rows = x.view(B, C)
    out = torch.empty((B, C), dtype=x.dtype, device=x.device)
    BLOCK = triton.next_power_of_2(C)
    _layer_norm_kernel[(B,)](rows, weight, bias, out, rows.stride(0), out.stride(0), C, _EPS,
                             BLOCK=BLOCK, num_warps=4 if BLOCK <= 1024 else 8)
    return out.view(x.shape)


def replacement_func():
    return layer_norm_768
