"""How many kernels Inductor runs for an FX graph, read from the code it generates.

A kernel is a launch in the generated wrapper's ``call``: a generated kernel (``cpp_fused_*``
on CPU, ``triton_*.run`` on GPU) or an extern/fallback kernel (``extern_kernels.mm``,
``torch.ops.aten.*``). Allocation, ``reinterpret_tensor`` and ``del`` are not kernels.

With ``codegen_only`` (the default) Inductor lowers, schedules, fuses and writes the code, but
the kernels themselves are not built (no C++/Triton compile): the count is the same, and an
analysis costs a fraction of a second instead of seconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from unittest import mock

import torch
import torch.fx

from passnet.graph.meta import sample_layout

_LAUNCH = re.compile(
    r"^\s*(?:[\w, ]+ = )?(?P<callee>cpp_fused_\w+|triton_\w+\.run|extern_kernels\.\w+"
    r"|torch\.ops\.[\w.]+|aten\.[\w.]+)\(",
    re.M,
)


class KernelCountError(Exception):
    """Inductor could not compile the graph."""


@dataclass(frozen=True)
class KernelCount:
    generated: int
    extern: int

    @property
    def total(self) -> int:
        return self.generated + self.extern


def _call_body(code: str) -> str:
    start = code.find("def call(")
    if start < 0:
        raise KernelCountError("generated code has no call() function")
    end = code.find("\ndef ", start + 1)
    rest = code[start : end if end > 0 else len(code)]
    runner = rest.find("\nrunner = ")
    return rest[: runner if runner > 0 else len(rest)]


def count_in_code(code: str) -> KernelCount:
    """Kernel launches in the ``call`` function of Inductor's generated wrapper code."""
    generated = extern = 0
    for match in _LAUNCH.finditer(_call_body(code)):
        callee = match["callee"]
        if callee.startswith(("cpp_fused_", "triton_")):
            generated += 1
        else:
            extern += 1
    return KernelCount(generated, extern)


def _dummy_kernel(*args: Any, **kwargs: Any) -> Any:
    return lambda *a, **k: None


def _codegen_only_patches() -> list:
    from torch._inductor.async_compile import AsyncCompile

    names = [n for n in ("cpp_pybinding", "cpp", "triton") if hasattr(AsyncCompile, n)]
    return [mock.patch.object(AsyncCompile, n, _dummy_kernel) for n in names]


def count_kernels(
    gm: torch.fx.GraphModule,
    inputs: list[Any],
    *,
    device: str = "cpu",
    codegen_only: bool = True,
) -> KernelCount:
    """Compile ``gm`` with Inductor (inference) for ``inputs`` on ``device`` and count kernels."""
    from torch._inductor import config as inductor_config
    from torch._inductor.compile_fx import compile_fx
    from torch._inductor.graph import GraphLowering

    moved = [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]
    codes: list[str] = []
    patches = [mock.patch.object(GraphLowering, "save_output_code", codes.append)]
    if codegen_only:
        patches += _codegen_only_patches()
    settings = {"fx_graph_cache": False, "compile_threads": 1}
    try:
        with inductor_config.patch(settings), torch.no_grad():
            for p in patches:
                p.start()
            try:
                compile_fx(gm, moved)
            finally:
                for p in reversed(patches):
                    p.stop()
    except Exception as e:  # noqa: BLE001 - any Inductor failure is this range's result
        raise KernelCountError(f"Inductor failed: {type(e).__name__}: {str(e)[:200]}") from e
    if not codes:
        raise KernelCountError("Inductor produced no wrapper code")
    counts = [count_in_code(c) for c in codes]
    return KernelCount(sum(c.generated for c in counts), sum(c.extern for c in counts))


def eager_launches(gm: torch.nn.Module, inputs: list) -> int:
    """Aten ops that compute when ``gm`` runs eagerly on ``inputs`` laid out as its cut sample
    will have them (``sample_layout``: permuted dense layouts kept, others contiguous): what
    the sample costs eager. Ops whose outputs alias an input (views, ``contiguous()`` of a
    contiguous tensor) compute nothing and do not count."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class _Count(TorchDispatchMode):
        n = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            if not any(r.alias_info is not None for r in func._schema.returns):
                self.n += 1
            return func(*args, **(kwargs or {}))

    fresh = [sample_layout(x) if isinstance(x, torch.Tensor) else x for x in inputs]
    with torch.no_grad(), _Count() as mode:
        gm(*fresh)
    return mode.n
