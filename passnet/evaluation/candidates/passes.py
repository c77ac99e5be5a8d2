"""``passes:DIR``: an upstream-format pass folder applied to the sample's FX graph."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from passnet.core.results import CandidateSpec
from passnet.evaluation.candidates.base import (
    BuiltCandidate,
    CandidateError,
    CandidateKind,
    NoMatchError,
)


class Passes(CandidateKind):
    name = "pass"
    syntax = "passes:DIR"
    runs_pass_code = True

    def parse(self, arg: str) -> CandidateSpec:
        if not arg:
            raise ValueError("passes:DIR needs a pass folder")
        return CandidateSpec(kind=self.name, pass_dir=str(Path(arg).resolve()))

    def build(
        self, spec: CandidateSpec, gm: torch.fx.GraphModule, inputs: list[Any]
    ) -> BuiltCandidate:
        from passnet.passes.loader import PassLoadError, load_pass_dir
        from passnet.passes.matcher import apply_passes

        try:
            passes = load_pass_dir(_pass_dir(spec))
        except PassLoadError as exc:
            raise CandidateError(str(exc)) from exc
        try:
            report = apply_passes(gm, passes)
        except Exception as exc:  # noqa: BLE001 - a pass that breaks rewriting fails itself
            raise CandidateError(f"applying passes failed: {type(exc).__name__}: {exc}") from exc
        if report.total == 0:
            lines = [f"{r.name}: {r.diagnostic or 'no match'}" for r in report.rules]
            raise NoMatchError("no pass matched this graph. " + " | ".join(lines))
        return BuiltCandidate(fn=gm.forward, matches=report.matches)

    def dynamo_backend(self, spec: CandidateSpec, matches: dict[str, int]) -> Any:
        from passnet.passes.loader import load_pass_dir
        from passnet.passes.matcher import make_backend

        sink: list = []
        backend = make_backend(load_pass_dir(_pass_dir(spec)), sink)

        def recording_backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable:
            fn = backend(gm, example_inputs)
            for report in sink:
                for name, n in report.matches.items():
                    matches[name] = matches.get(name, 0) + n
            sink.clear()
            return fn

        return recording_backend


def _pass_dir(spec: CandidateSpec) -> str:
    if not spec.pass_dir:
        raise CandidateError("a pass candidate names no pass folder")
    return spec.pass_dir
