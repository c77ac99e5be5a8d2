"""PassNet's cached launch path (passnet.passes.launch): same results as ``kernel[grid]``,
specialisations kept apart, and no exemption from the integrity runtime.

On CPU the kernels run in Triton's interpreter (the wrapper falls back to ``kernel[grid]``);
the GPU tests run the direct launch path itself (``scripts/gpu_check.sh``).
"""

from __future__ import annotations

import os

import pytest
import torch
import triton
import triton.language as tl

from passnet.passes.launch import CachedKernel, _specialisation, cached

HAS_CUDA = torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1"


@cached
@triton.jit
def _scale_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=m).to(tl.float32)
    tl.store(out_ptr + offs, (x * alpha + y).to(out_ptr.dtype.element_ty), mask=m)


def _run(x: torch.Tensor, y: torch.Tensor, alpha: float, **kw: int) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    block = kw.get("BLOCK", 256)
    _scale_add[(triton.cdiv(n, block),)](x, y, out, n, alpha, **kw)
    return out


def test_cached_is_idempotent_and_named() -> None:
    assert isinstance(_scale_add, CachedKernel) and cached(_scale_add) is _scale_add
    assert _scale_add.__name__ == "_scale_add" and repr(_scale_add) == "cached(_scale_add)"


def _arg_key(value: object) -> tuple:
    return _specialisation((value,), {})[0]


def test_specialisation_key_separates_what_triton_specialises() -> None:
    base = torch.zeros(64)
    # 16-byte alignment of a pointer, dtype, integers equal to 1 / divisible by 16 / 64-bit
    assert _arg_key(base) != _arg_key(base[1:])
    assert _arg_key(base) == _arg_key(base[4:])  # 4 floats = 16 bytes: still aligned
    assert _arg_key(base) != _arg_key(base.half())
    assert len({_arg_key(n) for n in (1, 16, 17, 2**40)}) == 4
    assert _arg_key(17) == _arg_key(19) and _arg_key(0.5) == _arg_key(2.0)
    assert _arg_key(True) != _arg_key(1)
    # keyword arguments (constexprs) count by value; the device of the first tensor is kept
    assert _specialisation((base,), {"BLOCK": 64}) != _specialisation((base,), {"BLOCK": 128})
    assert _specialisation((1.0, base), {})[1] == base.get_device() == -1


def test_results_match_plain_launch_on_cpu_or_gpu() -> None:
    dev = "cuda" if HAS_CUDA else "cpu"
    for n in (1, 16, 1000):
        x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
        torch.testing.assert_close(_run(x, y, 0.5), x * 0.5 + y)
        torch.testing.assert_close(_run(x, y, 2.0, BLOCK=64), x * 2.0 + y)


def test_lambda_grid_and_keyword_arguments() -> None:
    dev = "cuda" if HAS_CUDA else "cpu"
    x, y = torch.randn(300, device=dev), torch.randn(300, device=dev)
    out = torch.empty_like(x)
    _scale_add[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](
        x, y, out, n=300, alpha=3.0, BLOCK=128
    )
    torch.testing.assert_close(out, x * 3.0 + y)


def test_runtime_counts_cached_launches_and_ghost_disables_them() -> None:
    from passnet.integrity.runtime import Runtime

    rt = Runtime(torch.device("cpu"))
    try:
        assert CachedKernel in rt.hooked  # the direct path (GPU) never reaches JITFunction.run
        x, y = torch.randn(40), torch.randn(40)
        before = rt.launches
        torch.testing.assert_close(_run(x, y, 1.5), x * 1.5 + y)
        assert rt.launches > before  # counted like Triton's own launches
        rt.ghost = True
        out = torch.full_like(x, 7.0)
        _scale_add[(1,)](x, y, out, 40, 1.5)
        assert bool((out == 7.0).all())  # the launch was a no-op during the ghost replay
    finally:
        rt.ghost = False
        rt.close()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU (and TRITON_INTERPRET unset)")
def test_direct_path_compiles_once_per_specialisation() -> None:
    k = cached(_scale_add.fn)
    base = torch.randn(4096, device="cuda")
    y = torch.randn(4096, device="cuda")

    def run(x: torch.Tensor, n: int) -> torch.Tensor:
        out = torch.full_like(x, float("nan"))
        k[(triton.cdiv(n, 256),)](x, y[:n], out, n, 0.25)
        return out[:n]

    for _ in range(3):  # the same specialisation: one compiled kernel, launched directly
        torch.testing.assert_close(run(base, 4096), base * 0.25 + y)
    assert len(k._kernels) == 1
    # a misaligned view, n == 1 and a half-precision tensor each get their own kernel
    torch.testing.assert_close(run(base[1:], 4095), base[1:] * 0.25 + y[:4095])
    torch.testing.assert_close(run(base, 1), base[:1] * 0.25 + y[:1])
    half = base.half()
    out = torch.empty_like(half)
    k[(16,)](half, y.half(), out, 4096, 0.25)
    torch.testing.assert_close(out, (half.float() * 0.25 + y.half().float()).half())
    assert len(k._kernels) == 4
