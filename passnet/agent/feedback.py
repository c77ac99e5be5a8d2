"""Compact evaluator feedback for the model, from a :class:`TaskResult`.

One line per graph (status, replacements, strictest tolerance passed, max error, speedup),
then each distinct failure reason once with the graphs it hit (the closest partial match of a
rule that matched nothing, a compile error, the allclose failure), then the task's scores::

    AS = 0.1107 (best so far 0.1107) | correct 0/3 | fast_1 0/3 | G-mean speedup (correct) -
    graph                           dtype     status    repl  tol t  max|err|  speedup
    graphs/float32/0_cut_1x12       float32   no_match     0      -         -        -
    ...
    why (3 graphs): FuseAddLayerNorm: closest candidate: node 'layer_norm' ... eps: pattern
      has 1e-05, graph has 1e-12
"""

from __future__ import annotations

from collections import Counter

from passnet.core.results import Status, TaskResult, VariantResult

MAX_ROWS = 24
MAX_REASONS = 5
MAX_REASON_CHARS = 900


def _num(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def _row(v: VariantResult, width: int) -> str:
    t = v.comparison.tightest_passing_t if v.comparison else None
    err = v.comparison.max_abs_diff if v.comparison else None
    speedup = "-" if v.speedup is None else f"{v.speedup:.3f}x"
    if not v.timing_meaningful and v.speedup is not None:
        speedup = "interp"
    return (
        f"{v.graph:<{width}}  {v.dtype:<9} {v.status.value:<13} {sum(v.matches.values()):>4}"
        f"  {_num(t, 'd'):>5}  {_num(err, '.2e'):>9}  {speedup:>8}"
    )


def _reason(v: VariantResult) -> str | None:
    if v.status is Status.OK:  # correct; say where the strict levels AS weighs most fail
        c = v.comparison
        if c and c.detail and c.tightest_passing_t is not None and c.tightest_passing_t > -5:
            return f"correct only from t = {c.tightest_passing_t}: {c.detail}"
        return None
    text = (v.error or v.status.value).strip()
    if v.comparison and v.comparison.detail and v.comparison.detail not in text:
        text += f" ({v.comparison.detail})"
    if len(text) > MAX_REASON_CHARS:
        text = text[: MAX_REASON_CHARS - 20] + " ... [truncated]"
    return text


UNTIMED_NOTE = (
    "speedup 'interp': Triton's interpreter ran your kernels (CPU), so their times mean "
    "nothing; a correct graph counts as speedup 1.0 in AS, correctness is what counts here."
)


def format_feedback(
    result: TaskResult,
    best_as: float | None = None,
    note: str = "",
    best_correct: bool | None = None,
) -> str:
    """The text ``pass_evaluator`` returns to the model (``best_correct``: whether the best
    snapshot so far is correct on every graph, which ranks it above any that is not)."""
    s = result.scores
    variants = result.variants
    n = len(variants)
    correct = sum(v.status is Status.OK for v in variants)
    fast = round(s.fast_p * n)
    best = ""
    if best_as is not None:
        verdict = {True: ", correct", False: ", not correct everywhere", None: ""}[best_correct]
        best = f" (best so far {best_as:.4f}{verdict})"
    lines = [
        f"AS = {s.AS:.4f}{best} | correct {correct}/{n} | fast_1 {fast}/{n} | "
        f"G-mean speedup (correct) {_num(s.gmean_speedup_correct, '.3f')}",
    ]
    if note:
        lines.append(note)
    if any(not v.timing_meaningful for v in variants):
        lines.append(UNTIMED_NOTE)
    width = max([len("graph")] + [len(v.graph) for v in variants[:MAX_ROWS]])
    lines.append(
        f"{'graph':<{width}}  {'dtype':<9} {'status':<13} {'repl':>4}  {'tol t':>5}"
        f"  {'max|err|':>9}  {'speedup':>8}"
    )
    ok = [v for v in variants if v.status is Status.OK]
    failed = [v for v in variants if v.status is not Status.OK]
    n_ok = min(len(ok), max(4, MAX_ROWS - len(failed)))  # failures first, a few ok rows too
    shown = failed[: MAX_ROWS - n_ok] + ok[:n_ok]
    lines += [_row(v, width) for v in shown]
    if n > len(shown):
        counts = Counter(v.status.value for v in variants)
        lines.append(
            f"... {n - len(shown)} more graphs; all statuses: "
            + ", ".join(f"{k} {c}" for k, c in counts.most_common())
        )
    reasons: dict[str, list[str]] = {}
    for v in sorted(variants, key=lambda v: v.status is Status.OK):  # failures first
        if (why := _reason(v)) is not None:
            reasons.setdefault(why, []).append(v.graph)
    for why, graphs in list(reasons.items())[:MAX_REASONS]:
        which = graphs[0] if len(graphs) == 1 else f"{len(graphs)} graphs, e.g. {graphs[0]}"
        lines.append(f"why ({which}): {why}")
    if len(reasons) > MAX_REASONS:
        lines.append(f"... {len(reasons) - MAX_REASONS} more distinct failure reasons")
    lines.append(
        "repl = replacements made; tol t = strictest tolerance level passed (-10 strictest, "
        "-5 torch default, 0 loosest)."
    )
    return "\n".join(lines)
