"""The store's SQLite schema, its migrations, and opening a store file safely.

A store file is checked when it is opened (not when a query first trips over it), so a
corrupt, truncated or foreign file, or a ``--store`` path that cannot exist, is one clear
``StoreError`` before any work starts. Older stores (the ones committed under docs/results
included) are migrated in one write transaction when opened for writing; opened read-only
(reports, listings, exports) they are read as they are and left byte-for-byte untouched.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from passnet.runner.paths import mkdir_problem

STORE_SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE parameters (params_id TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE environments (
  env_id TEXT PRIMARY KEY, device TEXT, device_name TEXT, torch TEXT, triton TEXT,
  json TEXT NOT NULL);
CREATE TABLE candidates (
  candidate_id TEXT PRIMARY KEY, label TEXT NOT NULL, kind TEXT NOT NULL,
  content_hash TEXT, spec_json TEXT NOT NULL);
CREATE TABLE tasks (
  task_id TEXT PRIMARY KEY, name TEXT NOT NULL, path TEXT, n_variants INTEGER);
CREATE TABLE variants (
  variant_id TEXT PRIMARY KEY, task_id TEXT NOT NULL REFERENCES tasks(task_id),
  graph TEXT NOT NULL, dtype TEXT, content_hash TEXT NOT NULL, path TEXT);
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY, created REAL NOT NULL, suite TEXT NOT NULL, device TEXT NOT NULL,
  params_id TEXT NOT NULL REFERENCES parameters(params_id), config_json TEXT NOT NULL,
  status TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE run_candidates (
  run_id TEXT NOT NULL, candidate_id TEXT NOT NULL, position INTEGER NOT NULL,
  PRIMARY KEY (run_id, candidate_id));
CREATE TABLE run_items (
  run_id TEXT NOT NULL, candidate_id TEXT NOT NULL, variant_id TEXT NOT NULL,
  task_id TEXT NOT NULL, position INTEGER NOT NULL,
  PRIMARY KEY (run_id, candidate_id, variant_id));
CREATE TABLE sessions (
  session_id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, started REAL NOT NULL,
  finished REAL, host TEXT, pid INTEGER, executor TEXT, status TEXT NOT NULL,
  skipped INTEGER NOT NULL DEFAULT 0, measured INTEGER NOT NULL DEFAULT 0,
  cached INTEGER NOT NULL DEFAULT 0, duplicates INTEGER NOT NULL DEFAULT 0);
CREATE TABLE measurements (
  measurement_id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL, candidate_id TEXT NOT NULL, variant_id TEXT NOT NULL,
  task_id TEXT NOT NULL, session_id INTEGER, context_key TEXT NOT NULL,
  env_id TEXT REFERENCES environments(env_id), device TEXT,
  source TEXT NOT NULL CHECK (source IN ('measured', 'cache')), cached_from INTEGER,
  status TEXT NOT NULL, error_class TEXT, speedup REAL, speedup_cuda_event REAL,
  reference_median_us REAL, candidate_median_us REAL, tightest_passing_t INTEGER,
  worker_seconds REAL, created REAL NOT NULL, result_json TEXT NOT NULL,
  UNIQUE (run_id, candidate_id, variant_id));
CREATE INDEX measurements_context ON measurements (context_key, candidate_id);
"""
"""Version 1, as first released: new stores are created by replaying the migrations on it,
so a migrated store and a new one have exactly the same schema."""


def _to_v2(conn: sqlite3.Connection) -> None:
    """Retries: the attempts an item took (``measurements.attempts``, 1 = first try), the
    failed attempts and re-measured results it had before (``attempts``), and how many
    retries each session made (``sessions.retried``)."""
    conn.execute("ALTER TABLE measurements ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1")
    conn.execute("ALTER TABLE sessions ADD COLUMN retried INTEGER NOT NULL DEFAULT 0")
    conn.execute(
        "CREATE TABLE attempts (attempt_id INTEGER PRIMARY KEY AUTOINCREMENT, "
        "run_id TEXT NOT NULL, candidate_id TEXT NOT NULL, variant_id TEXT NOT NULL, "
        "task_id TEXT NOT NULL, session_id INTEGER, measurement_id INTEGER, "
        "context_key TEXT NOT NULL, env_id TEXT, device TEXT, source TEXT NOT NULL, "
        "status TEXT NOT NULL, error_class TEXT, worker_seconds REAL, created REAL NOT NULL, "
        "superseded REAL NOT NULL, result_json TEXT NOT NULL)"
    )
    conn.execute("CREATE INDEX attempts_item ON attempts (run_id, candidate_id, variant_id)")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _to_v2}
"""version -> the step that turns a store of that version into the next one."""


class StoreError(Exception):
    """A user-fixable store problem (unknown run, run already running, config mismatch,
    a file that is not a usable store)."""


def _version(conn: sqlite3.Connection, path: Path) -> int | None:
    """The store's schema version; None for an empty database; StoreError if foreign."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return None
    row = None
    if "meta" in tables:
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        raise StoreError(
            f"{path} is an SQLite database but not a passnet store; use another --store"
        )
    return int(row[0])


def _check_intact(conn: sqlite3.Connection, path: Path) -> None:
    problems = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
    if problems != ["ok"]:
        raise StoreError(
            f"{path} is damaged ({'; '.join(problems)}); restore it or use another --store"
        )


def _create_or_migrate(conn: sqlite3.Connection, path: Path) -> None:
    """In one write transaction, so two processes opening a new store race harmlessly."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = _version(conn, path)
        if version is None:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
            version = 1
        if version > STORE_SCHEMA_VERSION:
            raise StoreError(
                f"{path}: store schema {version}, this passnet reads up to "
                f"{STORE_SCHEMA_VERSION}; upgrade passnet or use another --store"
            )
        while version < STORE_SCHEMA_VERSION:
            MIGRATIONS[version](conn)
            version += 1
            conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(version),))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def connect(path: Path, *, readonly: bool = False) -> tuple[sqlite3.Connection, int]:
    """Open (for writing: create or migrate) the store at ``path``; returns the connection
    and the schema version it has. Every way the file can be unusable is a StoreError."""
    if path.is_dir():
        raise StoreError(f"--store {path} is a folder; give a store file, e.g. {path}/passnet.db")
    if readonly and not path.is_file():
        raise StoreError(f"no results store at {path}; run `passnet bench` first or pass --store")
    if not readonly and (why := mkdir_problem(path.parent)):
        raise StoreError(f"--store {path}: cannot create its folder ({why})")
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout=30000")
        if readonly:
            version = _version(conn, path)
            if version is None:
                raise StoreError(f"{path} is empty, not a passnet store; run `passnet bench` first")
            if version > STORE_SCHEMA_VERSION:
                raise StoreError(
                    f"{path}: store schema {version}, this passnet reads up to "
                    f"{STORE_SCHEMA_VERSION}; upgrade passnet"
                )
            _check_intact(conn, path)
        else:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            _check_intact(conn, path)
            _create_or_migrate(conn, path)
            version = STORE_SCHEMA_VERSION
        return conn, version
    except StoreError:
        if conn is not None:
            conn.close()
        raise
    except (sqlite3.Error, OSError) as exc:
        if conn is not None:
            conn.close()
        raise StoreError(f"{path} is not a usable passnet store: {exc}") from None
