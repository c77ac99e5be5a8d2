"""``inductor[:MODE]``: TorchInductor's compiled function for the sample's graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from passnet.core.results import CandidateSpec
from passnet.evaluation.candidates.base import (
    BuiltCandidate,
    CandidateError,
    CandidateKind,
    Identity,
)

INDUCTOR_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def inductor_compile(gm: torch.fx.GraphModule, inputs: list[Any], mode: str) -> Callable:
    from torch._inductor import config as inductor_config
    from torch._inductor import list_mode_options
    from torch._inductor.compile_fx import compile_fx

    options = list_mode_options(mode) if mode != "default" else {}
    with inductor_config.patch(options):
        compiled: Callable = compile_fx(gm, inputs)  # type: ignore[assignment]
        return compiled


class Inductor(CandidateKind):
    name = "inductor"
    syntax = "inductor[:MODE]"
    baseline = True

    def parse(self, arg: str) -> CandidateSpec:
        mode = arg or "default"
        if mode not in INDUCTOR_MODES:
            raise ValueError(f"unknown Inductor mode {mode!r}; known: {', '.join(INDUCTOR_MODES)}")
        return CandidateSpec(kind=self.name, options={"mode": mode})

    def build(
        self, spec: CandidateSpec, gm: torch.fx.GraphModule, inputs: list[Any]
    ) -> BuiltCandidate:
        mode = spec.options.get("mode", "default")
        try:
            return BuiltCandidate(fn=inductor_compile(gm, inputs, mode))
        except Exception as exc:  # noqa: BLE001 - any compiler failure is the candidate's
            raise CandidateError(f"Inductor ({mode}) failed: {type(exc).__name__}: {exc}") from exc

    def dynamo_backend(self, spec: CandidateSpec, matches: dict[str, int]) -> Any:
        return "inductor"

    def probe(self, x: torch.Tensor) -> Callable[[], Any]:
        fn = inductor_compile(torch.fx.symbolic_trace(Identity()), [x], "default")
        return lambda: fn(x)
