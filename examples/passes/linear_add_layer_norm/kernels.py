"""The kernel every rule of this folder launches: ``norm(x @ w.T + b + r)`` as one Triton matmul
whose epilogue adds the bias and the residual and normalises each row.

A transformer block ends its attention and its MLP with a linear layer, (dropout, the identity
in eval), the residual add and a norm. Inductor's default mode runs the matmul (cuBLAS) and
then one kernel for bias + add + norm, writing the linear output and reading it back; here one
program computes ``BLOCK_M`` full rows of the product, so the norm's row statistics are taken
in registers and one launch does the lot. Pre-norm models (ViT, Whisper, GPT-2, Llama) read
the sum again as the next residual: the ``with_sum`` form writes it too. The norm is a
LayerNorm (with or without its bias) or Llama's RMSNorm; the linear layer may have no bias.

``x`` and the residual are read through their strides, rows on two strides (the last leading
dim and the flattened ones before it), the weight as [N, K] (``nn.Linear``) or [K, N] (GPT-2's
``Conv1D`` through ``addmm``). Rounding follows eager: the linear output is rounded to the
input dtype, the sum too; the LayerNorm runs in float32 and rounds once, the RMSNorm rounds
the normalised row before the weight's product, as ``LlamaRMSNorm`` does. float32 multiplies
in IEEE float32 (eager's float32 matmul uses no TF32). A row must fit one tile: N up to
``MAX_N``; beyond, and for anything else the kernel cannot take, ``ValueError`` (the
whole-model backend then runs the rule's pattern for that call).
"""

import torch
import triton
import triton.language as tl

from passnet.passes.launch import cached
from passnet.passes.plans import plan_cache

MAX_N = 1024  # a whole row in one tile: the accumulator is BLOCK_M x next_power_of_2(N)
_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
_LIMIT = 2**31  # the kernel's element offsets are 32-bit


@triton.jit
def _round(v, DT: tl.constexpr):
    # float32 -> DT -> float32, to nearest even; bfloat16 by bit arithmetic, as Triton's
    # interpreter truncates that conversion
    if DT == tl.bfloat16:
        b = v.to(tl.uint32, bitcast=True)
        b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
        return b.to(tl.float32, bitcast=True)
    elif DT == tl.float32:
        return v
    else:
        return v.to(DT).to(tl.float32)


@cached
@triton.jit
def _linear_add_ln_kernel(
    x_ptr,
    w_ptr,
    b_ptr,
    r_ptr,
    lw_ptr,
    lb_ptr,
    sum_ptr,
    out_ptr,
    M,
    N,
    K,
    rows_x,
    stride_xo,
    stride_xi,
    stride_xk,
    stride_wn,
    stride_wk,
    stride_b,
    rows_r,
    stride_ro,
    stride_ri,
    stride_rn,
    stride_lw,
    stride_lb,
    eps,
    WITH_SUM: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    RMS: tl.constexpr,
    HAS_NORM_BIAS: tl.constexpr,
    IEEE: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm[:, None] < M
    n_ok = rn[None, :] < N
    mask = m_ok & n_ok
    # a row m of x (and of the residual) is (m // rows, m % rows) of its outer and last leading dims
    x_rows = x_ptr + ((rm // rows_x) * stride_xo + (rm % rows_x) * stride_xi)[:, None]
    w_cols = w_ptr + rn[None, :] * stride_wn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_rows + kk[None, :] * stride_xk, mask=m_ok & (kk[None, :] < K), other=0.0)
        b = tl.load(w_cols + kk[:, None] * stride_wk, mask=(kk[:, None] < K) & n_ok, other=0.0)
        if IEEE:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
        else:
            acc = tl.dot(a, b, acc)

    DT: tl.constexpr = out_ptr.dtype.element_ty
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn * stride_b, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    y = _round(acc, DT)  # eager's linear output, in the input dtype
    r_rows = r_ptr + ((rm // rows_r) * stride_ro + (rm % rows_r) * stride_ri)[:, None]
    res = tl.load(r_rows + rn[None, :] * stride_rn, mask=mask, other=0.0)
    h = _round(y + res.to(tl.float32), DT)  # the residual add, in the input dtype
    offs = rm[:, None] * N + rn[None, :]
    if WITH_SUM:
        tl.store(sum_ptr + offs, h.to(DT), mask=mask)
    h = tl.where(mask, h, 0.0)
    lw = tl.load(lw_ptr + rn * stride_lw, mask=rn < N, other=1.0).to(tl.float32)
    if RMS:
        # Llama's RMSNorm: float32 statistics, the normalised row rounded to the input dtype,
        # then the weight's product in that dtype
        inv = 1.0 / tl.sqrt(tl.sum(h * h, axis=1) / N + eps)
        o = lw[None, :] * _round(h * inv[:, None], DT)
    else:
        mean = tl.sum(h, axis=1) / N
        d = tl.where(mask, h - mean[:, None], 0.0)
        inv = 1.0 / tl.sqrt(tl.sum(d * d, axis=1) / N + eps)
        o = d * inv[:, None] * lw[None, :]
        if HAS_NORM_BIAS:
            o += tl.load(lb_ptr + rn * stride_lb, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    tl.store(out_ptr + offs, o.to(DT), mask=mask)


def _rows(name, shape, strides):
    """How the kernel walks the rows (the leading dims, flattened) of ``shape``: ``(rows,
    outer stride, inner stride)``, row m at ``(m // rows) * outer + (m % rows) * inner``. The
    last leading dim is the inner one (any stride: a transposed activation, Whisper's); the ones
    before it must flatten to one stride, else ``ValueError`` (a copy would be needed)."""
    if len(shape) < 2:
        return 1, 0, 0
    outer = [(s, t) for s, t in zip(shape[:-2], strides[:-2], strict=True) if s != 1]
    for (_, big), (size, small) in zip(outer, outer[1:], strict=False):
        if big != small * size:
            raise ValueError(
                f"linear_add_layer_norm: {name} of shape {shape} and strides {strides} does not "
                "flatten to rows without a copy"
            )
    return max(1, shape[-2]), (outer[-1][1] if outer else 0), strides[-2]


def _view(size, numel):
    """``size`` (a view's, one -1 allowed) as the shape it gives ``numel`` elements."""
    known, holes = 1, 0
    for s in size:
        holes, known = (holes + 1, known) if s == -1 else (holes, known * s)
    if holes > 1 or (numel % max(known, 1) if holes else numel != known):
        raise ValueError(f"linear_add_layer_norm: a view {tuple(size)} of {numel} elements")
    return tuple(numel // max(known, 1) if s == -1 else s for s in size)


@plan_cache
def _plan(xs, xt, ws, wt, bs, bt, rs, rt, lws, lwt, lbs, lbt, norm, size, dtypes, devices, cuda, w_kn):
    """Output shape, grid, the kernel's integers and constexprs for one call: shapes and
    strides of x, weight, bias, residual, LayerNorm weight and bias, the normalized shape,
    the outputs' shape (None: x's leading dims by N), the dtypes and devices, whether on CUDA,
    whether the weight is [K, N]. No bias: its shape and strides None; an RMSNorm: the norm's
    bias and normalized shape None."""
    if len(set(dtypes)) != 1 or dtypes[0] not in _DTYPES:
        raise ValueError(f"linear_add_layer_norm: needs one float dtype, got {dtypes}")
    if len(set(devices)) != 1:
        raise ValueError(f"linear_add_layer_norm: inputs on several devices {devices}")
    ranks = [len(t) if t is not None else 1 for t in (ws, bs, lws, lbs)]
    if len(xs) < 1 or ranks != [2, 1, 1, 1]:
        raise ValueError(
            f"linear_add_layer_norm: needs x of rank >= 1 and a 2-D weight, 1-D bias and "
            f"norm weight and bias, got ranks {len(xs)}, {ranks}"
        )
    K = xs[-1]
    N, wk = (ws[1], ws[0]) if w_kn else (ws[0], ws[1])
    M = 1
    for s in xs[:-1]:
        M *= s
    out_shape = (*xs[:-1], N) if size is None else _view(size, M * N)
    if wk != K or lws[0] != N or any(t is not None and t[0] != N for t in (bs, lbs)):
        raise ValueError(f"linear_add_layer_norm: shapes {xs} x {ws} + {bs}, {lws}, {lbs} do not fit")
    if tuple(rs) != out_shape or out_shape[-1] != N:
        raise ValueError(f"linear_add_layer_norm: residual {rs} and output {out_shape} differ")
    if norm is not None and tuple(norm) != (N,):
        raise ValueError(f"linear_add_layer_norm: normalizes over {norm}, the kernel over ({N},)")
    if N > MAX_N:
        raise ValueError(f"linear_add_layer_norm: rows of {N} > {MAX_N} do not fit one tile")
    x_rows, r_rows = _rows("x", xs, xt), _rows("the residual", rs, rt)
    stride_wn, stride_wk = (wt[1], wt[0]) if w_kn else (wt[0], wt[1])

    def last_row(rows):  # the offset of the last row's first element
        n, outer, inner = rows
        return (M - 1) // n * abs(outer) + (min(n, M) - 1) * abs(inner)

    reach = (
        last_row(x_rows) + (K - 1) * abs(xt[-1]),
        (N - 1) * abs(stride_wn) + (K - 1) * abs(stride_wk),
        last_row(r_rows) + (N - 1) * abs(rt[-1]),
        M * N,
    )
    if max(reach) >= _LIMIT:
        raise ValueError("linear_add_layer_norm: offsets of 2**31 elements or more")
    block_n = max(16, triton.next_power_of_2(N))
    block_m = 16 if M <= 16 or block_n >= 512 else 32
    # Triton's interpreter (CPU tensors) cannot multiply 16-bit matrices: it takes them as
    # float32, whose products of 16-bit values are exact, as on tensor cores
    ieee = dtypes[0] == torch.float32 or not cuda
    block_k = 16 if dtypes[0] == torch.float32 or block_n >= 1024 else 32  # the weight tile's memory
    warps = 8 if block_m * block_n >= 8192 else 4
    grid = (triton.cdiv(M, block_m),)
    ints = (M, N, K, *x_rows, xt[-1], stride_wn, stride_wk, bt[0] if bt else 0, *r_rows, rt[-1],
            lwt[0], lbt[0] if lbt else 0)
    consts = {"HAS_BIAS": bs is not None, "RMS": norm is None,
              "HAS_NORM_BIAS": lbs is not None, "IEEE": ieee, "BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k,
              "num_warps": warps, "num_stages": 2}  # fmt: skip
    return out_shape, grid, M > 0 and N > 0, ints, consts


def linear_add_ln(x, weight, bias, residual, ln_weight, ln_bias, normalized_shape, eps,
                  with_sum=False, w_kn=False, size=None):  # fmt: skip
    """``layer_norm(x @ weight.T + bias + residual)`` over the last dim (``w_kn``: weight
    [K, N]; ``bias`` may be None); with ``with_sum``, ``(sum, normed)``. ``ln_bias`` and
    ``normalized_shape`` None: Llama's RMSNorm (``ln_weight * (h * rsqrt(mean(h^2) + eps))``)
    instead. New contiguous outputs in x's dtype, of x's leading dims by N, or of ``size``
    (GPT-2's ``addmm`` on flattened rows, then a view)."""
    present = [t for t in (x, weight, bias, residual, ln_weight, ln_bias) if t is not None]
    out_shape, grid, launch, ints, consts = _plan[
        x.shape, x.stride(), weight.shape, weight.stride(), _shape(bias), _stride(bias),
        residual.shape, residual.stride(), ln_weight.shape, ln_weight.stride(), _shape(ln_bias),
        _stride(ln_bias), None if normalized_shape is None else tuple(normalized_shape),
        None if size is None else tuple(size), tuple(t.dtype for t in present),
        tuple(t.device for t in present), x.is_cuda, w_kn,
    ]  # fmt: skip
    out = x.new_empty(out_shape)
    # without the sum the kernel stores nothing through sum_ptr: it gets the residual (read
    # only) rather than the output, so no launch takes one tensor as two arguments; a missing
    # bias is never read either
    total = x.new_empty(out_shape) if with_sum else residual
    if launch:
        _linear_add_ln_kernel[grid](x, weight, x if bias is None else bias, residual, ln_weight,
                                    ln_weight if ln_bias is None else ln_bias, total, out,
                                    *ints, float(eps), WITH_SUM=with_sum, **consts)  # fmt: skip
    return (total, out) if with_sum else out


def _shape(t):
    return None if t is None else t.shape


def _stride(t):
    return None if t is None else t.stride()
