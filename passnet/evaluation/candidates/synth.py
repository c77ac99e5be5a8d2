"""``synth``: the built-in synthesizer as a candidate of ``passnet bench``.

Not buildable in a worker: the runner synthesises a pass folder per task
(``passnet.runner.synth_candidate``) and evaluates that as a ``pass``. ``synth`` (or
``synth:win``) submits the passes the synthesizer keeps, correct and faster than eager;
``synth:correct`` submits every correct one, slower too (``KEEP``)."""

from __future__ import annotations

from passnet.core.results import CandidateSpec
from passnet.evaluation.candidates.base import ResolvedPerTask

KEEP = {
    "win": "correct at the strict level on every variant and faster than eager (G-mean, GPU)",
    "correct": "correct on every variant (at the strict level or a looser one), whatever its speed",
}
"""The synthesizer's keep rules: which verified passes it submits."""


def keep_rule(spec: CandidateSpec) -> str:
    """The keep rule of a ``synth`` candidate (``win`` unless its options say otherwise)."""
    return spec.options.get("keep", "win")


class Synth(ResolvedPerTask):
    name = "synth"
    syntax = "synth[:KEEP]"

    def parse(self, arg: str) -> CandidateSpec:
        keep = arg or "win"
        if keep not in KEEP:
            raise ValueError(f"unknown synth keep rule {keep!r}; known: {', '.join(KEEP)}")
        # the default keeps no option, so its candidate id is the one runs had before
        return CandidateSpec(kind=self.name, options={} if keep == "win" else {"keep": keep})
