"""``eager``: the sample's own FX graph, run as it is (the reference, timed as a candidate)."""

from __future__ import annotations

from typing import Any

import torch

from passnet.core.results import CandidateSpec
from passnet.evaluation.candidates.base import BuiltCandidate, CandidateKind


class Eager(CandidateKind):
    name = "eager"
    syntax = "eager"
    baseline = True

    def build(
        self, spec: CandidateSpec, gm: torch.fx.GraphModule, inputs: list[Any]
    ) -> BuiltCandidate:
        return BuiltCandidate(fn=gm.forward)

    def dynamo_backend(self, spec: CandidateSpec, matches: dict[str, int]) -> Any:
        return "eager"
