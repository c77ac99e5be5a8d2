"""The dataset catalog: one SQLite file (WAL mode) next to the content-addressed samples.

Tables (every sample folder lives at ``samples/<hash[:2]>/<hash>/`` under the dataset root):

* ``models``: zoo or imported models (name, library, family, domain)
* ``captures``: one row per model x shape: status (``ok`` / ``failed`` / ``skipped``), reason,
  the graph hash, weights (real / meta), seconds and peak RSS of the capture
* ``samples``: every sample folder (full graph, subgraph or variant) by structural hash, with
  its op count, shape bucket, dtype and pattern hash
* ``decompositions``: per full graph, whether decomposition finished, its Inductor runs
* ``kernel_cache``: Inductor kernel counts by (device, structural hash of a range)
* ``subgraphs`` / ``occurrences``: unique subgraphs per kind and every place they were found
* ``variants``: per subgraph x shape capture x dtype, the variant sample or why it failed
* ``tasks`` / ``task_variants`` / ``splits``: grouped tasks and their train/eval assignment
* ``measurements``: eager vs Inductor timings per variant and device

Resumability is by construction: every stage checks these rows and skips what is done.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS models (
  name TEXT PRIMARY KEY, library TEXT, family TEXT, domain TEXT, origin TEXT);
CREATE TABLE IF NOT EXISTS captures (
  model TEXT, shape TEXT, status TEXT, reason TEXT, graph TEXT, weights TEXT,
  parameters INTEGER, seconds REAL, maxrss_mb REAL, created REAL,
  PRIMARY KEY (model, shape));
CREATE TABLE IF NOT EXISTS samples (
  hash TEXT PRIMARY KEY, path TEXT, role TEXT, n_ops INTEGER, bucket INTEGER, numel INTEGER,
  dtype TEXT, pattern TEXT, ops TEXT);
CREATE TABLE IF NOT EXISTS decompositions (
  graph TEXT, stage TEXT, status TEXT, reason TEXT, compiles INTEGER, truncated INTEGER,
  seconds REAL, counts TEXT, PRIMARY KEY (graph, stage));
CREATE TABLE IF NOT EXISTS kernel_cache (key TEXT PRIMARY KEY, kernels INTEGER);
CREATE TABLE IF NOT EXISTS subgraphs (
  hash TEXT, kind TEXT, model TEXT, family TEXT, parent TEXT, start INTEGER, "end" INTEGER,
  kernels INTEGER, pattern TEXT, ops TEXT, PRIMARY KEY (hash, kind));
CREATE TABLE IF NOT EXISTS occurrences (
  hash TEXT, kind TEXT, parent TEXT, start INTEGER, "end" INTEGER,
  PRIMARY KEY (hash, kind, parent, start));
CREATE TABLE IF NOT EXISTS variants (
  subgraph TEXT, graph TEXT, dtype TEXT, hash TEXT, bucket INTEGER, status TEXT, reason TEXT,
  kernels INTEGER, PRIMARY KEY (subgraph, graph, dtype));
CREATE TABLE IF NOT EXISTS tasks (
  name TEXT PRIMARY KEY, pattern TEXT, kind TEXT, ops TEXT, n_variants INTEGER,
  models TEXT, families TEXT, buckets TEXT, dtypes TEXT);
CREATE TABLE IF NOT EXISTS task_variants (
  task TEXT, hash TEXT, subgraph TEXT, dtype TEXT, bucket INTEGER, model TEXT, family TEXT,
  PRIMARY KEY (task, hash));
CREATE TABLE IF NOT EXISTS splits (task TEXT, scheme TEXT, split TEXT, PRIMARY KEY (task, scheme));
CREATE TABLE IF NOT EXISTS measurements (
  hash TEXT, device TEXT, candidate TEXT, status TEXT, eager_us REAL, candidate_us REAL,
  speedup REAL, error TEXT, created REAL, PRIMARY KEY (hash, device, candidate));
"""


class CatalogError(Exception):
    """The catalog cannot be opened (not a dataset root, or a newer schema)."""


class Catalog:
    """A dataset root's catalog; ``with Catalog(root) as cat`` commits on success."""

    FILE = "catalog.sqlite"

    def __init__(self, root: Path | str, *, create: bool = True) -> None:
        self.root = Path(root).resolve()
        path = self.root / self.FILE
        if not path.is_file() and not create:
            raise CatalogError(
                f"{self.root}: not a dataset root (no {self.FILE}); "
                "run `passnet dataset build` or `passnet dataset import` first"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(path, timeout=120, isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise CatalogError(f"{path}: not a readable catalog: {e}") from e
        version = self.get_meta("schema_version")
        if version is None:
            self.set_meta("schema_version", str(SCHEMA_VERSION))
        elif int(version) > SCHEMA_VERSION:
            raise CatalogError(f"{path}: schema {version} is newer than this passnet's")

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # --- generic helpers -------------------------------------------------------------------

    def rows(self, sql: str, params: Iterable[Any] = ()) -> list[dict]:
        return [dict(r) for r in self.db.execute(sql, tuple(params)).fetchall()]

    def one(self, sql: str, params: Iterable[Any] = ()) -> dict | None:
        row = self.db.execute(sql, tuple(params)).fetchone()
        return dict(row) if row is not None else None

    def scalar(self, sql: str, params: Iterable[Any] = ()) -> Any:
        row = self.db.execute(sql, tuple(params)).fetchone()
        return row[0] if row is not None else None

    def upsert(self, table: str, row: dict) -> None:
        cols = ", ".join(f'"{c}"' for c in row)
        marks = ", ".join("?" for _ in row)
        self.db.execute(
            f"INSERT OR REPLACE INTO {table} ({cols}) VALUES ({marks})", tuple(row.values())
        )

    def insert_ignore(self, table: str, row: dict) -> None:
        cols = ", ".join(f'"{c}"' for c in row)
        marks = ", ".join("?" for _ in row)
        self.db.execute(
            f"INSERT OR IGNORE INTO {table} ({cols}) VALUES ({marks})", tuple(row.values())
        )

    def get_meta(self, key: str) -> str | None:
        return self.scalar("SELECT value FROM meta WHERE key = ?", (key,))

    def set_meta(self, key: str, value: str) -> None:
        self.upsert("meta", {"key": key, "value": value})

    # --- samples ------------------------------------------------------------------------------

    def sample_dir(self, digest: str) -> Path:
        return self.root / "samples" / digest[:2] / digest

    def sample_path(self, digest: str) -> Path:
        row = self.one("SELECT path FROM samples WHERE hash = ?", (digest,))
        return self.root / row["path"] if row else self.sample_dir(digest)

    def add_sample(self, digest: str, role: str, info: dict) -> None:
        path = self.sample_dir(digest).relative_to(self.root).as_posix()
        row = {"hash": digest, "path": path, "role": role}
        row |= {k: info.get(k) for k in ("n_ops", "bucket", "numel", "dtype", "pattern")}
        row["ops"] = json.dumps(info.get("ops", []))
        self.insert_ignore("samples", row)

    # --- captures -------------------------------------------------------------------------

    def capture_done(self, model: str, shape: str, retry_failed: bool = False) -> bool:
        row = self.one("SELECT status FROM captures WHERE model = ? AND shape = ?", (model, shape))
        if row is None:
            return False
        return row["status"] == "ok" or not retry_failed

    def record_capture(self, row: dict) -> None:
        self.upsert("captures", {**row, "created": time.time()})

    # --- kernel cache -----------------------------------------------------------------------

    def kernel_cache(self) -> dict[str, int | None]:
        return {r["key"]: r["kernels"] for r in self.rows("SELECT key, kernels FROM kernel_cache")}

    def add_kernel_counts(self, items: dict[str, int | None]) -> None:
        with self.transaction():
            for key, value in items.items():
                self.upsert("kernel_cache", {"key": key, "kernels": value})
