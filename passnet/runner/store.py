"""The results store: one SQLite file (WAL) of runs, candidates, tasks, variants, measurements,
environments and parameters, and the earlier attempts of items that were retried or
re-measured (schema, migrations and file checks: ``passnet.runner.schema``).

Every variant result is committed in its own transaction the moment it arrives, so killing a
run at any point (even ``kill -9``) loses nothing already measured; a rerun of the same command
skips the work items that have a measurement. Rows are derived from the Pydantic models and
keep the full ``VariantResult`` JSON beside the columns that queries need.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from passnet.core.hashing import canonical_json, digest
from passnet.core.results import CandidateSpec, Environment, Parameters, VariantResult
from passnet.runner.schema import STORE_SCHEMA_VERSION, StoreError, connect

if TYPE_CHECKING:
    from passnet.dataset.suite import SuiteTask

__all__ = [
    "DEFAULT_STORE",
    "RETRY_STATUSES",
    "STORE_SCHEMA_VERSION",
    "Measurement",
    "Store",
    "StoreError",
]

DEFAULT_STORE = "runs/passnet.db"
RETRY_STATUSES = ("timeout", "crash")
"""Results that may be transient: retried by ``bench``, never served from the baseline cache."""


@dataclass(frozen=True)
class Measurement:
    """One work item's result, ready to be written (``source`` says measured or cached)."""

    run_id: str
    candidate_id: str
    variant_id: str
    task_id: str
    context_key: str
    result: VariantResult
    env_id: str | None
    device: str | None
    source: str = "measured"
    cached_from: int | None = None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Store:
    """A connection to one store file; use from one thread (the run's driver)."""

    def __init__(self, path: Path | str = DEFAULT_STORE, *, readonly: bool = False) -> None:
        """Open (create, migrate) the store; ``readonly`` (reports, listings, exports) never
        writes, so an older store is read as it is. StoreError if the file is unusable."""
        self.path = Path(path)
        self.conn, self.version = connect(self.path, readonly=readonly)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on error)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # ---- definitions -------------------------------------------------------------------

    def put_parameters(self, params: Parameters) -> str:
        text = canonical_json(params.model_dump(mode="json"))
        pid = digest(text)
        with self.tx() as c:
            c.execute("INSERT OR IGNORE INTO parameters VALUES (?, ?)", (pid, text))
        return pid

    def put_environment(self, env: Environment) -> str:
        text = canonical_json(env.model_dump(mode="json"))
        eid = digest(text)
        with self.tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO environments VALUES (?, ?, ?, ?, ?, ?)",
                (eid, env.device, env.device_name, env.torch, env.triton, text),
            )
        return eid

    def put_candidate(self, cid: str, spec: CandidateSpec, content_hash: str) -> None:
        with self.tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO candidates VALUES (?, ?, ?, ?, ?)",
                (cid, spec.label, spec.kind, content_hash, spec.model_dump_json()),
            )

    def put_task(self, task: SuiteTask) -> None:
        with self.tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO tasks VALUES (?, ?, ?, ?)",
                (task.task_id, task.name, str(task.task.path), len(task.variants)),
            )
            c.executemany(
                "INSERT OR IGNORE INTO variants VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        v.variant_id,
                        task.task_id,
                        v.variant.graph,
                        v.variant.dtype,
                        v.content_hash,
                        str(v.variant.path),
                    )
                    for v in task.variants
                ],
            )

    def open_run(
        self,
        run_id: str,
        *,
        suite: str,
        device: str,
        params_id: str,
        config: dict,
        candidates: list[str],
        items: list[tuple[str, str, str]],
    ) -> bool:
        """Create the run with its plan, or check that an existing one has the same config.
        ``items`` are (candidate_id, variant_id, task_id) in dispatch order. True if new.
        The check and the insert are one write transaction: two processes opening the same
        new run at once both succeed (one creates it, the other finds it)."""
        text = canonical_json(config)
        now = time.time()
        with self.tx() as c:
            row = c.execute("SELECT config_json FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is not None:
                if row["config_json"] != text:
                    raise StoreError(
                        f"run {run_id!r} exists in {self.path} with a different configuration;"
                        " pick another --run name (or drop --run to derive one)"
                    )
                return False
            c.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, 'open', ?)",
                (run_id, now, suite, device, params_id, text, now),
            )
            c.executemany(
                "INSERT INTO run_candidates VALUES (?, ?, ?)",
                [(run_id, cid, i) for i, cid in enumerate(candidates)],
            )
            c.executemany(
                "INSERT INTO run_items VALUES (?, ?, ?, ?, ?)",
                [(run_id, cid, vid, tid, i) for i, (cid, vid, tid) in enumerate(items)],
            )
        return True

    # ---- sessions ----------------------------------------------------------------------

    def start_session(self, run_id: str, executor: str) -> int:
        """Register this process as the run's driver; refuse if a live one already is."""
        host = socket.gethostname()
        with self.tx() as c:
            for s in c.execute(
                "SELECT session_id, host, pid FROM sessions WHERE run_id=? AND status='running'",
                (run_id,),
            ).fetchall():
                if s["host"] == host and s["pid"] != os.getpid() and _pid_alive(s["pid"]):
                    raise StoreError(
                        f"run {run_id!r} is being measured by process {s['pid']} on this "
                        "machine; wait for it or stop it, then rerun to continue"
                    )
                if s["host"] == host:
                    c.execute(
                        "UPDATE sessions SET status='killed' WHERE session_id=?",
                        (s["session_id"],),
                    )
            cur = c.execute(
                "INSERT INTO sessions (run_id, started, host, pid, executor, status) "
                "VALUES (?, ?, ?, ?, ?, 'running')",
                (run_id, time.time(), host, os.getpid(), executor),
            )
            c.execute(
                "UPDATE runs SET status='running', updated=? WHERE run_id=?", (time.time(), run_id)
            )
        return int(cur.lastrowid)

    def note_skipped(self, session_id: int, n: int) -> None:
        with self.tx() as c:
            c.execute("UPDATE sessions SET skipped=? WHERE session_id=?", (n, session_id))

    def finish_session(self, session_id: int, status: str) -> None:
        with self.tx() as c:
            c.execute(
                "UPDATE sessions SET status=?, finished=? WHERE session_id=?",
                (status, time.time(), session_id),
            )
            row = c.execute(
                "SELECT run_id FROM sessions WHERE session_id=?", (session_id,)
            ).fetchone()
            run_status = "complete" if status == "complete" else "open"
            c.execute(
                "UPDATE runs SET status=?, updated=? WHERE run_id=?",
                (run_status, time.time(), row["run_id"]),
            )

    # ---- measurements ------------------------------------------------------------------

    def add(self, m: Measurement, session_id: int | None) -> bool:
        """Commit one result (one transaction). False if the item already had one (kept).
        Its ``attempts`` column counts the item's earlier attempts in this run, plus one."""
        r = m.result
        ref = r.reference.wall.median_us if r.reference else None
        cand = r.candidate.wall.median_us if r.candidate else None
        tight = r.comparison.tightest_passing_t if r.comparison else None
        counter = "cached" if m.source == "cache" else "measured"
        try:
            with self.tx() as c:
                c.execute(
                    "INSERT INTO measurements (run_id, candidate_id, variant_id, task_id, "
                    "session_id, context_key, env_id, device, source, cached_from, status, "
                    "error_class, speedup, speedup_cuda_event, reference_median_us, "
                    "candidate_median_us, tightest_passing_t, worker_seconds, created, "
                    "result_json, attempts) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                    "1 + (SELECT COUNT(*) FROM attempts WHERE run_id=? AND candidate_id=? "
                    "AND variant_id=?))",
                    (
                        m.run_id,
                        m.candidate_id,
                        m.variant_id,
                        m.task_id,
                        session_id,
                        m.context_key,
                        m.env_id,
                        m.device,
                        m.source,
                        m.cached_from,
                        r.status.value,
                        r.error_class.value if r.error_class else None,
                        r.speedup,
                        r.speedup_cuda_event,
                        ref,
                        cand,
                        tight,
                        r.worker_seconds,
                        time.time(),
                        r.model_dump_json(),
                        m.run_id,
                        m.candidate_id,
                        m.variant_id,
                    ),
                )
                if session_id is not None:
                    c.execute(
                        f"UPDATE sessions SET {counter} = {counter} + 1 WHERE session_id=?",
                        (session_id,),
                    )
        except sqlite3.IntegrityError:
            if session_id is not None:
                with self.tx() as c:
                    c.execute(
                        "UPDATE sessions SET duplicates = duplicates + 1 WHERE session_id=?",
                        (session_id,),
                    )
            return False
        return True

    def add_attempt(self, m: Measurement, session_id: int | None) -> None:
        """Record a failed attempt that will be retried (the item stays pending)."""
        r = m.result
        now = time.time()
        with self.tx() as c:
            c.execute(
                "INSERT INTO attempts (run_id, candidate_id, variant_id, task_id, session_id, "
                "context_key, env_id, device, source, status, error_class, worker_seconds, "
                "created, superseded, result_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    m.run_id,
                    m.candidate_id,
                    m.variant_id,
                    m.task_id,
                    session_id,
                    m.context_key,
                    m.env_id,
                    m.device,
                    m.source,
                    r.status.value,
                    r.error_class.value if r.error_class else None,
                    r.worker_seconds,
                    now,
                    now,
                    r.model_dump_json(),
                ),
            )
            if session_id is not None:
                c.execute(
                    "UPDATE sessions SET retried = retried + 1 WHERE session_id=?", (session_id,)
                )

    def reset_items(self, run_id: str, statuses: tuple[str, ...]) -> int:
        """Set the run's results of ``statuses`` aside (moved to ``attempts``, keeping their
        measurement id) so that they are measured again; returns how many. One transaction."""
        if not statuses:
            return 0
        marks = ",".join("?" * len(statuses))
        where = f"run_id=? AND status IN ({marks})"
        with self.tx() as c:
            c.execute(
                "INSERT INTO attempts (run_id, candidate_id, variant_id, task_id, session_id, "
                "measurement_id, context_key, env_id, device, source, status, error_class, "
                "worker_seconds, created, superseded, result_json) SELECT run_id, "
                "candidate_id, variant_id, task_id, session_id, measurement_id, context_key, "
                "env_id, device, source, status, error_class, worker_seconds, created, ?, "
                f"result_json FROM measurements WHERE {where} ORDER BY measurement_id",
                (time.time(), run_id, *statuses),
            )
            n = c.execute(f"DELETE FROM measurements WHERE {where}", (run_id, *statuses)).rowcount
        return n

    def attempts(self, run_id: str) -> list[dict]:
        """Earlier attempts of the run's items (failed and retried, or re-measured)."""
        if self.version < 2:
            return []
        rows = self.conn.execute(
            "SELECT * FROM attempts WHERE run_id=? ORDER BY attempt_id", (run_id,)
        )
        return [dict(r) for r in rows]

    def status_counts(self, run_id: str) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT status, COUNT(*) FROM measurements WHERE run_id=? GROUP BY status", (run_id,)
        )
        return {r[0]: r[1] for r in rows}

    def done_items(self, run_id: str) -> set[tuple[str, str]]:
        rows = self.conn.execute(
            "SELECT candidate_id, variant_id FROM measurements WHERE run_id=?", (run_id,)
        )
        return {(r[0], r[1]) for r in rows}

    def cached_baseline(self, context_key: str, cid: str) -> sqlite3.Row | None:
        """The first measured (not itself cached) result of a baseline in this context."""
        return self.conn.execute(
            "SELECT measurement_id, env_id, device, result_json FROM measurements "
            "WHERE context_key=? AND candidate_id=? AND source='measured' "
            f"AND status NOT IN {RETRY_STATUSES!r} ORDER BY measurement_id LIMIT 1",
            (context_key, cid),
        ).fetchone()

    # ---- reading -----------------------------------------------------------------------

    def runs(self) -> list[dict]:
        rows = self.conn.execute(
            "SELECT r.*, (SELECT COUNT(*) FROM run_items i WHERE i.run_id=r.run_id) AS planned, "
            "(SELECT COUNT(*) FROM measurements m WHERE m.run_id=r.run_id) AS done "
            "FROM runs r ORDER BY created"
        )
        return [dict(r) for r in rows]

    def resolve_run(self, ref: str) -> str:
        """A run id from an id, a unique prefix, or ``latest``."""
        if ref == "latest":
            row = self.conn.execute(
                "SELECT run_id FROM runs ORDER BY updated DESC LIMIT 1"
            ).fetchone()
            if row is None:
                raise StoreError(f"{self.path} holds no run yet; run `passnet bench` first")
            return row[0]
        rows = [
            r[0]
            for r in self.conn.execute(
                "SELECT run_id FROM runs WHERE run_id = ? OR run_id LIKE ? ORDER BY run_id",
                (ref, ref.replace("%", "") + "%"),
            )
        ]
        if ref in rows:
            return ref
        if len(rows) == 1:
            return rows[0]
        known = ", ".join(r["run_id"] for r in self.runs()) or "(none)"
        what = "is ambiguous" if rows else "is not"
        raise StoreError(f"run {ref!r} {what} in {self.path}; known runs: {known}")

    def run(self, run_id: str) -> dict:
        row = self.conn.execute("SELECT * FROM runs WHERE run_id=?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id!r} in {self.path}")
        out = dict(row)
        out["config"] = json.loads(out.pop("config_json"))
        p = self.conn.execute(
            "SELECT json FROM parameters WHERE params_id=?", (out["params_id"],)
        ).fetchone()
        out["parameters"] = json.loads(p[0])
        return out

    def run_candidates(self, run_id: str) -> list[dict]:
        rows = self.conn.execute(
            "SELECT c.* FROM run_candidates rc JOIN candidates c USING (candidate_id) "
            "WHERE rc.run_id=? ORDER BY rc.position",
            (run_id,),
        )
        return [dict(r) for r in rows]

    def run_items(self, run_id: str) -> list[dict]:
        rows = self.conn.execute(
            "SELECT i.candidate_id, i.variant_id, i.task_id, t.name AS task, v.graph, v.dtype "
            "FROM run_items i JOIN variants v USING (variant_id) JOIN tasks t "
            "ON t.task_id = i.task_id WHERE i.run_id=? ORDER BY i.position",
            (run_id,),
        )
        return [dict(r) for r in rows]

    def measurements(self, run_id: str) -> list[dict]:
        rows = self.conn.execute(
            "SELECT m.*, t.name AS task, v.graph, v.dtype, c.label AS candidate, "
            "c.kind AS candidate_kind, e.device_name, e.json AS environment_json "
            "FROM measurements m JOIN tasks t ON t.task_id = m.task_id "
            "JOIN variants v ON v.variant_id = m.variant_id "
            "JOIN candidates c ON c.candidate_id = m.candidate_id "
            "LEFT JOIN environments e ON e.env_id = m.env_id "
            "WHERE m.run_id=? ORDER BY m.measurement_id",
            (run_id,),
        )
        return [dict(r) for r in rows]

    def sessions(self, run_id: str) -> list[dict]:
        rows = self.conn.execute(
            "SELECT * FROM sessions WHERE run_id=? ORDER BY session_id", (run_id,)
        )
        return [dict(r) for r in rows]

    def baseline_speedups(self, context_keys: set[str], cid: str) -> dict[str, tuple[float, str]]:
        """context_key -> (speedup vs eager, run id) of an OK baseline result, any run."""
        out: dict[str, tuple[float, str]] = {}
        keys = sorted(context_keys)
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for r in self.conn.execute(
                f"SELECT context_key, speedup, run_id FROM measurements WHERE candidate_id=? "
                f"AND status='ok' AND speedup > 0 AND context_key IN ({marks}) "
                "ORDER BY measurement_id",
                (cid, *chunk),
            ):
                out.setdefault(r[0], (r[1], r[2]))
        return out
