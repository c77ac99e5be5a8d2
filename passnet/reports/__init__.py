"""Reports of benchmark runs: leaderboard (terminal, JSON), PNG plots and a static HTML page."""

from __future__ import annotations

import json
from pathlib import Path

from passnet.reports.leaderboard import Leaderboard, build_leaderboard, print_leaderboard

__all__ = ["Leaderboard", "build_leaderboard", "print_leaderboard", "write_report"]


def write_report(board: Leaderboard, out: Path | str) -> dict[str, Path]:
    """Write leaderboard.json, es_curve.png, speedups.png and a self-contained index.html."""
    from passnet.reports.html import write_html
    from passnet.reports.plots import es_curve_png, speedups_png

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {"leaderboard.json": out / "leaderboard.json"}
    files["leaderboard.json"].write_text(json.dumps(board.to_json(), indent=1, default=str))
    plots = {
        "es_curve.png": es_curve_png(board, out / "es_curve.png"),
        "speedups.png": speedups_png(board, out / "speedups.png"),
    }
    files.update(plots)
    files["index.html"] = write_html(board, out / "index.html", plots)
    return files
