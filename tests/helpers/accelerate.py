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
