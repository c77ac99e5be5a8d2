"""One line per harness_probe run (from its output on stdin): label, round, G-mean speedup and
the G-mean of both sides' wall medians over the task's variants (scripts/harness_bisect.sh)."""

from __future__ import annotations

import math
import re
import sys


def gmean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main() -> None:
    head, ref, cand = "", [], []
    for line in sys.stdin:
        if m := re.match(
            r"(\S+) (\S+) ahead=\d+: ([\d.]+) s, G-mean speedup \(wall\) ([\d.]+)", line
        ):
            head = f"{m.group(1):24s} {m.group(2):10s} {m.group(3):>6s} s  G-mean {m.group(4)}"
        elif m := re.search(r"wall ([\d.]+) / ([\d.]+) us", line):
            ref.append(float(m.group(1)))
            cand.append(float(m.group(2)))
        elif "skipped" in line or "Error" in line:
            print(line.rstrip())
    if head:
        print(
            f"round {sys.argv[1]}: {head}  eager {gmean(ref):.1f} us  candidate {gmean(cand):.1f} us",
            flush=True,
        )


if __name__ == "__main__":
    main()
