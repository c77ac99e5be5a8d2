"""``library:DIR``: a pass library (``examples/synth_passes``) as a candidate of ``passnet bench``.

A library holds one upstream-format pass folder per task, ``DIR/<task>/pass``. Not buildable
in a worker: the runner picks each task's folder by the task's folder name
(``passnet.runner.library_candidate``) and evaluates it as a ``pass``; a task the library has
no pass for scores as a pass that matches nothing."""

from __future__ import annotations

from pathlib import Path

from passnet.core.results import CandidateSpec
from passnet.evaluation.candidates.base import ResolvedPerTask


class Library(ResolvedPerTask):
    name = "library"
    syntax = "library:DIR"

    def parse(self, arg: str) -> CandidateSpec:
        if not arg:
            raise ValueError("library:DIR needs a pass library folder (DIR/<task>/pass)")
        return CandidateSpec(kind=self.name, pass_dir=str(Path(arg).resolve()))
