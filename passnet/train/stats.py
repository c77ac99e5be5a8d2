"""What a fine-tuning dataset holds: rows, tasks, sources, turns, token lengths, scores."""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import Any


def _spread(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    values = sorted(values)
    return {"min": values[0], "median": median(values), "max": values[-1],
            "p90": values[min(len(values) - 1, int(0.9 * len(values)))]}  # fmt: skip


def dataset_stats(rows: list[dict[str, Any]], tokenizer: Any = None) -> dict[str, Any]:
    """Summary of exported rows; token lengths through ``tokenizer``'s chat template if given
    (what SFT's ``max_length`` must cover)."""
    turns = [sum(m["role"] == "assistant" for m in r["messages"]) for r in rows]
    calls = Counter(
        c["function"]["name"]
        for r in rows
        for m in r["messages"]
        for c in m.get("tool_calls") or []
    )
    out: dict[str, Any] = {
        "rows": len(rows),
        "tasks": len({r["task"] for r in rows}),
        "sources": dict(Counter(r["source"] for r in rows)),
        "correct": sum(bool(r.get("final_correct")) for r in rows),
        "final_AS": _spread([r["final_AS"] for r in rows if r.get("final_AS") is not None]),
        "assistant_turns": _spread([float(t) for t in turns]),
        "tool_calls": dict(calls),
        "characters": _spread(
            [float(sum(len(str(m.get("content") or "")) for m in r["messages"])) for r in rows]
        ),
    }
    if tokenizer is not None:
        lengths = [
            float(
                len(
                    tokenizer.apply_chat_template(
                        r["messages"], tools=r["tools"], tokenize=True, return_dict=True
                    )["input_ids"]
                )
            )
            for r in rows
        ]
        out["tokens"] = _spread(lengths)
    return out
