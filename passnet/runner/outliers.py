"""Timings that disagree with what else the run measured, measured again before they are
stored.

Every candidate of a variant is timed against the same reference (eager on the variant), so
the reference's median should agree across the items of a variant, and eager timed against
itself should score about 1.0x. An item that breaks either was disturbed (a worker timed while
the host was busy), not fast or slow: it is measured once more (``OUTLIER_RETRIES``), and what
still disagrees after that is stored and named in the bench's closing lines.

Both checks are over the whole run, not one invocation: a run resumed over several calls
checks each item against the references the run has stored so far (earlier calls' included),
and the closing lines come from the run's stored results (``Outliers.of_run``), replayed in
the order they were stored, so they read the same whether the run took one call or five.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from passnet.core.results import VariantResult

if TYPE_CHECKING:
    from passnet.runner.store import Store

REFERENCE_BAND = (0.8, 1.25)  # a reference median against the variant's earlier ones in the run
SELF_BAND = (0.9, 1.1)  # eager against itself
OUTLIER_RETRIES = 1


def _reference_us(r: VariantResult) -> float | None:
    """The reference's median of a result with both sides timed meaningfully, else None."""
    if r.reference is None or r.candidate is None or not r.timing_meaningful:
        return None
    return r.reference.wall.median_us


def _eager_off(kind: str, r: VariantResult) -> bool:
    return kind == "eager" and r.speedup is not None and not (
        SELF_BAND[0] <= r.speedup <= SELF_BAND[1])  # fmt: skip


@dataclass
class Outliers:
    """The reference medians seen per variant, and which stored items stayed outliers."""

    references: dict[str, list[float]] = field(default_factory=dict)
    eager_timed: int = 0  # eager items timed against themselves
    eager_off: list[str] = field(default_factory=list)  # "task/graph 0.62x"
    reference_off: list[str] = field(default_factory=list)  # "task/graph (inductor) 1.60x"

    def _reference_ratio(self, variant: str, r: VariantResult) -> float | None:
        """``r``'s reference median over the variant's earlier ones; None when in the band
        (or nothing to compare with)."""
        seen, ref = self.references.get(variant), _reference_us(r)
        if not seen or ref is None:
            return None
        ratio = ref / statistics.median(seen)
        return None if REFERENCE_BAND[0] <= ratio <= REFERENCE_BAND[1] else ratio

    def why(self, variant: str, kind: str, r: VariantResult) -> str:
        """Why ``r`` should be measured again ('' when it agrees with the run)."""
        if _reference_us(r) is None:
            return ""
        if _eager_off(kind, r):
            return f"eager against itself at {r.speedup:.2f}x"
        if (ratio := self._reference_ratio(variant, r)) is not None:
            return f"reference median {ratio:.2f}x the variant's earlier items'"
        return ""

    def keep(
        self,
        variant: str,
        kind: str,
        r: VariantResult,
        label: str | None = None,
        who: str = "",
        cached: bool = False,
    ) -> None:
        """A stored result: its reference joins the variant's (not one ``cached`` from
        another run: timed another time). With ``label`` (and the candidate's name, ``who``),
        an item still off either band is named."""
        if (ref := _reference_us(r)) is None:
            return
        ratio = None
        if not cached:
            ratio = self._reference_ratio(variant, r)
            self.references.setdefault(variant, []).append(ref)
        if kind == "eager":
            self.eager_timed += 1
        if label is None:
            return
        if ratio is not None:
            self.reference_off.append(f"{label} ({who or kind}) {ratio:.2f}x")
        if _eager_off(kind, r):
            self.eager_off.append(f"{label} {r.speedup:.2f}x")

    @classmethod
    def of_run(cls, store: Store, run_id: str) -> Outliers:
        """Every final timed result the run has stored, replayed in the order it was stored:
        each reference is checked against the ones stored before it, as ``bench`` did."""
        out = cls()
        for row in store.measurements(run_id):
            if row["reference_median_us"] is None or row["candidate_median_us"] is None:
                continue  # not timed: nothing to check, no result worth parsing
            r = VariantResult.model_validate_json(row["result_json"])
            label = f"{row['task']}/{row['graph']}"
            out.keep(row["variant_id"], row["candidate_kind"], r, label, row["candidate"],
                     cached=row["source"] == "cache")  # fmt: skip
        return out
