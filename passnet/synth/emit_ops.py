"""Triton expressions for each supported op, in float32, written the way eager computes them.

Only ``tl``/``tl.math`` functions that Triton's interpreter also implements are used (no
libdevice), so a generated pass runs on CPU as it runs on a GPU: tanh is built from exp,
divisions of two tensors and square roots are the IEEE-rounded ``div_rn``/``sqrt_rn``.

Kernels are launched with ``enable_fp_fusion=False`` (``emit``): each eager op rounds its
result, so a product must not fuse with the next op's sum into one FMA, as Triton's default
contraction did across the rounding to half precision (docs/synth.md, sixth session). Where
eager's own kernel contracts inside one op (a norm's ``* weight + bias``, gelu's cubic term),
the template says ``tl.fma``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from torch.fx import Node

from passnet.synth.op_model import INFIX
from passnet.synth.ops import Op
from passnet.synth.pattern import literal
from passnet.synth.shapes import Dim, Unfusable

if TYPE_CHECKING:
    from passnet.synth.lower import Builder


_NAN = ", propagate_nan=tl.PropagateNan.ALL"  # NaN in, NaN out, as eager's max/min/clamp


def _tanh(b: Builder, a: str) -> str:
    e = b.let(f"tl.exp(-2.0 * tl.abs({a}))")
    t = b.let(f"tl.math.div_rn(1.0 - {e}, 1.0 + {e})")
    return b.let(f"tl.where({a} < 0.0, -{t}, {t})")


def _pow(b: Builder, a: str, c: float) -> str:
    if c == 0.5:
        return b.let(f"tl.math.sqrt_rn({a})")
    if c == -0.5:
        return b.let(f"1.0 / tl.math.sqrt_rn({a})")
    if c == int(c) and abs(c) <= 8:
        n, acc, base = abs(int(c)), None, a
        while n:  # square and multiply
            if n & 1:
                acc = base if acc is None else b.let(f"{acc} * {base}")
            n >>= 1
            if n:
                base = b.let(f"{base} * {base}")
        acc = acc or b.let(f"{a} * 0.0 + 1.0")
        return b.let(f"1.0 / {acc}") if c < 0 else acc
    return b.let(f"tl.exp2({c!r} * tl.log2({a}))")


def pointwise(b: Builder, op: Op, args: list[str]) -> str:
    """The op applied to already computed float32 operands."""
    name, a = op.name, args[0]
    if name in INFIX:
        return b.let(f"{a} {INFIX[name]} {args[1]}")
    if name == "div":
        tensors = all(isinstance(x, Node) for x in op.args)
        return b.let(f"tl.math.div_rn({a}, {args[1]})" if tensors else f"{a} / {args[1]}")
    if name == "neg":
        return b.let(f"-{a}")
    if name == "relu":
        return b.let(f"tl.maximum({a}, 0.0{_NAN})")
    if name == "gelu":
        return b.let(f"0.5 * {a} * (1.0 + tl.math.erf({a} * 0.7071067811865476))")
    if name == "gelu_tanh":
        cube = b.let(f"{a} * {a} * {a}")
        inner = b.let(f"0.7978845608028654 * tl.fma(0.044715, {cube}, {a})")
        return b.let(f"0.5 * {a} * (1.0 + {_tanh(b, inner)})")
    if name == "silu":
        return b.let(f"tl.math.div_rn({a}, 1.0 + tl.exp(-{a}))")
    if name == "sigmoid":
        return b.let(f"tl.math.div_rn({_ones(b, a)}, 1.0 + tl.exp(-{a}))")
    if name == "tanh":
        return _tanh(b, a)
    if name == "exp":
        return b.let(f"tl.exp({a})")
    if name == "rsqrt":
        return b.let(f"1.0 / tl.math.sqrt_rn({a})")
    if name == "sqrt":
        return b.let(f"tl.math.sqrt_rn({a})")
    if name in ("cos", "sin"):  # float32 in and out, as eager's cosf / sinf (opmath)
        return b.let(f"tl.{name}({a})")
    if name == "pow":
        return _pow(b, a, op.attrs["exponent"])
    if name == "hardsigmoid":  # as CUDA computes it: min(max(x + 3, 0), 6) * (1 / 6)
        return b.let(f"tl.minimum(tl.maximum({a} + 3.0, 0.0{_NAN}), 6.0{_NAN}) * {1.0 / 6.0!r}")
    if name == "hardswish":  # as CUDA computes it: x * min(max(x + 3, 0), 6) * (1 / 6)
        return b.let(f"{a} * tl.minimum(tl.maximum({a} + 3.0, 0.0{_NAN}), 6.0{_NAN}) * {1.0 / 6.0!r}")
    if name == "leaky_relu":
        return b.let(f"tl.where({a} > 0.0, {a}, {a} * {op.attrs['slope']!r})")
    if name == "masked_fill":  # the mask is a flag (1.0 / 0.0) or any tensor read as bool
        return b.let(f"tl.where({args[1]} != 0.0, {literal(op.attrs['value'])}, {a})")
    if name == "clamp":
        lo, hi = op.attrs["min"], op.attrs["max"]
        if lo is not None:
            a = b.let(f"tl.maximum({a}, {float(lo)!r}{_NAN})")
        if hi is not None:
            a = b.let(f"tl.minimum({a}, {float(hi)!r}{_NAN})")
        return a
    raise ValueError(f"no Triton template for {name}")


def _ones(b: Builder, like: str) -> str:
    """1.0 in the shape of ``like`` (``div_rn`` wants tensors), without arithmetic on it:
    ``1.0 + 0.0 * like`` is NaN where ``like`` is infinite (a float16 running_var beyond
    65504 made a batch norm NaN where eager gives the bias; sigmoid(inf) NaN, not 1)."""
    return b.let(f"tl.where({like} == {like}, 1.0, 1.0)")


def norm(b: Builder, op: Op, x: str, params: list[str | None]) -> str:
    """Eval-mode batch norm: (x - mean) / sqrt(var + eps) * weight + bias, per channel."""
    mean, var, weight, bias = params
    inv = b.let(f"tl.math.div_rn({_ones(b, var)}, tl.math.sqrt_rn({var} + {op.attrs['eps']!r}))")
    return _affine(b, b.let(f"{x} - {mean}"), inv, weight, bias)


def _affine(b: Builder, d: str, scale: str, weight: str | None, bias: str | None) -> str:
    """``d * scale * weight + bias`` as eager's norm kernels compute it: the last product and
    the bias in one FMA (nvcc contracts them; the kernel itself is launched without
    contraction)."""
    if weight is None:
        return b.let(f"tl.fma({d}, {scale}, {bias})") if bias is not None else b.let(
            f"{d} * {scale}")
    y = b.let(f"{d} * {scale}")
    return b.let(f"tl.fma({y}, {weight}, {bias})") if bias is not None else b.let(
        f"{y} * {weight}")


def _on_tile(b: Builder, v: str) -> str:
    """``v`` over the whole [BLOCK_M, BLOCK_N] tile (a value constant along the row, such as
    a per-row input, broadcast), as a reduction along the row needs it."""
    if b.on_cols(v):
        return v
    return b.let(f"{v} + tl.zeros([BLOCK_M, BLOCK_N], tl.float32)")


def reduce_row(b: Builder, op: Op, v: str, params: list[str | None] | None = None) -> str:
    """A reduction along the row (axis 1 of the [BLOCK_M, BLOCK_N] tile); padded columns
    are masked out with the reduction's neutral element."""
    v = _on_tile(b, v)
    n = b.dim(b.domain[-1])
    if op.kind == "softmax":
        vm = b.let(f"tl.where(cmask, {v}, float('-inf'))")
        mx = b.let(f"tl.max({vm}, axis=1)[:, None]")
        e = b.let(f"tl.exp({vm} - {mx})")
        s = b.let(f"tl.sum({e}, axis=1)[:, None]")
        return b.let(f"tl.math.div_rn({e}, {s} + 0.0 * {e})")
    total = b.let(f"tl.sum(tl.where(cmask, {v}, 0.0), axis=1)[:, None]")
    if op.kind == "sum":
        return total
    if op.kind == "mean":
        b.eager_cuda = True
        return b.let(f"_mean({total}, {n}, EAGER_CUDA)")
    mean = b.let(f"tl.math.div_rn({total}, {n} + 0.0 * {total})")
    d = b.let(f"tl.where(cmask, {v} - {mean}, 0.0)")
    var = b.let(f"tl.math.div_rn(tl.sum({d} * {d}, axis=1)[:, None], {n} + 0.0 * {total})")
    weight, bias = params or (None, None)
    if op.kind == "gn":
        return _group_norm_affine(b, op, v, mean, var, weight, bias)
    # eager's CUDA layer and group norms take rsqrtf(var + eps), as tl.math.rsqrt does: on
    # half precision a norm's float32 result decides roundings that a second op amplifies
    rstd = b.let(f"tl.math.rsqrt({var} + {op.attrs['eps']!r})")
    return _affine(b, d, rstd, weight, bias)


def normalize_row(b: Builder, op: Op, v: str, rounded: Callable[[str], str]) -> str:
    """``F.normalize`` along the row as eager computes it: the norm (L1: sum of magnitudes;
    L2: square root of the sum of squares; accumulated in float32) rounded to the tensor's
    dtype (``rounded``), clamped to eps and rounded again, then the division, rounded once by
    the caller. NaN propagates through the clamp, as eager's clamp_min propagates it."""
    v = _on_tile(b, v)
    a = b.let(f"tl.where(cmask, {v}, 0.0)")
    if op.attrs["p"] == 1:
        total = b.let(f"tl.sum(tl.abs({a}), axis=1)[:, None]")
    else:
        total = b.let(f"tl.math.sqrt_rn(tl.sum({a} * {a}, axis=1)[:, None])")
    den = rounded(b.let(f"tl.maximum({rounded(total)}, {op.attrs['eps']!r}{_NAN})"))
    return b.let(f"tl.math.div_rn({v}, {den} + 0.0 * {v})")


def _group_norm_affine(b: Builder, op: Op, v: str, mean: str, var: str, weight: str | None,
                       bias: str | None) -> str:  # fmt: skip
    """Group norm as eager computes it: ``a * x + b`` per channel with ``a = rstd * weight``
    and ``b = -a * mean + bias``. Eager's CUDA kernel takes eps and stores the group's mean and
    rstd in the input's dtype before it forms ``a`` and ``b`` (its CPU kernel keeps them in
    float32): on half precision that rounding moves results by more than an ulp, so the kernel
    rounds them likewise where the wrapper says the device is CUDA (``EAGER_CUDA``)."""
    dt = b.shapes.dtypes[op.args[0]]
    if dt.index is not None:
        b.pointers.add(dt.index)
    b.eager_cuda = True
    eps = b.let(f"_stat(tl.full([1, 1], {op.attrs['eps']!r}, tl.float32), {dt.triton()}, "
                "EAGER_CUDA)")  # fmt: skip
    mean = b.let(f"_stat({mean}, {dt.triton()}, EAGER_CUDA)")
    a = b.let(f"_stat(tl.math.rsqrt({var} + {eps}), {dt.triton()}, EAGER_CUDA)")
    if weight is not None:
        a = b.let(f"{a} * {weight}")
    shift = b.let(f"tl.fma(-{a}, {mean}, {bias})" if bias is not None else f"-{a} * {mean}")
    return b.let(f"tl.fma({a}, {v}, {shift})")


MAX_WEIGHT_TILE = 16384
"""Most elements of the [K, N] weight tile one program holds (64 KiB in float32): beyond
it the whole weight no longer fits one program's registers and a GEMM's tiling wins."""


def _pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _constant(b: Builder, d: Dim) -> int | None:
    """A size that is the same in every variant (guarded in the wrapper), else None."""
    if d.literal is not None:
        return d.literal
    if len(set(d.vals)) != 1:
        return None
    b.shapes.guard(f"{d.expr} == {d.vals[0]}")
    return d.vals[0]


def linear(b: Builder, node: Node, op: Op, m: tuple[str, ...]) -> str:
    """``x @ weight.T + bias`` for the rows at ``m``: a ``tl.dot`` of the [BLOCK_M, K] row tile
    with the [K, BLOCK_N] transposed weight (``_dot`` in the module: float32 at float32
    accuracy as three TF32 products on tensor cores, since eager's float32 linear uses no TF32;
    float16 on tensor cores, bfloat16 as IEEE float32 products, both exact in float32;
    accumulated in float32 as cuBLAS does), the bias added before the one rounding to the
    output dtype. The output features must be the kernel's row; an input row of another
    length is loaded with its own column range, a computed one must share the kernel's row."""
    x, w, bias = op.args
    if b.mode != "row" or m[-1] != "cols" or any(b.on_cols(t) for t in m[:-1]):
        raise Unfusable(f"linear '{node.name}' is needed other than along its output features")
    n_dim, k_dim = b.shapes.dims[w]
    if not b.shapes.equal(n_dim, b.domain[-1]):
        raise Unfusable(f"linear '{node.name}': its output features are not the kernel's row")
    n_out, k_in = _constant(b, n_dim), _constant(b, k_dim)
    if n_out is None or k_in is None or min(n_out, k_in) < 16:
        raise Unfusable(f"linear '{node.name}': tl.dot needs constant sizes of 16 or more")
    if _pow2(n_out) * _pow2(k_in) > MAX_WEIGHT_TILE:
        raise Unfusable(f"linear '{node.name}': a {n_out}x{k_in} weight is no single tile "
                        "(a GEMM library's tiling is the better kernel)")  # fmt: skip
    if w not in b.index or (bias is not None and bias not in b.index):
        raise Unfusable(f"linear '{node.name}' of a computed weight or bias")
    b.dots = True
    rows = m[:-1]
    zeros = "tl.zeros([BLOCK_M, {}], tl.float32)"
    if x in b.index:  # an input: its own K columns, masked at K
        j, bk = b.index[x], _pow2(k_in)
        kc = b.let(f"tl.arange(0, {bk})[None, :]")
        terms = [f"{t} * {b.stride(j, d)}" for d, t in enumerate(rows) if t != "0"]
        terms.append(f"{kc} * {b.stride(j, len(rows))}")
        off = b.let(" + ".join(terms))
        xt = b.let(f"tl.load(x{j} + {off}, mask=rmask & ({kc} < {k_in}), other=0.0)"
                   f".to(tl.float32) + {zeros.format(bk)}")  # fmt: skip
        kr = b.let(f"tl.arange(0, {bk})[:, None]")
    else:  # computed on the kernel's row: K must be the row's length
        if not b.shapes.equal(k_dim, b.domain[-1]):
            raise Unfusable(f"linear '{node.name}' of a computed input longer than its output")
        v = b.value(x, rows + ("cols",))
        xt = b.let(f"tl.where(mask, {v} + {zeros.format('BLOCK_N')}, 0.0)")
        kr = b.let("tl.arange(0, BLOCK_N)[:, None]")
    jw = b.index[w]
    wt = b.let(f"tl.load(x{jw} + cols * {b.stride(jw, 0)} + {kr} * {b.stride(jw, 1)}, "
               f"mask=cmask & ({kr} < {k_in}), other=0.0).to(tl.float32)")  # fmt: skip
    dt = b.shapes.dtypes[w]
    if dt.index is not None:
        b.pointers.add(dt.index)
    y = b.let(f"_dot({xt}, {wt}, {dt.triton()})")
    if bias is not None:
        y = b.let(f"{y} + {b.value(bias, ('cols',))}")
    return b.round(y, node)
