"""Export tasks (PassNet folder layout, so ``passnet eval`` runs them, or Parquet) and stats."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from passnet.dataset.catalog import Catalog
from passnet.dataset.task import write_task
from passnet.dataset.tasks import split_variants

SUITE_JSON = "suite.json"


class ExportError(Exception):
    """Nothing to export, or the destination is not usable."""


def select_tasks(
    cat: Catalog,
    *,
    kind: str | None = "fusible",
    split: str | None = None,
    scheme: str = "task",
    names: list[str] | None = None,
    limit: int | None = None,
) -> list[dict]:
    """Task rows by kind, split (``eval``/``train``, or ``bench`` of the longtail scheme), names."""
    sql, params = "SELECT t.* FROM tasks t", []
    where = []
    if split:
        sql += " JOIN splits s ON s.task = t.name AND s.scheme = ?"
        params.append("longtail" if split in ("bench", "rest") else scheme)
        where.append("s.split = ?")
        params.append(split)
    if kind:
        where.append("t.kind = ?")
        params.append(kind)
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = cat.rows(sql + " ORDER BY t.name", params)
    if names:
        missing = sorted(set(names) - {r["name"] for r in rows})
        if missing:
            raise ExportError(
                f"unknown task(s) {', '.join(missing)}; see `passnet dataset stats --tasks`"
            )
        rows = [r for r in rows if r["name"] in set(names)]
    return rows[:limit] if limit else rows


def _variants(cat: Catalog, task: str, scheme: str) -> list[dict]:
    return split_variants(cat, task, scheme if scheme == "family" else "task")


def _readable_copy(cat: Catalog, variant: dict, tmp: Path) -> Path:
    """The variant's files in a folder named ``<model>_b<bucket>_<hash[:8]>`` (task layout names)."""
    model = re.sub(r"[^\w.-]+", "-", variant["model"].rsplit("/", 1)[-1])
    folder = tmp / f"{model}_b{variant['bucket']}_{variant['hash'][:8]}"
    folder.mkdir()
    for item in cat.sample_path(variant["hash"]).iterdir():
        if item.is_file():
            shutil.copy2(item, folder / item.name)
    sources_file = folder / "subgraph_sources.json"
    if sources_file.is_file():  # a portable parent: model@shape and hash, not a local path
        sources = json.loads(sources_file.read_text(encoding="utf-8"))
        parent_hash = Path(str(sources.get("parent", ""))).name
        row = cat.one("SELECT model, shape FROM captures WHERE graph = ?", (parent_hash,))
        if row:
            sources["parent"] = f"{row['model']}@{row['shape']}"
            sources["parent_hash"] = parent_hash
            sources_file.write_text(json.dumps(sources, indent=4) + "\n", encoding="utf-8")
    return folder


def export_folders(cat: Catalog, tasks: list[dict], out: Path, *, scheme: str = "task",
                   overwrite: bool = False, extra: dict | None = None) -> Path:  # fmt: skip
    """One PassNet task folder per task under ``out`` and ``out/suite.json`` describing them."""
    if not tasks:
        raise ExportError("no task matches; run `passnet dataset tasks` first or widen the filter")
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise ExportError(f"{out}: exists and is not empty (use --overwrite)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for t in tasks:
        variants = _variants(cat, t["name"], scheme)
        with tempfile.TemporaryDirectory(prefix="passnet-export-") as tmp:
            paths = [_readable_copy(cat, v, Path(tmp)) for v in variants]
            write_task(out / t["name"], paths, name=t["name"])
        entries.append({
            "name": t["name"], "kind": t["kind"], "ops": json.loads(t["ops"]),
            "models": sorted({v["model"] for v in variants}),
            "families": sorted({v["family"] for v in variants}),
            "buckets": sorted({v["bucket"] for v in variants}),
            "dtypes": sorted({v["dtype"] for v in variants}),
            "variants": [{"hash": v["hash"], "dtype": v["dtype"], "bucket": v["bucket"],
                          "model": v["model"]} for v in variants],
        })  # fmt: skip
    suite = {"schema_version": 1, "tasks": entries} | (extra or {})
    (out / SUITE_JSON).write_text(json.dumps(suite, indent=2) + "\n", encoding="utf-8")
    return out


def export_parquet(cat: Catalog, tasks: list[dict], out: Path, *, scheme: str = "task") -> Path:
    """One Parquet row per task variant, with its model.py and weight_meta.py text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not tasks:
        raise ExportError("no task matches; run `passnet dataset tasks` first or widen the filter")
    rows: list[dict[str, Any]] = []
    for t in tasks:
        split = cat.scalar(
            "SELECT split FROM splits WHERE task = ? AND scheme = ?", (t["name"], scheme)
        )
        for v in _variants(cat, t["name"], scheme):
            folder = cat.sample_path(v["hash"])
            rows.append({
                "task": t["name"], "kind": t["kind"], "split": split, "pattern": t["pattern"],
                "graph_hash": v["hash"], "subgraph": v["subgraph"], "dtype": v["dtype"],
                "bucket": v["bucket"], "model": v["model"], "family": v["family"],
                "model_py": (folder / "model.py").read_text(encoding="utf-8"),
                "weight_meta_py": (folder / "weight_meta.py").read_text(encoding="utf-8"),
                "graph_net_json": (folder / "graph_net.json").read_text(encoding="utf-8"),
            })  # fmt: skip
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), out)
    return out


_EXCEPTION = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Exit))\b")


def reason_class(reason: str | None) -> str:
    """The class of a rejection: its first phrase without the file and the details, plus the
    exception type (``forward failed (RuntimeError)``), so reasons can be counted."""
    text = re.sub(r"^fails validation:\s*", "", reason or "unknown")
    text = re.sub(r"^\S+\.py(?::\d+)?:\s*", "", text)  # the file the reason names
    phrase = re.split(r":| at line | \(", text, maxsplit=1)[0].strip() or "unknown"
    phrase = re.sub(r"\d+", "N", phrase)
    exc = _EXCEPTION.search(text)
    return f"{phrase} ({exc.group(1)})" if exc and exc.group(1) not in phrase else phrase


def stats(cat: Catalog) -> dict[str, Any]:
    """Counts over the whole dataset (what ``passnet dataset stats`` prints)."""
    s: dict[str, Any] = {}
    s["models"] = cat.scalar("SELECT COUNT(*) FROM models")
    s["captures"] = {r["status"]: r["n"] for r in cat.rows(
        "SELECT status, COUNT(*) n FROM captures GROUP BY status")}  # fmt: skip
    ok = s["captures"].get("ok", 0)
    unique = cat.scalar("SELECT COUNT(DISTINCT graph) FROM captures WHERE status = 'ok'")
    s["graphs"] = {"instances": ok, "unique": unique,
                   "dedup_ratio": round(ok / unique, 3) if unique else None}  # fmt: skip
    kinds = {}
    for r in cat.rows(
        "SELECT kind, COUNT(DISTINCT hash) uniq, COUNT(*) n FROM occurrences GROUP BY kind"
    ):
        kinds[r["kind"]] = {"unique": r["uniq"], "occurrences": r["n"],
                            "dedup_ratio": round(r["n"] / r["uniq"], 3)}  # fmt: skip
    s["subgraphs"] = kinds
    s["variants"] = {f"{r['status']}:{r['dtype']}": r["n"] for r in cat.rows(
        "SELECT status, dtype, COUNT(*) n FROM variants GROUP BY status, dtype")}  # fmt: skip
    s["variant_buckets"] = {str(r["bucket"]): r["n"] for r in cat.rows(
        "SELECT bucket, COUNT(*) n FROM variants WHERE status = 'ok' GROUP BY bucket")}  # fmt: skip
    s["tasks"] = {
        r["kind"]: r["n"] for r in cat.rows("SELECT kind, COUNT(*) n FROM tasks GROUP BY kind")
    }
    s["splits"] = {f"{r['scheme']}:{r['split']}": r["n"] for r in cat.rows(
        "SELECT scheme, split, COUNT(*) n FROM splits GROUP BY scheme, split")}  # fmt: skip
    failed = cat.rows("SELECT model, shape, reason FROM captures WHERE status != 'ok' "
                      "ORDER BY model")  # fmt: skip
    classes = Counter(reason_class(r["reason"]) for r in failed)
    s["rejections_by_class"] = dict(classes.most_common())
    s["failures"] = [f"{r['model']}@{r['shape']}: {r['reason']}" for r in failed]
    for key in ("last_build", "last_decompose"):
        value = cat.get_meta(key)
        s[key] = json.loads(value) if value else None
    return s
