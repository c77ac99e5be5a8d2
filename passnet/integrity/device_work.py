"""The side-stream check: device work a call leaves running after its own stream finished.

Event timing measures the timed stream only, so work a pass puts on another stream escapes it.
After each checked call the worker waits for the call's stream, then for the whole device,
and times that second wait. A genuine escape leaves work on every call; a single slow wait
is also what a worker descheduled by the host, or a device shared with other workers'
preparation, produces (seen on the H200 at ``--prepare-ahead 8`` after calls that launch on
one stream: docs/integrity.md). So one slow wait is a warning and a second in the same
evaluation rejects the pass. Each wait also records how long the worker actually ran during it: a
descheduled worker runs for almost none of the wait, a spinning wait for work runs for all of
it (CUDA spins while it waits unless told to block), which tells the two apart in a report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

BUSY_S = 1e-3  # a device sync slower than this after the stream finished is a strike
STRIKES = 2  # strikes in one evaluation that reject: one is noise, two is a pattern


def timed_wait(wait: Callable[[], None]) -> tuple[float, float]:
    """(wall seconds, seconds this thread ran) of one blocking wait."""
    ran0, wall0 = time.thread_time(), time.perf_counter()
    wait()
    return time.perf_counter() - wall0, time.thread_time() - ran0


@dataclass
class DeviceWork:
    """Strikes of one evaluation; ``observe`` returns the finding to add, if any."""

    busy_s: float = BUSY_S
    strikes: int = STRIKES
    calls: int = 0
    slow: list[tuple[int, float, float]] = field(default_factory=list)  # (call, wall, ran)

    def observe(self, wall: float, ran: float) -> tuple[str, str, bool] | None:
        """Record one checked call's device wait: (check, detail, fatal) or None."""
        self.calls += 1
        if wall <= self.busy_s:
            return None
        self.slow.append((self.calls, wall, ran))
        seen = "; ".join(
            f"call {c}: {w * 1e3:.1f} ms, the worker ran {r * 1e3:.1f} ms of it"
            for c, w, r in self.slow[-self.strikes :]
        )
        if len(self.slow) == self.strikes:
            return (
                "side-stream",
                f"the device was busy after the call's stream finished on {len(self.slow)} of "
                f"{self.calls} checked calls ({seen}): work on another stream escapes event "
                "timing",
                True,
            )
        if len(self.slow) == 1:
            return (
                "side-stream-once",
                f"the device was busy after the call's stream finished on one checked call "
                f"({seen}); a second time rejects the pass, once is what a descheduled worker "
                "or another process's work on the device also shows",
                False,
            )
        return None  # already rejected: one finding says it
