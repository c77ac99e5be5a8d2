"""P2's calls side by side: one line per ``passnet eval --json`` result of ``DIR/p2_H_N.json``
(harness ``H``, call ``N``), then each harness's median over its calls after the first (the
first finds a service's workers cold).

Per call: the evaluation's seconds, the variants whose reference or candidate timing stayed
noisy (each re-run up to ``max_reruns`` times first: the usual reason a call is long), the
seconds the device's timing lock was held (summed over the variants; with the integrity
harness split into the timed calls, the checked calls and the held outputs' comparison),
every status and every finding::

    python scripts/p2_summary.py out/p2
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path

NAME = re.compile(r"p2_(?P<harness>[A-Za-z0-9-]+)_(?P<call>\d+)\.json$")
LOCK = ("timing", "timing_checks", "timing_settle")


def summarise(result: dict) -> dict:
    """The figures of one call's task result."""
    variants = result["variants"]
    phases: dict[str, float] = {}
    for v in variants:
        for key, seconds in (v.get("phase_seconds") or {}).items():
            phases[key] = phases.get(key, 0.0) + seconds
    noisy = sum(
        1 for v in variants
        if any((v.get(side) or {}).get("wall", {}).get("noisy") for side in ("reference", "candidate"))
    )  # fmt: skip
    findings = sorted({f["check"] for v in variants for f in v.get("integrity") or []})
    return {
        "seconds": result["wall_seconds"],
        "variants": len(variants),
        "noisy": noisy,
        "lock": sum(phases.get(k, 0.0) for k in LOCK),
        "parts": [round(phases.get(k, 0.0), 2) for k in LOCK],
        "statuses": sorted({v["status"] for v in variants}),
        "findings": findings,
        "AS": result["scores"]["AS"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="a folder of p2_HARNESS_CALL.json results")
    args = ap.parse_args()
    calls: dict[str, list[tuple[int, dict]]] = {}
    for path in sorted(args.folder.glob("p2_*.json")):
        m = NAME.search(path.name)
        if m:
            row = summarise(json.loads(path.read_text(encoding="utf-8")))
            calls.setdefault(m["harness"], []).append((int(m["call"]), row))
    if not calls:
        raise SystemExit(f"{args.folder}: no p2_HARNESS_CALL.json results")
    for harness, rows in calls.items():
        for call, r in sorted(rows, key=lambda x: x[0]):
            t, chk, settle = r["parts"]
            print(f"{harness} {call}: {r['seconds']:.2f} s, noisy {r['noisy']}/{r['variants']}, "
                  f"lock {r['lock']:.2f} s (timed {t}, checked {chk}, held {settle}), "
                  f"AS {r['AS']:.3f}, {'/'.join(r['statuses'])}"
                  + (f", findings {', '.join(r['findings'])}" if r["findings"] else ""))  # fmt: skip
    for harness, rows in calls.items():
        warm = [r["seconds"] for call, r in sorted(rows, key=lambda x: x[0])[1:]]
        if warm:
            print(f"{harness}: median {statistics.median(warm):.2f} s over {len(warm)} warm "
                  f"call(s) ({min(warm):.2f}-{max(warm):.2f})")  # fmt: skip


if __name__ == "__main__":
    main()
