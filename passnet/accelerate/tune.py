"""Keep a rule at a site only where it makes the compiled graph faster (``tune=True``).

A rule that wins on its isolated subgraph can lose inside a model: Inductor would have fused
the same ops into their neighbours, and the replacement's own launch costs time. So where rules
fire in a graph, the backend first compiles the graph with none of them, then adds the fired
sites one at a time, in the graph's order, and keeps a site only when the graph compiled with it
is faster than the best so far by more than ``margin``. Each comparison times both compiled
graphs in place, side by side in interleaved rounds (``passnet.evaluation.timing.measure``,
medians of end-to-end wall time), on the inputs Dynamo handed the backend (copies of those
the graph writes in place, so the caller's tensors see the graph's writes once). Where more
than one site was tried and some were kept, the graph kept is timed once more against the
graph with none (twice the calls) and must beat it by the margin too, or nothing is kept:
steps that each won by a little on noisy medians must not add up to a slower graph.

Decisions are stored in a small SQLite cache (``PASSNET_TUNE_CACHE``, by default
``~/.cache/passnet/tune.sqlite``) under a key of the graph's code, its input layouts, the
library's rules (labels and their folders' sources), the inner compiler's mode, the device and the torch
version: a later compile of the same graph times nothing. A graph tuned on CPU (Triton's
interpreter) keeps what it measured, which says nothing about a GPU; the key keeps the two
apart.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch.fx import GraphModule

from passnet.accelerate.library import PassLibrary
from passnet.accelerate.writes import written_placeholders
from passnet.evaluation.timing import Side, measure

MARGIN = 0.02  # a site must make the graph this much faster: less is noise, not a win
Site = tuple[str, tuple[str, ...]]  # (rule label, the match's node names)
Compile = Callable[[GraphModule, Callable[[str, list[str]], bool]], Callable]


def default_cache() -> Path:
    env = os.environ.get("PASSNET_TUNE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "passnet" / "tune.sqlite"


@dataclass
class Decision:
    """What tuning decided for one graph: the sites kept, every site's time, the baseline's."""

    kept: list[Site]
    times: dict[str, float]  # "label|node,node" -> the graph's median us with that site added
    base_us: float
    cached: bool = False

    def describe(self, total: int) -> str:
        where = "from the tuning cache" if self.cached else "timed"
        return (f"tuned ({where}): {len(self.kept)} of {total} fired site(s) kept; the graph "
                f"without any: {self.base_us:.1f} us")  # fmt: skip


def _site_text(site: Site) -> str:
    return f"{site[0]}|{','.join(site[1])}"


class TuneCache:
    """Decisions by key, in SQLite (one row a graph); bad rows are ignored, never fatal."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS decisions (key TEXT PRIMARY KEY, device TEXT, "
                "base_us REAL, kept TEXT, times TEXT, created REAL)"
            )

    def _db(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def get(self, key: str) -> Decision | None:
        with self._db() as db:
            row = db.execute(
                "SELECT base_us, kept, times FROM decisions WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        try:
            kept = [(label, tuple(nodes)) for label, nodes in json.loads(row[1])]
            return Decision(kept, json.loads(row[2]), float(row[0]), cached=True)
        except (ValueError, TypeError):
            return None  # a row another version wrote: tune again

    def put(self, key: str, device: str, decision: Decision) -> None:
        with self._db() as db:
            db.execute(
                "INSERT OR REPLACE INTO decisions VALUES (?, ?, ?, ?, ?, ?)",
                (key, device, decision.base_us, json.dumps([[s[0], list(s[1])]
                 for s in decision.kept]), json.dumps(decision.times), time.time()),
            )  # fmt: skip


def device_name(inputs: Sequence[Any]) -> str:
    dev = next((t.device for t in inputs if isinstance(t, torch.Tensor)), torch.device("cpu"))
    if dev.type == "cuda":
        return f"cuda:{torch.cuda.get_device_name(dev)}"
    return dev.type


def graph_key(gm: GraphModule, inputs: Sequence[Any], library: PassLibrary, mode: str) -> str:
    """What a decision depends on: the graph, its input layouts, the library, mode, device."""
    h = hashlib.sha256()
    h.update(gm.code.encode())
    for t in inputs:
        if isinstance(t, torch.Tensor):
            h.update(repr((tuple(t.shape), t.stride(), t.dtype)).encode())
        else:
            h.update(repr(t).encode())
    for r in library.rules:
        h.update(r.label.encode() + b"\0" + r.sources())
    h.update(f"{mode}|{device_name(inputs)}|{torch.__version__}".encode())
    return h.hexdigest()


def real_inputs(inputs: Sequence[Any]) -> list[Any]:
    """The inputs to time on: Dynamo's own where they are real tensors; fake ones become
    zeros (integers: indices stay in range) or standard normals of the same layout."""
    from torch._subclasses.fake_tensor import FakeTensor

    out: list[Any] = []
    for t in inputs:
        if isinstance(t, FakeTensor):
            real = torch.empty_strided(tuple(t.shape), tuple(t.stride()), dtype=t.dtype,
                                       device=t.device)  # fmt: skip
            out.append(real.normal_() if real.is_floating_point() else real.zero_())
        else:
            out.append(t)
    return out


def tune_graph(
    gm: GraphModule,
    inputs: Sequence[Any],
    sites: list[Site],
    compile_with: Compile,
    *,
    margin: float = MARGIN,
    warmup: int = 10,
    trials: int = 50,
    rounds: int = 4,
) -> Decision:
    """Greedy: the graph with no site, then each site added in turn, kept where it wins.
    Inputs the graph writes in place are timed on copies: each timed call repeats the write,
    and the caller's tensor must see it once, from the call Dynamo makes."""
    args = real_inputs(inputs)
    for i in written_placeholders(gm.graph):
        if isinstance(args[i], torch.Tensor):
            t = args[i]
            args[i] = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=t.device)
            args[i].copy_(t)
    device = next((t.device for t in args if isinstance(t, torch.Tensor)), torch.device("cpu"))

    def build(chosen: set[Site]) -> Callable:
        fn = compile_with(copy.deepcopy(gm), lambda label, nodes: (label, tuple(nodes)) in chosen)
        with torch.no_grad():
            fn(*args)  # compiles (Inductor compiles on the first call) and warms up
        return fn

    def timed(fn: Callable) -> Callable[[], Any]:
        def call() -> Any:
            return fn(*args)

        return call

    def race(first: Callable, second: Callable, n: int) -> tuple[float, float]:
        sides = [Side("first", timed(first), ()), Side("second", timed(second), ())]
        with torch.no_grad():
            t = measure(sides, device, warmup=warmup, trials=n, rounds=rounds)
        return t["first"].wall.median_us, t["second"].wall.median_us

    kept: set[Site] = set()
    base = best = build(kept)
    base_us = best_us = 0.0
    times: dict[str, float] = {}
    for site in sites:
        trial = build(kept | {site})
        best_us, trial_us = race(best, trial, trials)
        base_us = base_us or best_us
        times[_site_text(site)] = trial_us
        if trial_us < best_us * (1 - margin):
            kept.add(site)
            best = trial
    if kept and len(sites) > 1:
        # each step beat the step before by the margin, on medians with noise of their own:
        # the graph kept must beat the graph without any site as well, timed once more
        base_us, best_us = race(base, best, 2 * trials)
        if not best_us < base_us * (1 - margin):
            kept = set()
    return Decision([s for s in sites if s in kept], times, base_us)
