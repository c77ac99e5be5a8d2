"""Markdown table of a bench run on the bundled suite: per task, Inductor (and any other
candidate) against eager, with the task's ops and model families from suite.json.

    python scripts/suite_table.py --store runs/passnet.db [RUN] [--suite examples/suite]

Used for docs/dataset.md; prints to stdout. Speedups are G-means over the task's variants
that were correct, with min-max across them; every variant's status counts in "ok".
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from passnet.evaluation.results import Status, VariantResult
from passnet.reports.leaderboard import short_label
from passnet.runner.store import Store
from passnet.scores.metrics import gmean


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", nargs="?", default="latest")
    ap.add_argument("--store", type=Path, default=Path("runs/passnet.db"))
    ap.add_argument("--suite", type=Path, default=Path("examples/suite"))
    args = ap.parse_args()
    meta = {t["name"]: t for t in json.loads((args.suite / "suite.json").read_text())["tasks"]}
    with Store(args.store) as st:
        run_id = st.resolve_run(args.run)
        items = {(i["candidate_id"], i["variant_id"]): i["task"] for i in st.run_items(run_id)}
        cands = {c["candidate_id"]: short_label(c["label"]) for c in st.run_candidates(run_id)}
        per: dict[tuple[str, str], list[VariantResult]] = {}
        for m in st.measurements(run_id):
            task = items[(m["candidate_id"], m["variant_id"])]
            v = VariantResult.model_validate_json(m["result_json"])
            per.setdefault((task, m["candidate_id"]), []).append(v)
    names = sorted({t for t, _ in per})
    head = ["task", "families", "ops"]
    for label in cands.values():
        head += [f"{label} ok", f"{label} vs eager (min-max)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    all_speedups: dict[str, list[float]] = {c: [] for c in cands}
    for name in names:
        info = meta.get(name, {})
        ops = [o.rsplit(".", 1)[-1] for o in info.get("ops", [])]
        cells = [f"`{name}`", ", ".join(info.get("families", [])),
                 " ".join(ops[:6]) + (" ..." if len(ops) > 6 else "")]  # fmt: skip
        for cid in cands:
            vs = per.get((name, cid), [])
            ok = [v.speedup for v in vs if v.status is Status.OK and v.speedup]
            all_speedups[cid] += ok
            cells.append(f"{len(ok)}/{len(vs)}")
            cells.append(
                f"{gmean(ok):.2f}x ({min(ok):.2f}-{max(ok):.2f})" if ok else "-"
            )
        print("| " + " | ".join(cells) + " |")
    for cid, label in cands.items():
        s = all_speedups[cid]
        if s:
            below = sum(x < 1 for x in s)
            print(f"\n{label}: G-mean {gmean(s):.3f}x over {len(s)} correct variants, "
                  f"median {sorted(s)[len(s) // 2]:.3f}x, {below} below 1x "
                  f"(log-spread {math.exp(_std([math.log(x) for x in s])):.2f}x)")  # fmt: skip


def _std(xs: list[float]) -> float:
    mean = sum(xs) / len(xs)
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))


if __name__ == "__main__":
    main()
