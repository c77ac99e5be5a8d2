"""``passnet report RUN [RUN...]``: leaderboard, plots and an HTML page from the store."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from passnet.cli.common import fail as _fail
from passnet.cli.options import ResultsStore

# In logs (not a terminal) rich would wrap tables at 80 columns; give them room instead.
console = Console(width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)


def default_report_dir(store: Path, run_ids: list[str]) -> Path:
    from passnet.core.hashing import digest

    name = "+".join(run_ids) if len(run_ids) <= 3 else "compare-" + digest(*run_ids, n=10)
    return store.parent / "reports" / name


def report_cmd(
    runs: Annotated[
        list[str] | None,
        typer.Argument(help="run ids (or unique prefixes, or 'latest'); several = side by side"),
    ] = None,
    store: ResultsStore = Path("runs/passnet.db"),
    out: Annotated[
        Path | None, typer.Option(help="output folder (default: STORE_DIR/reports/RUN+RUN...)")
    ] = None,
    b: Annotated[float | None, typer.Option(help="override the runs' failure score b")] = None,
    p: Annotated[float | None, typer.Option(help="override the runs' slowdown exponent p")] = None,
) -> None:
    """Write a leaderboard, ES_t and speedup plots and an HTML page for runs, side by side."""
    import sqlite3

    from passnet.reports import build_leaderboard, print_leaderboard, write_report
    from passnet.runner.paths import folder_problem
    from passnet.runner.store import Store, StoreError

    try:
        with Store(store, readonly=True) as st:  # read as it is: never migrated or written
            run_ids = [st.resolve_run(r) for r in (runs or ["latest"])]
            folder = out or default_report_dir(store, run_ids)
            if problem := folder_problem(folder, "--out"):
                _fail(problem)
            board = build_leaderboard(st, run_ids, b=b, p=p)
    except StoreError as exc:
        _fail(str(exc))
    except sqlite3.Error as exc:
        _fail(f"store {store}: {exc}")
    print_leaderboard(board, console)
    try:
        files = write_report(board, folder)
    except OSError as exc:
        _fail(f"cannot write the report into --out {folder}: {exc.strerror or exc}")
    for name, path in files.items():
        console.print(f"[dim]wrote {path}[/]" if name != "index.html" else f"wrote [bold]{path}[/]")


def register(app: typer.Typer) -> None:
    app.command("report", epilog="Example: passnet report latest --out runs/report")(report_cmd)
