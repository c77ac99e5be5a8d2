"""Two benches of the same suite and candidates, variant by variant: what a change of the
evaluator changed (``scripts/harness_ab.sh`` runs the two benches; this reads their stores).

Reads only the stores' SQLite tables (no ``passnet`` import), so stores written by two
revisions of the harness compare alike. For every candidate label both stores hold (the newest
run of each store): how many variants each scored correct, the variants whose status or
tightest passing level differs, every integrity finding of the second store (an honest
candidate should have none that is fatal), and the G-mean of the speedup ratio second / first
over the variants both timed, with its spread.

    python scripts/ab_compare.py OLD.db[.gz] NEW.db[.gz] [--json OUT]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sqlite3
import statistics
import tempfile
from pathlib import Path

Key = tuple[str, str, str, str]  # candidate label, task name, graph, dtype


def _open(path: Path) -> sqlite3.Connection:
    if path.suffix == ".gz":
        tmp = Path(tempfile.mkdtemp()) / path.stem
        tmp.write_bytes(gzip.decompress(path.read_bytes()))
        path = tmp
    if not path.is_file():
        raise SystemExit(f"{path}: no such store")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def load(path: Path) -> dict[Key, dict]:
    """The newest run's measurements of the store, by (candidate, task, graph, dtype)."""
    db = _open(path)
    row = db.execute("SELECT run_id FROM runs ORDER BY created DESC LIMIT 1").fetchone()
    if row is None:
        raise SystemExit(f"{path}: the store holds no run")
    out: dict[Key, dict] = {}
    for label, task, graph, dtype, status, t, speedup, result in db.execute(
        "SELECT c.label, k.name, v.graph, v.dtype, m.status, m.tightest_passing_t, m.speedup,"
        " m.result_json FROM measurements m JOIN candidates c USING (candidate_id)"
        " JOIN variants v USING (variant_id) JOIN tasks k ON k.task_id = m.task_id"
        " WHERE m.run_id = ?",
        row,
    ):
        findings = json.loads(result).get("integrity") or []
        out[(label, task, graph, dtype or "")] = {
            "status": status,
            "t": t,
            "speedup": speedup,
            "findings": findings,
        }
    return out


def _finding(f: object) -> str:
    if isinstance(f, dict):
        fatal = " (fatal)" if f.get("fatal") else ""
        return f"{f.get('check', '?')}{fatal}: {f.get('detail', '')}".strip()
    return str(f)


def compare(old: dict[Key, dict], new: dict[Key, dict]) -> dict:
    labels = sorted({k[0] for k in old} & {k[0] for k in new})
    report: dict = {"candidates": {}}
    for label in labels:
        keys = sorted(k for k in old.keys() & new.keys() if k[0] == label)
        a = {k: old[k] for k in keys}
        b = {k: new[k] for k in keys}
        ratios = [
            b[k]["speedup"] / a[k]["speedup"] for k in keys if a[k]["speedup"] and b[k]["speedup"]
        ]
        logs = [math.log(r) for r in ratios]
        changed = [
            {
                "variant": "/".join(k[1:]),
                "old": [a[k]["status"], a[k]["t"]],
                "new": [b[k]["status"], b[k]["t"]],
            }
            for k in keys
            if (a[k]["status"], a[k]["t"]) != (b[k]["status"], b[k]["t"])
        ]
        report["candidates"][label] = {
            "variants": len(keys),
            "only_old": sum(1 for k in old if k[0] == label and k not in new),
            "only_new": sum(1 for k in new if k[0] == label and k not in old),
            "ok_old": sum(v["status"] == "ok" for v in a.values()),
            "ok_new": sum(v["status"] == "ok" for v in b.values()),
            "changed": changed,
            "findings_new": {
                "/".join(k[1:]): [_finding(f) for f in v["findings"]]
                for k, v in b.items()
                if v["findings"]
            },
            "speedup_ratio_gmean": math.exp(statistics.fmean(logs)) if logs else None,
            "speedup_ratio_q": (
                [round(q, 4) for q in statistics.quantiles(ratios, n=4)]
                if len(ratios) > 1
                else None
            ),
        }
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--json", type=Path, help="also write the whole comparison here")
    args = ap.parse_args()
    report = compare(load(args.old), load(args.new))
    if not report["candidates"]:
        raise SystemExit("the two stores share no candidate label")
    for label, c in report["candidates"].items():
        g = c["speedup_ratio_gmean"]
        print(
            f"{label}: {c['variants']} variants in both (only old {c['only_old']}, only new "
            f"{c['only_new']}); ok {c['ok_old']} -> {c['ok_new']}; speedup new/old G-mean "
            + (f"{g:.4f} (quartiles {c['speedup_ratio_q']})" if g else "-")
        )
        for ch in c["changed"]:
            print(f"  changed {ch['variant']}: {ch['old']} -> {ch['new']}")
        for variant, fs in c["findings_new"].items():
            print(f"  findings (new) {variant}: {'; '.join(fs)}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
