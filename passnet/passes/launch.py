"""Launch a ``@triton.jit`` kernel from a replacement as cheaply as an eager op launches.

``kernel[grid](...)`` re-binds every argument, rebuilds Triton's specialisation key as a
string, looks up the device, stream and launch hooks, and only then calls the compiled
launcher: on a launch-bound subgraph that host work costs more than the eager ops a fused
kernel replaces (docs/benchmarks.md). :func:`cached` wraps a JIT function so that a call
costs one tuple key over the arguments, one dict lookup and the compiled launcher itself::

    from passnet.passes.launch import cached

    @cached
    @triton.jit
    def _kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr): ...

    _kernel[grid](x, out, n, BLOCK=1024)      # same call syntax as plain Triton

The first call with a new specialisation (argument dtypes, 16-byte alignment of each
pointer, integers equal to 1 or divisible by 16, constexpr and launch-option values) goes
through Triton's own ``run``, which compiles, launches and returns the compiled kernel; later
calls with the same key launch that kernel directly, through PyTorch's static CUDA launcher
(the C++ launcher Inductor uses) where it applies, else through Triton's compiled launcher.
The key, the lookup and the static launch run in one C call (``native_launch.c``, built on
first use; where it cannot be built the same steps run in Python, see
``passnet.passes.native_launch.status()``). Only compiled kernels are cached, never
arguments or outputs: every call launches. Under Triton's interpreter
(``TRITON_INTERPRET=1``), on CPU tensors, and for autotuned or heuristic kernels the wrapper
launches through plain ``kernel[grid]``, so a pass stays correct wherever Triton runs.

The integrity runtime counts and can disable these launches like Triton's own, so nothing
here is exempt: the native hot path counts its launches in C (:func:`native_counter`), and
``CachedKernel.launch_python``, the rest, is hooked beside ``JITFunction.run``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch

from passnet.passes.plans import symbolic_plans

__all__ = ["CachedKernel", "cached", "native_counter"]

_HOLD: list[Any] = []  # static launchers whose loaded module a tuple entry uses
_TRACER: list[Callable[[Any], Any]] = []  # see ``traced_launches``


@contextlib.contextmanager
def traced_launches(wrap: Callable[[Any], Any]) -> Iterator[None]:
    """Inside, every ``CachedKernel`` launch goes through ``wrap(jit_function)[grid]``
    (``torch.library.wrap_triton``): a ``torch.library.triton_op`` body traced on fake tensors
    then records the kernel itself, and Inductor launches it from its generated code."""
    _TRACER.append(wrap)
    try:
        with symbolic_plans():  # the sizes traced may be symbols, which plan keys cannot hash
            yield
    finally:
        _TRACER.pop()


def _specialisation(args: tuple, kwargs: dict[str, Any]) -> tuple[tuple, int]:
    """What Triton specialises a call on, or finer (a finer key only compiles more), and the
    device index of the first tensor (-1: none on a GPU). Per positional argument: a tensor's
    dtype and 16-byte alignment; an integer's being 1, divisible by 16, 32- or 64-bit; the
    type of a float; any other value itself. Keyword arguments (constexprs, launch options)
    count by value. Inline loop, no call per argument: this runs on every launch."""
    key: list[Any] = [tuple(kwargs.items()) if kwargs else None]
    index = -1
    for a in args:
        if isinstance(a, torch.Tensor):
            if index < 0:
                index = a.get_device()
            key.append((a.dtype, a.data_ptr() & 15 == 0))
        elif a.__class__ is int:
            key.append((a == 1, a & 15 == 0, -0x80000000 <= a <= 0x7FFFFFFF,
                        a > 0x7FFFFFFFFFFFFFFF))  # fmt: skip
        elif a.__class__ is float:
            key.append(float)
        else:
            key.append(a)
    key.append(index)
    return tuple(key), index


def _load_native() -> Any:
    from passnet.passes import native_launch

    return native_launch.load()


_NATIVE = _load_native()


def _key(args: tuple, kwargs: dict[str, Any]) -> tuple[Any, int]:
    """The key the native hot path looks up (so that what Python compiles, C finds), or the
    Python key where the native module is missing or declines an argument."""
    if _NATIVE is not None:
        native = _NATIVE.key(args, kwargs)
        if native is not None:
            return native
    return _specialisation(args, kwargs)


Launcher = Callable[[int, int, int, int, tuple, dict], None]
"""``go(grid_x, grid_y, grid_z, stream, args, kwargs)``: launch one compiled kernel. The static
launcher's common case is kept as the tuple ``(c_launch, function, num_warps, shared, arg_types)``
instead, which the native hot path calls without a Python frame."""

Entry = Launcher | tuple


def _call(entry: Entry, gx: int, gy: int, gz: int, stream: int, args: tuple,
          kwargs: dict) -> None:  # fmt: skip
    """Launch a table entry from Python (the native module's fallback)."""
    if isinstance(entry, tuple):
        c_launch, function, warps, shared, types = entry
        c_launch(function, gx, gy, gz, warps, shared, types, args, stream)
    else:
        entry(gx, gy, gz, stream, args, kwargs)


def _triton_launcher(kernel: Any, ordered: Callable[[tuple, dict], tuple[list, Any]]) -> Launcher:
    """Triton's own compiled launcher, called without the JIT's per-call work."""
    run, function, metadata = kernel.run, kernel.function, kernel.packed_metadata

    def go(gx: int, gy: int, gz: int, stream: int, args: tuple, kwargs: dict) -> None:
        run(gx, gy, gz, stream, function, metadata, None, None, None, *ordered(args, kwargs)[0])

    return go


def _static_launcher(kernel: Any, index: int, n_positional: int) -> Entry | None:
    """PyTorch's static CUDA launcher (what Inductor launches its kernels with) for a compiled
    Triton kernel, or None where it does not apply (older torch, launch hooks, scratch memory,
    clusters). Triton's launcher checks every pointer argument with a driver call; this one
    reads tensor pointers in C++ and launches."""
    try:
        try:
            from torch._inductor.runtime.static_cuda_launcher import (
                StaticallyLaunchedCudaKernel,
            )
        except ImportError:
            from torch._inductor.runtime.static_triton_launcher import (
                StaticallyLaunchedCudaKernel,
            )
        if not hasattr(kernel, "_cubin_path"):
            kernel._cubin_path = None  # set by Inductor's own compile path, not by Triton's
        static = StaticallyLaunchedCudaKernel(kernel)
        if static.cubin_path is None:
            fd, path = tempfile.mkstemp(prefix="passnet-", suffix=".cubin")
            os.close(fd)
            try:
                static.reload_cubin_from_raw(path)
                static.load_kernel(index)
            finally:
                os.unlink(path)
        else:
            static.load_kernel(index)
        src = kernel.src
        names = list(src.fn.arg_names)

        def position(k: Any) -> int:
            return names.index(k) if isinstance(k, str) else k[0] if isinstance(k, tuple) else k

        signature = {position(k): v for k, v in src.signature.items()}
        constants = {position(k) for k in getattr(src, "constants", {})}
        keep = [i for i in sorted(signature) if signature[i] != "constexpr" and i not in constants]
        scratch = int(bool(getattr(static, "has_global_scratch", False)))
        scratch += int(bool(getattr(static, "has_profile_scratch", False)))
        types = static.arg_tys + "O" * scratch
        if len(keep) != len(static.arg_tys) or (keep and keep[-1] >= n_positional):
            return None  # a runtime argument given by keyword: Triton's launcher binds it
        c_launch = (getattr(static, "C_impl", None) or torch._C._StaticCudaLauncher)._launch_kernel
    except Exception:  # noqa: BLE001 - any mismatch: Triton's own launcher still works
        return None
    function, warps, shared, extra = (
        static.function,
        static.num_warps,
        static.shared,
        (None,) * scratch,
    )
    holder = static  # keeps the loaded module alive as long as the launcher

    if keep == list(range(n_positional)) and not extra:  # the common case: pass args as is
        _HOLD.append(holder)  # the tuple cannot carry it; loaded modules live as long anyway
        return (c_launch, function, warps, shared, types)

    def go(gx: int, gy: int, gz: int, stream: int, args: tuple, kwargs: dict) -> None:
        c_launch(function, gx, gy, gz, warps, shared, types,
                 (*[args[i] for i in keep], *extra), stream)  # fmt: skip

    go.static = holder  # type: ignore[attr-defined]
    return go


def _stream_getter() -> Callable[[int], int]:
    get_raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if get_raw is not None:
        return get_raw
    return lambda index: torch.cuda.current_stream(index).cuda_stream


class CachedKernel:
    """A ``@triton.jit`` function whose compiled specialisations launch without the JIT."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.__doc__ = getattr(fn, "__doc__", None)
        from triton.runtime.jit import JITFunction

        # Only a real JITFunction can be launched directly: the interpreter's function,
        # the autotuner and heuristics keep their own launch logic.
        self._direct = type(fn) is JITFunction
        self._names: list[str] = list(getattr(fn, "arg_names", []))
        self._defaults: dict[str, Any] = {}
        for p in getattr(fn, "params", []):
            default = getattr(p, "default", None)
            if default is not None and default is not getattr(p, "empty", object()):
                self._defaults[p.name] = default
        self._kernels: dict[Any, Entry] = {}
        self._stream: Callable[[int], int] = _stream_getter()  # no CUDA call until used

    def __getitem__(self, grid: Sequence[int] | Callable) -> Callable[..., None]:
        if _TRACER:  # a triton_op body being traced (``traced_launches``)
            return _TRACER[-1](self.fn)[grid]
        return functools.partial(self.launch, grid)  # no Python frame of its own per call

    def _ordered(self, args: tuple, kwargs: dict[str, Any]) -> tuple[list[Any], tuple]:
        """All kernel parameters in signature order, and the launch options left over."""
        values = list(args)
        names = self._names
        if len(values) < len(names):
            for name in names[len(values) :]:
                if name in kwargs:
                    values.append(kwargs[name])
                elif name in self._defaults:
                    values.append(self._defaults[name])
                else:
                    raise TypeError(f"{self.__name__}: missing argument {name!r}")
        options = tuple(sorted((k, v) for k, v in kwargs.items() if k not in names))
        return values, options

    def launch(self, grid: Sequence[int] | Callable, *args: Any, **kwargs: Any) -> None:
        """Launch on ``grid``; the first call per specialisation compiles through Triton.

        The native hot path (``native_launch.c``) keys, looks up and launches in one C call;
        what it declines (a miss, a callable grid, an argument it does not key) comes here."""
        if self._direct and _NATIVE is not None and _NATIVE.launch(self._kernels, grid, args,
                                                                   kwargs):  # fmt: skip
            return
        self.launch_python(grid, args, kwargs)

    def launch_python(self, grid: Sequence[int] | Callable, args: tuple,
                      kwargs: dict[str, Any]) -> None:  # fmt: skip
        """What the native hot path declines, or every launch where it is missing. The
        integrity runtime hooks this method (its launches) and reads the native module's own
        count (:func:`native_counter`): no Python frame of its own on the hot path."""
        if not self._direct:
            self.fn[grid](*args, **kwargs)
            return
        dims: Sequence[int]
        if callable(grid):  # Triton's convention: grid(meta) with every parameter by name
            dims = grid({**dict(zip(self._names, self._ordered(args, kwargs)[0], strict=False)),
                         **kwargs})  # fmt: skip
            if _NATIVE is not None and _NATIVE.launch(self._kernels, dims, args, kwargs):
                return
        else:
            dims = grid
        key, index = _key(args, kwargs)
        if index < 0:  # CPU tensors (get_device() == -1) or no tensor at all
            self.fn[dims](*args, **kwargs)
            return
        try:
            hit = self._kernels.get(key)
        except TypeError:  # an unhashable argument: let Triton bind it
            self.fn[dims](*args, **kwargs)
            return
        if hit is None:
            self._compile(key, dims, index, args, kwargs)
            return
        n = len(dims)
        _call(hit, dims[0], dims[1] if n > 1 else 1, dims[2] if n > 2 else 1, self._stream(index),
              args, kwargs)  # fmt: skip

    def _compile(self, key: Any, grid: Sequence[int], index: int, args: tuple,
                 kwargs: dict[str, Any]) -> None:  # fmt: skip
        """Compile and launch through Triton's ``run``; keep the compiled kernel's launcher."""
        with torch.cuda.device(index):
            kernel = self.fn.run(*args, grid=grid, warmup=False, **kwargs)
        if kernel is None:
            raise RuntimeError(f"{self.__name__}: Triton returned no compiled kernel")
        self._kernels[key] = _static_launcher(kernel, index, len(args)) or _triton_launcher(
            kernel, self._ordered
        )

    def __repr__(self) -> str:
        return f"cached({self.__name__})"


def native_counter() -> tuple[Callable[[], int], Callable[[bool], bool]]:
    """``(launched, skip)`` of the native hot path: the launches it made in this process, and
    a switch that makes it count launches without making them (the runtime's ghost replay);
    a count that stays 0 and a no-op switch where the native module is missing."""
    if _NATIVE is None:
        return (lambda: 0), (lambda flag: False)
    return _NATIVE.launched, _NATIVE.skip


def cached(fn: Any) -> CachedKernel:
    """Wrap a ``@triton.jit`` function for cheap launches; see the module docstring."""
    if isinstance(fn, CachedKernel):
        return fn
    return CachedKernel(fn)
