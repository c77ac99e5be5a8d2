"""A static, self-contained HTML page of a leaderboard (plots embedded as base64 PNG)."""

from __future__ import annotations

import base64
import datetime
import html
import json
from pathlib import Path

from passnet.reports.leaderboard import (
    DEFINITIONS,
    VS_INDUCTOR_METHOD,
    Leaderboard,
    table_header,
    table_rows,
    task_cell,
)

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
.plots img { max-width: 100%; margin: 0.5em 0; border: 1px solid #eee; }
.note { color: #666; font-size: 13px; }
code { background: #f6f6f6; padding: 0 3px; }
"""


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _runs_table(board: Leaderboard) -> str:
    rows = []
    for r in board.runs:
        env = r["environments"][0] if r["environments"] else {}
        p = r["parameters"]
        sessions = ", ".join(
            f"#{s['session_id']} {s['status']} ({s['measured']} measured, {s['cached']} cached, "
            f"{s['skipped']} skipped)"
            for s in r["sessions"]
        )
        rows.append(
            [
                r["run_id"],
                Path(r["suite"]).name,
                f"{r['device']} ({r['device_name']})",
                f"torch {env.get('torch', '?')}, triton {env.get('triton', '?')}",
                f"b={p['b']} p={p['p']} warmup={p['warmup']} trials={p['trials']} "
                f"rounds={p['rounds']} call_path={p['call_path']}",
                r["status"],
                sessions,
            ]
        )
    header = ["run", "suite", "device", "software", "parameters", "status", "sessions"]
    return _table(header, rows)


def _per_task(board: Leaderboard) -> str:
    multi = len(board.runs) > 1
    header = ["task"] + [f"{r.run_id}: {r.name}" if multi else r.name for r in board.rows]
    rows = [[t] + [task_cell(r, t) for r in board.rows] for t in board.tasks()]
    return _table(header, rows)


def _json(board: Leaderboard) -> str:
    """The leaderboard JSON, safe inside a <script> element."""
    return json.dumps(board.to_json(), default=str).replace("</", "<\\/")


def write_html(board: Leaderboard, path: Path, plots: dict[str, Path]) -> Path:
    """Write ``index.html``: runs, leaderboard, per-task AS, plots, definitions."""
    defs = "".join(
        f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>" for k, v in DEFINITIONS.items()
    )
    images = "".join(_img(p, name) for name, p in plots.items() if p.is_file())
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = "PassBench leaderboard — " + ", ".join(r["run_id"] for r in board.runs)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_CSS}</style></head><body>
<h1>{html.escape(title)}</h1>
<p class="note">generated {stamp} by <code>passnet report</code></p>
<h2>Runs</h2>{_runs_table(board)}
<h2>Leaderboard</h2>{_table(table_header(board), table_rows(board))}
<p class="note">Speedup vs Inductor: {html.escape(VS_INDUCTOR_METHOD)}.</p>
<h2>Per task: AS (G-mean speedup vs eager of correct variants)</h2>{_per_task(board)}
<h2>Plots</h2><div class="plots">{images}</div>
<h2>Definitions</h2><ul>{defs}</ul>
<script type="application/json" id="leaderboard">{_json(board)}</script>
</body></html>
"""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
