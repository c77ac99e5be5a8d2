"""The kernel every rule of this folder launches: ``act(x @ w.T + b)`` as one Triton matmul.

``x`` is read as [M, K] (its leading dims flattened, through its strides: no copy), the weight
as [N, K] (``nn.Linear``) or [K, N] (GPT-2's ``Conv1D`` through ``addmm``), both through their
strides, the bias as [N]. The product accumulates in float32; the epilogue adds the bias, rounds
to the input dtype as eager's linear layer does before its activation reads it, applies the
activation in float32 and stores in the input dtype. float32 inputs multiply in IEEE float32
(eager's float32 matmul uses no TF32); float16 and bfloat16 take ``tl.dot``'s default on a
GPU and float32 products (exact for them) in Triton's interpreter.
Block sizes follow the shapes (no autotuning); sizes, strides and dtypes are read on every
call, so one rule serves every hidden size. What the kernel cannot take raises ``ValueError``:
the whole-model backend then runs the rule's pattern for that call.
"""

import torch
import triton
import triton.language as tl

from passnet.passes.launch import cached
from passnet.passes.plans import plan_cache

# the epilogue's activation (the kernel's ACT constexpr)
GELU = 1  # F.gelu: 0.5 * y * (1 + erf(y / sqrt(2)))
GELU_TANH = 2  # F.gelu(approximate="tanh"): 0.5 * y * (1 + tanh(sqrt(2 / pi) * (y + c y^3)))
RELU = 3
SILU = 4  # y * sigmoid(y)
QUICK_GELU = 5  # CLIP: y * sigmoid(1.702 * y), rounded after each op as eager does
GELU_NEW = 6  # GELU_TANH written out op by op (GPT-2, ALBERT, Phi), rounded after each op

_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
_LIMIT = 2**31  # the kernel's element offsets are 32-bit


@triton.jit
def _tanh(u):
    # Triton's portable math has no tanh: (1 - e) / (1 + e) with e = exp(-2|u|) <= 1, signed
    e = tl.exp(-2.0 * tl.abs(u))
    t = (1.0 - e) / (1.0 + e)
    return tl.where(u < 0.0, -t, t)


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
def _linear_act_kernel(
    x_ptr,
    w_ptr,
    b_ptr,
    out_ptr,
    M,
    N,
    K,
    stride_xm,
    stride_xk,
    stride_wn,
    stride_wk,
    stride_b,
    ACT: tl.constexpr,
    IEEE: tl.constexpr,
    CUBE_ONCE: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    # grouped launch order: GROUP_M row blocks share each column block of the weight
    pid = tl.program_id(0)
    blocks_m = tl.cdiv(M, BLOCK_M)
    blocks_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * blocks_n
    first_m = (pid // per_group) * GROUP_M
    group_m = tl.minimum(blocks_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm[:, None] < M
    n_ok = rn[None, :] < N
    x_rows = x_ptr + rm[:, None] * stride_xm
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

    bias = tl.load(b_ptr + rn * stride_b, mask=rn < N, other=0.0).to(tl.float32)
    # eager's linear layer writes its output in the input dtype; the activation reads that
    DT: tl.constexpr = out_ptr.dtype.element_ty
    y = _round(acc + bias[None, :], DT)
    if ACT == 1:
        y = 0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))
    elif ACT == 2:
        y = 0.5 * y * (1.0 + _tanh(0.7978845608028654 * (y + 0.044715 * y * y * y)))
    elif ACT == 3:
        y = tl.where(y < 0.0, 0.0, y)  # NaN stays NaN, as torch.relu keeps it
    elif ACT == 4:
        y = y / (1.0 + tl.exp(-y))
    elif ACT == 5:
        sig = _round(1.0 / (1.0 + tl.exp(-_round(1.702 * y, DT))), DT)
        y = y * sig
    elif ACT == 6:
        # in float16 and bfloat16 eager rounds each of the formula's ops: 1 + tanh(u) for
        # very negative y cancels to a few bits, and those bits are what the model computed.
        # pow(y, 3.0) is y * y * y rounded after each product (CUDA; CPU bfloat16), or once
        # (CPU float16)
        half = _round(0.5 * y, DT)
        if CUBE_ONCE:
            cube = _round(y * y * y, DT)
        else:
            cube = _round(_round(y * y, DT) * y, DT)
        inner = _round(y + _round(0.044715 * cube, DT), DT)
        t = _round(_tanh(_round(0.7978845608028654 * inner, DT)), DT)
        y = half * _round(1.0 + t, DT)
    y = _round(y, DT)
    out = out_ptr + rm[:, None] * N + rn[None, :]
    tl.store(out, y.to(DT), mask=m_ok & n_ok)


@plan_cache
def _plan(xs, xt, ws, wt, bs, bt, dtypes, devices, cuda, w_kn, act):
    """Output shape, grid, the kernel's integers and constexprs for one call: shapes and
    strides of x, weight and bias, their dtypes and devices, whether on CUDA, whether the
    weight is [K, N], the activation."""
    if len(set(dtypes)) != 1 or dtypes[0] not in _DTYPES:
        raise ValueError(f"linear_activation: needs one float dtype, got {dtypes}")
    if len(set(devices)) != 1:
        raise ValueError(f"linear_activation: inputs on several devices {devices}")
    if len(xs) < 1 or len(ws) != 2 or len(bs) != 1:
        raise ValueError(
            f"linear_activation: needs x of rank >= 1, a 2-D weight and a 1-D bias, got ranks "
            f"{len(xs)}, {len(ws)}, {len(bs)}"
        )
    K = xs[-1]
    N, wk = (ws[1], ws[0]) if w_kn else (ws[0], ws[1])
    if wk != K or bs[0] != N:
        raise ValueError(f"linear_activation: shapes {xs} x {ws} + {bs} do not fit")
    # the leading dims must flatten to one [M] axis without a copy
    lead = [(s, t) for s, t in zip(xs[:-1], xt[:-1], strict=True) if s != 1]
    for (_, outer), (size, inner) in zip(lead, lead[1:], strict=False):
        if outer != inner * size:
            raise ValueError(
                f"linear_activation: x of shape {xs} and strides {xt} does not "
                "flatten to [M, K] without a copy"
            )
    M = 1
    for s in xs[:-1]:
        M *= s
    stride_xm = lead[-1][1] if lead else 0
    stride_wn, stride_wk = (wt[1], wt[0]) if w_kn else (wt[0], wt[1])
    reach = (
        (M - 1) * stride_xm + (K - 1) * xt[-1],
        (N - 1) * stride_wn + (K - 1) * stride_wk,
        M * N,
    )
    if max(reach) >= _LIMIT:
        raise ValueError("linear_activation: offsets of 2**31 elements or more")
    block_m = 16 if M <= 16 else (32 if M <= 32 else 64)
    block_n = 64 if N <= 64 else 128
    # Triton's interpreter (CPU tensors) cannot multiply 16-bit matrices: it takes them as
    # float32, whose products of 16-bit values are exact, as on tensor cores
    ieee = dtypes[0] == torch.float32 or not cuda
    block_k = 32 if K <= 32 or dtypes[0] == torch.float32 else 64  # float32 tiles: 2x memory
    warps = 8 if block_m * block_n >= 64 * 128 else 4
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    ints = (M, N, K, stride_xm, xt[-1], stride_wn, stride_wk, bt[0])
    cube_once = act == GELU_NEW and dtypes[0] == torch.float16 and not cuda
    consts = {"ACT": act, "IEEE": ieee, "CUBE_ONCE": cube_once, "BLOCK_M": block_m,
              "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": 8, "num_warps": warps}  # fmt: skip
    return (*xs[:-1], N), grid, M > 0 and N > 0, ints, consts


def linear_act(x, weight, bias, act, w_kn=False):
    """``act(x @ weight.T + bias)`` (``w_kn``: ``act(x @ weight + bias)``, weight [K, N]) in
    one kernel; a new contiguous output of x's leading dims by N, in x's dtype."""
    out_shape, grid, launch, ints, consts = _plan[
        x.shape, x.stride(), weight.shape, weight.stride(), bias.shape, bias.stride(),
        (x.dtype, weight.dtype, bias.dtype), (x.device, weight.device, bias.device), x.is_cuda,
        w_kn, act,
    ]  # fmt: skip
    out = x.new_empty(out_shape)
    if launch:
        _linear_act_kernel[grid](x, weight, bias, out, *ints, **consts)
    return out
