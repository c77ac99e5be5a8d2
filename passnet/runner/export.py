"""Export runs from the store: JSON (everything, nested) and Parquet (one row per measurement)."""

from __future__ import annotations

import json
from pathlib import Path

from passnet.runner.store import Store

EXPORT_SCHEMA = "passnet-run-export/1"

_COLUMNS = (
    "measurement_id",
    "run_id",
    "task",
    "graph",
    "dtype",
    "candidate",
    "candidate_kind",
    "candidate_id",
    "variant_id",
    "task_id",
    "source",
    "cached_from",
    "status",
    "error_class",
    "speedup",
    "speedup_cuda_event",
    "reference_median_us",
    "candidate_median_us",
    "tightest_passing_t",
    "worker_seconds",
    "device",
    "device_name",
    "context_key",
    "session_id",
    "created",
    "attempts",
)


def _row(m: dict) -> dict:
    """The exported columns of a measurement (a store older than schema 2 had no retries:
    every result took one attempt)."""
    return {k: m.get(k, 1 if k == "attempts" else None) for k in _COLUMNS}


def run_document(store: Store, run_id: str) -> dict:
    """One run as a JSON-able document: config, parameters, candidates, sessions, plan size,
    environments, every measurement with its full VariantResult, and the earlier attempts
    of items that were retried or re-measured."""
    run = store.run(run_id)
    measurements = []
    envs: dict[str, dict] = {}
    for m in store.measurements(run_id):
        if m["env_id"] and m["environment_json"]:
            envs[m["env_id"]] = json.loads(m["environment_json"])
        row = _row(m)
        row["env_id"] = m["env_id"]
        row["result"] = json.loads(m["result_json"])
        measurements.append(row)
    candidates = []
    for c in store.run_candidates(run_id):
        c["spec"] = json.loads(c.pop("spec_json"))
        candidates.append(c)
    return {
        "schema": EXPORT_SCHEMA,
        "run": run,
        "candidates": candidates,
        "sessions": store.sessions(run_id),
        "planned_items": len(store.run_items(run_id)),
        "environments": envs,
        "measurements": measurements,
        "attempts": [
            {k: v for k, v in a.items() if k != "result_json"}
            | {"result": json.loads(a["result_json"])}
            for a in store.attempts(run_id)
        ],
    }


def export_json(store: Store, run_ids: list[str], out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    docs = [run_document(store, r) for r in run_ids]
    out.write_text(json.dumps(docs[0] if len(docs) == 1 else docs, indent=1, default=str))
    return out


def export_parquet(store: Store, run_ids: list[str], out: Path) -> Path:
    """Flat measurement rows (scalars + the VariantResult JSON as a string column)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = []
    for run_id in run_ids:
        for m in store.measurements(run_id):
            row = _row(m)
            row["result_json"] = m["result_json"]
            rows.append(row)
    out.parent.mkdir(parents=True, exist_ok=True)
    schema = pa.schema(
        [
            (k, pa.float64())
            if k
            in (
                "speedup",
                "speedup_cuda_event",
                "reference_median_us",
                "candidate_median_us",
                "worker_seconds",
                "created",
            )
            else (k, pa.int64())
            if k
            in ("measurement_id", "cached_from", "tightest_passing_t", "session_id", "attempts")
            else (k, pa.string())
            for k in (*_COLUMNS, "result_json")
        ]
    )
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), out)
    return out
