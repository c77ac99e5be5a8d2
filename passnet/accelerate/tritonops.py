"""A rule's replacement as a ``torch.library.triton_op``, so Inductor launches its kernels itself.

The opaque custom op (customops.py) costs a Python dispatch, the guards and the layout checks on
every call, and Inductor cannot see into it. A triton op is traced instead: under
``torch.compile`` Inductor decomposes it by running its body on fake tensors, where every
``cached`` kernel launch goes through ``torch.library.wrap_triton``
(``passnet.passes.launch.traced_launches``). The recorded launches become nodes of the graph,
and Inductor emits them in its generated wrapper with the replacement's own grid and launch
parameters: no Python runs per call. Outside Inductor the same op runs its body on real
tensors (the library's guarded call, native launches), like the custom op.

Only a replacement made of ``cached`` kernel launches and tensor allocation and metadata can be
traced: a body that reads data, a pointer or launches a plain ``kernel[grid]`` fails on fake
tensors. Each op is therefore traced once, at registration, on fake tensors of the match's
layouts (``make_fx``); where that fails, or where Triton cannot be traced at all (not CUDA, or
Triton's interpreter, which runs kernels as Python on real data), the rule keeps the opaque
custom op and the graph's report says why. Both agree on the output's layout: the pattern's.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from typing import Any

import torch

from passnet.accelerate.library import LibraryRule
from passnet.passes.launch import traced_launches

_ANNOTATIONS = {"Tensor": torch.Tensor, "SymInt": int, "float": float, "bool": bool}


class NotTraceable(Exception):
    """The replacement cannot be a triton op here; the message says why."""


def traceable_here(examples: Sequence[Any]) -> str:
    """Why no triton op can be made for these inputs ('' when one can be tried)."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return "Triton's interpreter runs kernels on real data, not on Inductor's fake tensors"
    devices = {e.device.type for e in examples if isinstance(e, torch.Tensor)}
    if devices != {"cuda"}:
        return f"Inductor launches Triton kernels on CUDA tensors only (here: {sorted(devices)})"
    if any(not isinstance(d, int) for e in examples if isinstance(e, torch.Tensor)
           for d in (*e.shape, *e.stride())):  # fmt: skip
        return "the match has symbolic sizes (dynamic shapes)"
    return ""


def _traced(args: tuple) -> bool:
    from torch._subclasses.fake_tensor import FakeTensor
    from torch._subclasses.functional_tensor import FunctionalTensor

    return any(isinstance(a, (FakeTensor, FunctionalTensor)) for a in args)


def _signature(types: Sequence[str], n_out: int) -> inspect.Signature:
    """What ``triton_op`` infers the op's schema from (it reads annotations only)."""
    params = [
        inspect.Parameter(f"a{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          annotation=_ANNOTATIONS[t])
        for i, t in enumerate(types)
    ]  # fmt: skip
    ret: Any = torch.Tensor if n_out == 1 else tuple[(torch.Tensor,) * n_out]  # type: ignore[misc]
    return inspect.Signature(params, return_annotation=ret)


def register(
    r: LibraryRule,
    qualname: str,
    types: Sequence[str],
    n_out: int,
    bound: dict[str, Any],
    eager: Callable[..., Any],
    conform: Callable[[Any, tuple], Any],
    examples: Sequence[Any],
    mutates: Sequence[str] = (),
) -> Any:
    """The op ``qualname`` for one signature and binding; raises NotTraceable.

    ``eager``: the body on real tensors (the custom op's implementation). ``conform``: makes
    traced outputs the pattern's layout, with traceable ops only. ``mutates``: the arguments
    the replacement writes in place (``a0``, ...), declared as ``triton_op``'s
    ``mutates_args``."""
    from torch.library import wrap_triton

    def body(*args: Any) -> Any:
        if not _traced(args):
            return eager(*args)
        with traced_launches(wrap_triton):
            out = r.call(*args, **bound)
        return conform(out, args)

    body.__signature__ = _signature(types, n_out)  # type: ignore[attr-defined]
    body.__name__ = body.__qualname__ = qualname.split("::")[-1]
    op = torch.library.triton_op(qualname, body, mutates_args=tuple(mutates))
    _trial(op, examples, r.label)
    if mutates:
        _trial_writes(op, examples, r.label, [int(a[1:]) for a in mutates])
    return op


def _concrete(e: Any) -> Any:
    """A tensor of an example's layout (Dynamo's examples may be fake), else the example."""
    if isinstance(e, torch.Tensor):
        return torch.empty_strided(tuple(e.shape), tuple(e.stride()), dtype=e.dtype,
                                   device=e.device)  # fmt: skip
    return e


def _fake_trace(fn: Callable[..., Any], examples: Sequence[Any]) -> None:
    """``fn`` traced on fake tensors of the examples' layouts, with a fake mode of its own:
    inside a Dynamo backend make_fx would take Dynamo's (its tracing context's), give the
    examples new symbolic sizes with no source, and guards on them break Dynamo's guard
    building (``symbol_to_source``: IndexError)."""
    from torch._guards import tracing
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    from torch.fx.experimental.proxy_tensor import make_fx

    inputs = [_concrete(e) for e in examples]
    with tracing(None), unset_fake_temporarily():
        make_fx(fn, tracing_mode="fake")(*inputs)


def _trial(op: Any, examples: Sequence[Any], label: str) -> None:
    """Trace the op once on fake tensors of the match's layouts, as Inductor will."""
    try:
        _fake_trace(lambda *a: op(*a), examples)
    except Exception as e:  # noqa: BLE001 - any failure: the opaque op instead
        raise NotTraceable(f"{label}: its body does not trace on fake tensors: "
                           f"{type(e).__name__}: {str(e)[:300]}") from e  # fmt: skip


def _trial_writes(op: Any, examples: Sequence[Any], label: str, written: Sequence[int]) -> None:
    """Check that the writes into the inputs ``written`` survive functionalization, as
    AOTAutograd runs it before Inductor: the op decomposes into its body there (its kernel
    launches become functional ``triton_kernel_wrapper`` nodes, which return what a kernel
    stores into), and each written input must come out with a data mutation, which Inductor
    then makes in the caller's tensor. Where one does not, the opaque op keeps the write."""
    from torch._subclasses.functional_tensor import FunctionalTensor, FunctionalTensorMode

    kept: list[bool] = []
    mutated = torch._functionalize_has_data_mutation  # type: ignore[attr-defined]

    def functional(*args: Any) -> None:
        above = torch._C._ExcludeDispatchKeyGuard(
            torch._C.DispatchKeySet(torch._C.DispatchKey.Functionalize)
        )
        with above, FunctionalTensorMode():
            wrapped = [FunctionalTensor.to_functional(a) if isinstance(a, torch.Tensor) else a
                       for a in args]  # fmt: skip
            op(*wrapped)
            for i in written:
                torch._sync(wrapped[i])
                kept.append(bool(mutated(wrapped[i].elem)))

    try:
        _fake_trace(functional, examples)
    except Exception as e:  # noqa: BLE001 - any failure: the opaque op instead
        raise NotTraceable(f"{label}: its body does not functionalize: "
                           f"{type(e).__name__}: {str(e)[:300]}") from e  # fmt: skip
    if not all(kept):
        lost = [f"a{i}" for i, k in zip(written, kept, strict=True) if not k]
        raise NotTraceable(f"{label}: its traced body leaves {', '.join(lost)} unwritten, "
                           "which its pattern writes in place; the opaque op runs it as "
                           "written")  # fmt: skip
