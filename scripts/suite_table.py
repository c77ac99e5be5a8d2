"""Markdown table of bench runs on the bundled suite: per task, each candidate against eager,
with the task's ops and model families from suite.json; several runs side by side.

    python scripts/suite_table.py runs/passnet.db                     # latest run of a store
    python scripts/suite_table.py cpu=runs/cpu.db:RUN h200=gpu.db:RUN # columns: LABEL=STORE[:RUN]
    python scripts/suite_table.py gpu.db --by-dtype   # one cell per candidate: f32 / f16 / bf16

Used for the tables under docs/results/; prints to stdout. Speedups are G-means over the task's variants
that were correct, with min-max across them; "ok" counts correct of measured variants. The
numbers come from the leaderboard (passnet.reports), so they match `passnet report`.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from passnet.core.results import VariantResult
from passnet.reports.leaderboard import Row, build_leaderboard, counted_speedup, short_label
from passnet.runner.store import Store
from passnet.scores.metrics import gmean

DTYPES = ("float32", "float16", "bfloat16")


def load_rows(spec: str) -> list[tuple[str, Row]]:
    """``[LABEL=]STORE[:RUN]`` -> (column label, leaderboard row) per candidate of that run."""
    label, _, rest = spec.rpartition("=")
    path, _, run = rest.partition(":")
    if not Path(path).is_file():
        raise SystemExit(f"suite_table: no results store at {path}")
    with Store(Path(path), readonly=True) as st:
        board = build_leaderboard(st, [run or "latest"])
    return [(f"{label} {r.name}".strip(), r) for r in board.rows]


def dtype_speedups(spec: str) -> dict[str, dict[tuple[str, str], list[float]]]:
    """Column label -> (task, dtype) -> speedups of the correct variants (as the leaderboard
    counts them), from the run's measurements."""
    label, _, rest = spec.rpartition("=")
    path, _, run = rest.partition(":")
    out: dict[str, dict[tuple[str, str], list[float]]] = {}
    with Store(Path(path), readonly=True) as st:
        for m in st.measurements(st.resolve_run(run or "latest")):
            v = VariantResult.model_validate_json(m["result_json"])
            col = out.setdefault(f"{label} {short_label(m['candidate'])}".strip(), {})
            cell = col.setdefault((m["task"], m["dtype"]), [])
            if (speedup := counted_speedup(v)) is not None:
                cell.append(speedup)
    return out


def dtype_cell(col: dict[tuple[str, str], list[float]], task: str) -> str:
    """``f32 / f16 / bf16`` G-means of one task (``-``: none measured, ``x``: none correct)."""
    parts = []
    for d in DTYPES:
        ok = col.get((task, d))
        parts.append("-" if ok is None else f"{gmean(ok):.2f}" if ok else "x")
    return " / ".join(parts)


def dtype_summary(label: str, col: dict[tuple[str, str], list[float]]) -> str:
    """Per dtype: G-mean over correct variants, and tasks where the candidate does not beat
    eager (task G-mean <= 1, or no correct variant)."""
    parts = []
    for d in DTYPES:
        cells = {t: ok for (t, dt), ok in col.items() if dt == d}
        flat = [x for ok in cells.values() for x in ok]
        if not cells:
            continue
        lose = sum(not ok or gmean(ok) <= 1 for ok in cells.values())
        g = f"{gmean(flat):.3f}x" if flat else "-"
        parts.append(f"{d} G-mean {g} ({len(flat)} correct), not faster than eager on "
                     f"{lose} of {len(cells)} tasks")  # fmt: skip
    return f"{label}: " + "; ".join(parts)


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
    ap.add_argument("--by-dtype", action="store_true", help="per-dtype G-means in each cell")
    args = ap.parse_args()
    index = args.suite / "suite.json"  # families and ops; a suite without one shows names only
    tasks_meta = json.loads(index.read_text())["tasks"] if index.is_file() else []
    meta = {t["name"]: t for t in tasks_meta}
    cols = [c for spec in args.columns for c in load_rows(spec)]
    by_dtype = {k: v for spec in args.columns for k, v in dtype_speedups(spec).items()}
    tasks = sorted({t for _, row in cols for t in row.task_sizes})
    head = ["task", "families", "ops"]
    for label, _ in cols:
        last = "f32 / f16 / bf16 vs eager" if args.by_dtype else "vs eager (min-max)"
        head += [f"{label} ok", f"{label} {last}"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in tasks:
        info = meta.get(name, {})
        ops = [o.rsplit(".", 1)[-1] for o in info.get("ops", [])]
        cells = [f"`{name}`", ", ".join(info.get("families", [])),
                 " ".join(ops[:6]) + (" ..." if len(ops) > 6 else "")]  # fmt: skip
        for label, row in cols:
            n = row.task_sizes.get(name)
            last = dtype_cell(by_dtype.get(label, {}), name) if args.by_dtype else None
            cells += [f"{len(row.task_speedups.get(name, []))}/{n}" if n else "-",
                      last or speedup_cell(row, name)]  # fmt: skip
        print("| " + " | ".join(cells) + " |")
    print()
    for label, row in cols:
        print(summary(label, row) + "  ")
        if args.by_dtype:
            print(dtype_summary(label, by_dtype.get(label, {})) + "  ")


if __name__ == "__main__":
    main()
