"""Markdown table of a zoo benchmark (scripts/accelerate_gpu.sh): one row per `passnet
accelerate --json` file in a folder (passnet/accelerate/run.py's AccelerateResult), with the
model, dtype, shape, rules fired, fusion sites fused, passnet's tightest tolerance level, every
side's median wall time and the speedup ratios.

    python scripts/zoo_table.py out/accelerate > out/accelerate/table.md

Only the folder's own *.json files are read (not warm/ or log/); a file that is not such a
result is named on stderr and left out.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SIDES = ("eager", "inductor", "inductor-ro", "passnet", "passnet-ro")
RATIOS = ("eager/passnet", "inductor/passnet", "inductor-ro/passnet-ro")


def header() -> list[str]:
    """The table's heading and separator lines."""
    cols = ["model", "dtype", "shape", "fired", "sites fused", "t (passnet)"]
    cols += [f"{s} µs" for s in SIDES] + list(RATIOS)
    return ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]


def row(d: dict[str, Any]) -> str:
    """One result's row."""
    timing = d.get("timing") or {}
    med = {s: (timing.get(s) or {}).get("wall", {}).get("median_us") for s in SIDES}
    cells = [f"{med[s]:,.0f}" if med[s] else "-" for s in SIDES]
    sp = d.get("speedups") or {}
    cells += [f"{sp[k]:.3f}x" if k in sp else "-" for k in RATIOS]
    t = (d.get("checks") or {}).get("passnet", {}).get("tightest_t")
    fused = ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in (d.get("sites") or {}).items() if v[0])
    first = [d["model"], d.get("dtype", "-"), d["shape"], str(d["fired"]), fused or "-",
             "-" if t is None else str(t)]  # fmt: skip
    return "| " + " | ".join(first + cells) + " |"


def table(folder: Path) -> list[str]:
    """The table's lines for every result in ``folder``, in file-name order."""
    lines = header()
    for f in sorted(folder.glob("*.json")):
        try:
            lines.append(row(json.loads(f.read_text(encoding="utf-8"))))
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
            print(f"zoo_table: {f.name} left out ({type(e).__name__}: {e})", file=sys.stderr)
    return lines


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python scripts/zoo_table.py FOLDER (of passnet accelerate --json files)",
              file=sys.stderr)  # fmt: skip
        return 2
    print("\n".join(table(Path(args[0]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
