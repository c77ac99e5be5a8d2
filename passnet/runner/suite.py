"""Candidates by content: the ids that key runs and the baseline cache (the suite side,
tasks and variants by content, is ``passnet.dataset.suite``)."""

from __future__ import annotations

from pathlib import Path

from passnet.core.bundled import missing_hint
from passnet.core.hashing import canonical_json, digest
from passnet.core.results import CandidateSpec
from passnet.dataset.suite import SuiteError, folder_digest
from passnet.evaluation.candidates import kind_of


def synth_code_hash() -> str:
    """Hash of the synthesizer's source (passnet/synth): what ``synth`` produces depends on
    it, so a changed synthesizer is a new candidate (new run id, new synthesis cache)."""
    return folder_digest(Path(__file__).resolve().parents[1] / "synth")


def candidate_id(spec: CandidateSpec) -> tuple[str, str]:
    """(candidate id, content hash): a pass is identified by the bytes of its folder, a
    library by those of all its folders, the ``synth`` candidate by the bytes of the
    synthesizer."""
    content = ""
    if spec.kind in ("pass", "library"):  # a library: every pass of it, a changed one is new
        folder = Path(str(spec.pass_dir))
        if not folder.is_dir():
            what = "pass folder" if spec.kind == "pass" else "pass library"
            raise SuiteError(f"{what} {folder} does not exist{missing_hint(folder)}")
        content = folder_digest(folder)
    elif spec.kind == "synth":
        content = synth_code_hash()
    spec_key = canonical_json({"kind": spec.kind, "options": spec.options})
    return digest(spec_key, content), content


def is_baseline(spec: CandidateSpec) -> bool:
    """Baselines are measured once per (variant, device, versions, timing) and cached."""
    return kind_of(spec).baseline
