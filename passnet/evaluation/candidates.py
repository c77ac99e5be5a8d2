"""Build the callable a candidate is timed through: a pass folder or a baseline compiler.

Every candidate starts from the same FX graph of the sample and ends as one plain callable
``fn(*inputs)``. With the default ``direct`` call path, the callable is the rewritten
GraphModule's ``forward`` (passes, ``eager``) or Inductor's compiled function: no Dynamo
guards, since a variant's shapes and dtypes are fixed. The ``dynamo`` call path goes
through ``torch.compile`` like upstream does (guards and wrappers included) for comparison.
The ``cudagraph`` call path builds the same callables as ``direct``; the worker captures each
side in a CUDA graph and times replays (:mod:`passnet.evaluation.graphed`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from passnet.core.results import CALL_PATHS, CandidateSpec

BASELINES = ("eager", "inductor")
__all__ = ["BASELINES", "CALL_PATHS", "INDUCTOR_MODES", "build_candidate", "parse_candidate"]

INDUCTOR_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


class CandidateError(Exception):
    """The candidate could not be built for this graph (a compile-class failure)."""


class NoMatchError(CandidateError):
    """A pass set that changed nothing in this graph."""


@dataclass
class BuiltCandidate:
    fn: Callable[..., Any]
    matches: dict[str, int] = field(default_factory=dict)
    note: str = ""


def parse_candidate(text: str) -> CandidateSpec:
    """``eager``, ``inductor``, ``inductor:max-autotune``, ``passes:DIR`` or ``synth`` ->
    CandidateSpec. ``synth`` is not buildable here: ``passnet bench`` synthesises a pass folder
    per task (passnet.runner.synth_candidate) and evaluates that as a ``pass``."""
    kind, _, arg = text.partition(":")
    if kind in ("passes", "pass"):
        if not arg:
            raise ValueError("passes:DIR needs a pass folder")
        return CandidateSpec(kind="pass", pass_dir=str(Path(arg).resolve()))
    if kind == "eager":
        return CandidateSpec(kind="eager")
    if kind == "inductor":
        mode = arg or "default"
        if mode not in INDUCTOR_MODES:
            raise ValueError(f"unknown Inductor mode {mode!r}; known: {', '.join(INDUCTOR_MODES)}")
        return CandidateSpec(kind="inductor", options={"mode": mode})
    if kind == "synth" and not arg:
        return CandidateSpec(kind="synth")
    raise ValueError(
        f"unknown candidate {text!r}; known: eager, inductor[:MODE], passes:DIR, synth"
    )


def _inductor_compile(gm: torch.fx.GraphModule, inputs: list[Any], mode: str) -> Callable:
    from torch._inductor import config as inductor_config
    from torch._inductor import list_mode_options
    from torch._inductor.compile_fx import compile_fx

    options = list_mode_options(mode) if mode != "default" else {}
    with inductor_config.patch(options):
        return compile_fx(gm, inputs)


def _dynamo_backend(spec: CandidateSpec, matches: dict[str, int]) -> Any:
    if spec.kind == "eager":
        return "eager"
    if spec.kind == "inductor":
        return "inductor"
    from passnet.passes.loader import load_pass_dir
    from passnet.passes.matcher import make_backend

    sink: list = []
    backend = make_backend(load_pass_dir(spec.pass_dir), sink)

    def recording_backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable:
        fn = backend(gm, example_inputs)
        for report in sink:
            for name, n in report.matches.items():
                matches[name] = matches.get(name, 0) + n
        sink.clear()
        return fn

    return recording_backend


def build_candidate(
    spec: CandidateSpec, module: torch.nn.Module, inputs: list[Any], call_path: str = "direct"
) -> BuiltCandidate:
    """Turn a candidate spec and a sample's module into the callable that gets timed.

    Raises NoMatchError when passes change nothing and CandidateError when building fails;
    the first call (compilation under ``dynamo``) happens later, in the caller's guard.
    """
    from passnet.passes.matcher import to_fx

    if call_path not in CALL_PATHS:
        raise ValueError(f"unknown call path {call_path!r}; known: {', '.join(CALL_PATHS)}")
    if call_path == "dynamo":
        matches: dict[str, int] = {}
        options = (
            {"mode": spec.options["mode"]}
            if spec.options.get("mode", "default") != "default"
            else {}
        )
        compiled = torch.compile(
            module, backend=_dynamo_backend(spec, matches), fullgraph=True, dynamic=False, **options
        )
        return BuiltCandidate(fn=compiled, matches=matches, note="torch.compile call path")

    gm = to_fx(module)
    if spec.kind == "eager":
        return BuiltCandidate(fn=gm.forward)
    if spec.kind == "inductor":
        mode = spec.options.get("mode", "default")
        try:
            return BuiltCandidate(fn=_inductor_compile(gm, inputs, mode))
        except Exception as exc:  # noqa: BLE001 - any compiler failure is the candidate's
            raise CandidateError(f"Inductor ({mode}) failed: {type(exc).__name__}: {exc}") from exc
    if spec.kind == "pass":
        from passnet.passes.loader import PassLoadError, load_pass_dir
        from passnet.passes.matcher import apply_passes

        try:
            passes = load_pass_dir(spec.pass_dir)
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
    if spec.kind == "synth":
        raise ValueError("synth is resolved to a pass folder per task by passnet bench")
    raise ValueError(f"unknown candidate kind {spec.kind!r}")


class _Identity(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor]:
        return (x,)


def call_path_probe(spec: CandidateSpec, device: torch.device, call_path: str) -> Callable:
    """A do-nothing graph built through the same path, to measure the path's own per-call cost."""
    if call_path == "cudagraph":
        from passnet.evaluation.graphed import graph_probe

        return graph_probe(device)
    x = torch.zeros(1, device=device)
    if call_path == "dynamo":
        backend = "inductor" if spec.kind == "inductor" else "eager"
        fn = torch.compile(_Identity(), backend=backend, fullgraph=True, dynamic=False)
    elif spec.kind == "inductor":
        fn = _inductor_compile(torch.fx.symbolic_trace(_Identity()), [x], "default")
    else:
        fn = torch.fx.symbolic_trace(_Identity()).forward
    return lambda: fn(x)
