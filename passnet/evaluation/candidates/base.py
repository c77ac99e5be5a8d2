"""What every candidate kind provides (one file per kind in this package, one registry).

A kind turns a ``CandidateSpec`` and a sample's FX graph into the one plain callable that is
timed, ``fn(*inputs)``; it says whether it is a baseline (only harness code runs in its
worker, and its measurements are cached per variant) and builds the do-nothing probe that
measures its call path's own cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import torch

from passnet.core.results import CandidateSpec


class CandidateError(Exception):
    """The candidate could not be built for this graph (a compile-class failure)."""


class NoMatchError(CandidateError):
    """A pass set that changed nothing in this graph."""


@dataclass
class BuiltCandidate:
    fn: Callable[..., Any]
    matches: dict[str, int] = field(default_factory=dict)
    note: str = ""


class Identity(torch.nn.Module):
    """The probe's graph: returns its input, so a call costs only the call path."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor]:
        return (x,)


class CandidateKind:
    """One kind of candidate. Subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    syntax: ClassVar[str]  # how it is written on the command line, for help and errors
    baseline: ClassVar[bool] = False  # harness code only: trusted worker, cached measurements
    runs_pass_code: ClassVar[bool] = False  # a pass folder's code runs: policy, runtime guards

    def parse(self, arg: str) -> CandidateSpec:
        if arg:
            raise ValueError(f"{self.name} takes no argument (got {self.name}:{arg})")
        return CandidateSpec(kind=self.name)

    def build(
        self, spec: CandidateSpec, gm: torch.fx.GraphModule, inputs: list[Any]
    ) -> BuiltCandidate:
        """The callable on the direct and cudagraph call paths (no Dynamo guards)."""
        raise NotImplementedError

    def dynamo_backend(self, spec: CandidateSpec, matches: dict[str, int]) -> Any:
        """The ``torch.compile`` backend on the dynamo call path (matches recorded into
        ``matches`` as graphs are compiled)."""
        raise NotImplementedError

    def probe(self, x: torch.Tensor) -> Callable[[], Any]:
        """A do-nothing graph called the way this kind's callable is (direct call path)."""
        fn = torch.fx.symbolic_trace(Identity()).forward
        return lambda: fn(x)


class ResolvedPerTask(CandidateKind):
    """A kind ``passnet bench`` turns into a pass folder per task before dispatch (``synth``,
    ``library``): never built in a worker."""

    def build(
        self, spec: CandidateSpec, gm: torch.fx.GraphModule, inputs: list[Any]
    ) -> BuiltCandidate:
        raise ValueError(f"{self.name} is resolved to a pass folder per task by passnet bench")

    def dynamo_backend(self, spec: CandidateSpec, matches: dict[str, int]) -> Any:
        raise ValueError(f"{self.name} is resolved to a pass folder per task by passnet bench")
