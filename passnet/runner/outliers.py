"""Timings that disagree with what else the run measured, measured again before they are
stored.

Every candidate of a variant is timed against the same reference (eager on the variant), so
the reference's median should agree across the items of a variant, and eager timed against
itself should score about 1.0x. An item that breaks either was disturbed (a worker timed while
the host was busy), not fast or slow: it is measured once more (``OUTLIER_RETRIES``), and what
still disagrees after that is named in the bench's closing lines.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from passnet.core.results import VariantResult

REFERENCE_BAND = (0.8, 1.25)  # a reference median against the variant's others in this run
SELF_BAND = (0.9, 1.1)  # eager against itself
OUTLIER_RETRIES = 1


@dataclass
class Outliers:
    """The reference medians seen per variant, and which items stayed outliers."""

    references: dict[str, list[float]] = field(default_factory=dict)
    eager_off: list[str] = field(default_factory=list)  # "task/graph (dtype): 0.62x"

    def why(self, variant: str, kind: str, r: VariantResult) -> str:
        """Why ``r`` should be measured again ('' when it agrees with the run)."""
        if r.reference is None or r.candidate is None or not r.timing_meaningful:
            return ""
        if kind == "eager" and r.speedup is not None and not (
                SELF_BAND[0] <= r.speedup <= SELF_BAND[1]):  # fmt: skip
            return f"eager against itself at {r.speedup:.2f}x"
        seen = self.references.get(variant)
        if seen:
            ratio = r.reference.wall.median_us / statistics.median(seen)
            if not REFERENCE_BAND[0] <= ratio <= REFERENCE_BAND[1]:
                return f"reference median {ratio:.2f}x the variant's other items'"
        return ""

    def keep(self, variant: str, label: str, kind: str, r: VariantResult) -> None:
        """A stored result: its reference joins the variant's; eager off 1.0x is named."""
        if r.reference is None or r.candidate is None or not r.timing_meaningful:
            return
        self.references.setdefault(variant, []).append(r.reference.wall.median_us)
        if kind == "eager" and r.speedup is not None and not (
                SELF_BAND[0] <= r.speedup <= SELF_BAND[1]):  # fmt: skip
            self.eager_off.append(f"{label}: {r.speedup:.2f}x")
