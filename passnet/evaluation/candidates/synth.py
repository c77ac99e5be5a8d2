"""``synth``: the built-in synthesizer as a candidate of ``passnet bench``.

Not buildable in a worker: the runner synthesises a pass folder per task
(``passnet.runner.synth_candidate``) and evaluates that as a ``pass``."""

from __future__ import annotations

from typing import Any

import torch

from passnet.core.results import CandidateSpec
from passnet.evaluation.candidates.base import BuiltCandidate, CandidateKind


class Synth(CandidateKind):
    name = "synth"
    syntax = "synth"

    def build(
        self, spec: CandidateSpec, gm: torch.fx.GraphModule, inputs: list[Any]
    ) -> BuiltCandidate:
        raise ValueError("synth is resolved to a pass folder per task by passnet bench")

    def dynamo_backend(self, spec: CandidateSpec, matches: dict[str, int]) -> Any:
        raise ValueError("synth is resolved to a pass folder per task by passnet bench")
