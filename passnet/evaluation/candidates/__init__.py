"""Build the callable a candidate is timed through: a pass folder or a baseline compiler.

Every candidate starts from the same FX graph of the sample and ends as one plain callable
``fn(*inputs)``. With the default ``direct`` call path, the callable is the rewritten
GraphModule's ``forward`` (passes, ``eager``) or Inductor's compiled function: no Dynamo
guards, since a variant's shapes and dtypes are fixed. The ``dynamo`` call path goes
through ``torch.compile`` like upstream does (guards and wrappers included) for comparison.
The ``cudagraph`` call path builds the same callables as ``direct``; the worker captures each
side in a CUDA graph and times replays (:mod:`passnet.evaluation.graphed`).

Each kind is one file of this package (a ``CandidateKind``) and one entry of ``KINDS``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from passnet.core.results import CALL_PATHS, CandidateSpec
from passnet.evaluation.candidates.base import (
    BuiltCandidate,
    CandidateError,
    CandidateKind,
    Identity,
    NoMatchError,
)
from passnet.evaluation.candidates.eager import Eager
from passnet.evaluation.candidates.inductor import INDUCTOR_MODES, Inductor
from passnet.evaluation.candidates.library import Library
from passnet.evaluation.candidates.passes import Passes
from passnet.evaluation.candidates.synth import Synth

KINDS: dict[str, CandidateKind] = {
    k.name: k for k in (Eager(), Inductor(), Passes(), Synth(), Library())
}
"""Every candidate kind by ``CandidateSpec.kind``."""
_WRITTEN = {"passes": "pass", **{name: name for name in KINDS}}  # command-line name -> kind
BASELINES = tuple(name for name, k in KINDS.items() if k.baseline)

__all__ = [
    "BASELINES",
    "CALL_PATHS",
    "INDUCTOR_MODES",
    "KINDS",
    "BuiltCandidate",
    "CandidateError",
    "CandidateKind",
    "NoMatchError",
    "build_candidate",
    "call_path_probe",
    "kind_of",
    "parse_candidate",
]


def kind_of(spec: CandidateSpec) -> CandidateKind:
    try:
        return KINDS[spec.kind]
    except KeyError:
        raise ValueError(f"unknown candidate kind {spec.kind!r}") from None


def parse_candidate(text: str) -> CandidateSpec:
    """``eager``, ``inductor``, ``inductor:max-autotune``, ``passes:DIR`` or ``synth`` ->
    CandidateSpec. ``synth`` is not buildable here: ``passnet bench`` synthesises a pass folder
    per task (passnet.runner.synth_candidate) and evaluates that as a ``pass``."""
    written, _, arg = text.partition(":")
    name = _WRITTEN.get(written)
    if name is None:
        known = ", ".join(k.syntax for k in KINDS.values())
        raise ValueError(f"unknown candidate {text!r}; known: {known}")
    return KINDS[name].parse(arg)


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
    kind = kind_of(spec)
    if call_path == "dynamo":
        matches: dict[str, int] = {}
        options = (
            {"mode": spec.options["mode"]}
            if spec.options.get("mode", "default") != "default"
            else {}
        )
        compiled = torch.compile(
            module,
            backend=kind.dynamo_backend(spec, matches),
            fullgraph=True,
            dynamic=False,
            mode=options.get("mode"),
        )
        return BuiltCandidate(fn=compiled, matches=matches, note="torch.compile call path")
    return kind.build(spec, to_fx(module), inputs)


def call_path_probe(spec: CandidateSpec, device: torch.device, call_path: str) -> Callable:
    """A do-nothing graph built through the same path, to measure the path's own per-call cost."""
    if call_path == "cudagraph":
        from passnet.evaluation.graphed import graph_probe

        return graph_probe(device)
    x = torch.zeros(1, device=device)
    if call_path == "dynamo":
        backend = "inductor" if spec.kind == "inductor" else "eager"
        fn = torch.compile(Identity(), backend=backend, fullgraph=True, dynamic=False)
        return lambda: fn(x)
    return kind_of(spec).probe(x)
