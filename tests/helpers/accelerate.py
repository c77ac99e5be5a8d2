"""A rule's triton op registered outside the backend (``tritonops.register`` with the eager
body and layout conforming the backend gives it), for tests of the triton-op path that run
without Triton: the body is the rule's torch ops."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from passnet.accelerate import PassLibrary, customops, tritonops


def triton_op_of(folder: Path, name: str, examples: Sequence[torch.Tensor]) -> Any:
    """``passnet::<name>``: the first rule of ``folder`` as a triton op, traced once on
    ``examples`` (raises ``tritonops.NotTraceable`` as the backend would see it)."""
    r = PassLibrary.load([folder]).rules[0]
    pattern, layouts = r.pattern_for({}), {}
    eager = customops._eager_impl(r, 1, {}, pattern, layouts)

    def conform(out: Any, args: tuple) -> Any:
        (expected,) = customops._layouts(pattern, args, layouts)
        return customops._conform_traced(out, args, expected)

    types = ["Tensor"] * len(examples)
    return tritonops.register(r, f"passnet::{name}", types, 1, {}, eager, conform,
                              list(examples), customops.mutated_args(r))  # fmt: skip


def compiled_under(passes: Any, model: torch.nn.Module, *args: Any,
                   **kwargs: Any) -> tuple[Any, Any, Any]:  # fmt: skip
    """(compiled output, eager output, the backend) of ``model(*args, **kwargs)`` under the
        pass library
    ``passes`` with eager as the inner compiler (what runs on CPU), Dynamo reset first."""
    import passnet

    torch._dynamo.reset()
    be = passnet.backend(passes=passes, inner="eager")
    with torch.no_grad():
        out = torch.compile(model, backend=be)(*args, **kwargs)
        ref = model(*args, **kwargs)
    return out, ref, be


def zoo_under(passes: Any, name: str, **load: Any) -> tuple[Any, Any, Any]:
    """``compiled_under`` for the zoo model ``name`` built with ``load`` (``load_model``'s
    keywords: a hidden size no pass was written for, say); outputs as dicts."""
    from passnet.accelerate.models import load_model

    loaded = load_model(name, **load)
    out, ref, be = compiled_under(passes, loaded.model, *loaded.args, **loaded.kwargs)
    return dict(out), dict(ref), be
