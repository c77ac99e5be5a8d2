"""Markdown table of bench runs on the bundled suite: per task, each candidate against eager,
with the task's ops and model families from suite.json; several runs side by side.

    python scripts/suite_table.py runs/passnet.db                     # latest run of a store
    python scripts/suite_table.py cpu=runs/cpu.db:RUN h200=gpu.db:RUN # columns: LABEL=STORE[:RUN]

Used for docs/dataset.md; prints to stdout. Speedups are G-means over the task's variants
that were correct, with min-max across them; "ok" counts correct of measured variants. The
numbers come from the leaderboard (passnet.reports), so they match `passnet report`.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from passnet.reports.leaderboard import Row, build_leaderboard
from passnet.runner.store import Store
from passnet.scores.metrics import gmean


def load_rows(spec: str) -> list[tuple[str, Row]]:
    """``[LABEL=]STORE[:RUN]`` -> (column label, leaderboard row) per candidate of that run."""
    label, _, rest = spec.rpartition("=")
    path, _, run = rest.partition(":")
    if not Path(path).is_file():
        raise SystemExit(f"suite_table: no results store at {path}")
    with Store(Path(path), readonly=True) as st:
        board = build_leaderboard(st, [run or "latest"])
    return [(f"{label} {r.name}".strip(), r) for r in board.rows]


def speedup_cell(row: Row, task: str) -> str:
    ok = row.task_speedups.get(task)
    if task not in row.task_sizes:
        return "-"
    if not ok:
        return f"- (0/{row.task_sizes[task]} ok)"
    return f"{gmean(ok):.2f}x ({min(ok):.2f}-{max(ok):.2f})"


def summary(label: str, row: Row) -> str:
    s = sorted(row.speedups)
    if not s:
        return f"{label}: no correct variant"
    below = sum(x < 1 for x in s)
    logs = [math.log(x) for x in s]
    mean = sum(logs) / len(logs)
    spread = math.exp(math.sqrt(sum((x - mean) ** 2 for x in logs) / len(logs)))
    return (f"{label}: G-mean {gmean(s):.3f}x over {len(s)} correct of {row.done} measured "
            f"variants, median {s[len(s) // 2]:.3f}x, {below} below 1x "
            f"(log-spread {spread:.2f}x)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("columns", nargs="+", metavar="[LABEL=]STORE[:RUN]")
    ap.add_argument("--suite", type=Path, default=Path("examples/suite"))
    args = ap.parse_args()
    index = args.suite / "suite.json"  # families and ops; a suite without one shows names only
    tasks_meta = json.loads(index.read_text())["tasks"] if index.is_file() else []
    meta = {t["name"]: t for t in tasks_meta}
    cols = [c for spec in args.columns for c in load_rows(spec)]
    tasks = sorted({t for _, row in cols for t in row.task_sizes})
    head = ["task", "families", "ops"]
    for label, _ in cols:
        head += [f"{label} ok", f"{label} vs eager (min-max)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in tasks:
        info = meta.get(name, {})
        ops = [o.rsplit(".", 1)[-1] for o in info.get("ops", [])]
        cells = [f"`{name}`", ", ".join(info.get("families", [])),
                 " ".join(ops[:6]) + (" ..." if len(ops) > 6 else "")]  # fmt: skip
        for _, row in cols:
            n = row.task_sizes.get(name)
            cells += [f"{len(row.task_speedups.get(name, []))}/{n}" if n else "-",
                      speedup_cell(row, name)]  # fmt: skip
        print("| " + " | ".join(cells) + " |")
    print()
    for label, row in cols:
        print(summary(label, row) + "  ")


if __name__ == "__main__":
    main()
