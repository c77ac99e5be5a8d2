"""PNG plots of a leaderboard: ES_t over t, and speedup distributions (vs eager, vs Inductor).

Uses matplotlib's object API (``Figure`` + Agg canvas), never pyplot, so nothing global
changes and no display is needed.
"""

from __future__ import annotations

import random
from pathlib import Path

from passnet.core.tolerance import T_LEVELS
from passnet.reports.leaderboard import Leaderboard, Row


def _figure(width: float, height: float):  # noqa: ANN202 - matplotlib Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _label(row: Row, multi_run: bool) -> str:
    return f"{row.run_id}: {row.name}" if multi_run else row.name


def es_curve_png(board: Leaderboard, path: Path) -> Path:
    """ES_t (pooled over the suite) against the tolerance level t, one line per candidate."""
    fig = _figure(7.5, 4.2)
    ax = fig.add_subplot()
    multi = len(board.runs) > 1
    for row in board.rows:
        if not row.scores:
            continue
        es = row.scores["pooled_ES"]
        ax.plot(
            list(T_LEVELS), [es[t] for t in T_LEVELS], marker="o", ms=3, label=_label(row, multi)
        )
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_xticks(list(T_LEVELS))
    ax.set_xlabel("tolerance level t (stricter ←, looser →)")
    ax.set_ylabel("ES_t (pooled over the suite)")
    ax.set_title("Error-aware speedup score ES_t")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path


def _strip(ax, data: list[list[float]], labels: list[str], title: str) -> None:  # noqa: ANN001
    ax.set_title(title)
    if not data:  # no candidate has a measured item yet (matplotlib cannot box nothing)
        ax.text(0.5, 0.5, "nothing measured yet", ha="center", va="center",
                transform=ax.transAxes, color="grey")  # fmt: skip
        ax.set_xticks([])
        return
    rng = random.Random(0)
    positions = list(range(1, len(data) + 1))
    shown = [d if d else [float("nan")] for d in data]
    ax.boxplot(shown, positions=positions, widths=0.5, showfliers=False)
    for x, values in zip(positions, data, strict=True):
        ax.scatter([x + rng.uniform(-0.15, 0.15) for _ in values], values, s=9, alpha=0.6, zorder=3)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_xticks(positions)
    ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
    ax.grid(True, axis="y", which="both", alpha=0.3)


def speedups_png(board: Leaderboard, path: Path) -> Path:
    """Per-subgraph speedups of correct subgraphs (t = 1), vs eager and vs Inductor."""
    multi = len(board.runs) > 1
    rows = [r for r in board.rows if r.done]
    labels = [_label(r, multi) for r in rows]
    fig = _figure(max(7.5, 1.6 * len(rows) + 3), 4.4)
    left, right = fig.subplots(1, 2, sharey=False)
    _strip(left, [r.speedups for r in rows], labels, "speedup vs eager (correct subgraphs)")
    _strip(
        right,
        [r.speedups_vs_inductor for r in rows],
        labels,
        "speedup vs Inductor (ratio of ratios)",
    )
    left.set_ylabel("speedup (log scale)")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path
