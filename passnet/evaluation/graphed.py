"""The CUDA-graph timing regime (``--call-path cudagraph``): every side captured once, timed by
replay, the way serving stacks (vLLM, SGLang) run small graphs.

Launch-bound subgraphs spend most of a call on the host; replaying a captured graph removes
that cost for the reference, the candidate and Inductor alike, so the regime shows what a
replacement's kernels are worth on the device. Correctness trials, the ghost replay and the
runtime guards run on the default (direct) path before capture, as for every pass. During
timing each side's callable is its graph's replay on the side's own inputs (the static
buffers), into which every call's fresh values are written first
(``passnet.integrity.timed_values``); a few candidate calls at secret positions become checked
replays, compared with eager on a copy of those values. Copying inputs belongs to the harness
and is never timed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch

from passnet.evaluation.timing import Side
from passnet.evaluation.timing_stats import per_call  # noqa: F401 - part of this module's API
from passnet.integrity import checks


class CaptureError(Exception):
    """The callable cannot be captured in a CUDA graph (host syncs, CPU work, ...)."""


GRAPH_CALLS = 32
"""Calls captured back to back in one graph. One replay of a small subgraph costs less device
time than the host's synchronise-and-record around it, so a graph of one call would time the
host again; ``calls`` in a row time what a subgraph costs inside a larger captured graph (a
serving stack's forward). Reported times are per call (replay / calls)."""


class GraphedCall:
    """``fn(*args)`` captured ``calls`` times in a row, once; calling it replays the graph on
    the same buffers and returns the last call's outputs."""

    def __init__(
        self, fn: Callable[..., Any], args: Sequence[Any], device: torch.device, calls: int = 1
    ) -> None:
        if device.type != "cuda":
            raise CaptureError("the cudagraph call path needs a CUDA device")
        args = list(args)
        try:
            side = torch.cuda.Stream(device)
            side.wait_stream(torch.cuda.current_stream(device))
            with torch.cuda.stream(side), torch.no_grad():
                for _ in range(2):  # lazy initialisation and allocator warm-up stay outside
                    fn(*args)
            torch.cuda.current_stream(device).wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # an empty graph (the overhead probe) warns
                with torch.cuda.graph(self.graph), torch.no_grad():
                    for _ in range(calls):
                        self.out = fn(*args)
        except Exception as exc:  # noqa: BLE001 - any capture failure is the callable's
            # PyTorch leaves its default CUDA generator marked as capturing after a failed
            # capture; inputs are drawn from CPU generators (graph.sample), so none depends on it.
            torch.cuda.synchronize(device)
            raise CaptureError(
                f"cannot be captured in a CUDA graph: {type(exc).__name__}: {exc}"
            ) from exc
        self.replay, self.calls = self.graph.replay, calls

    def __call__(self, *args: Any) -> Any:
        self.replay()
        return self.out


def graph_probe(device: torch.device) -> Callable[[], Any]:
    """A do-nothing graph's replay: the cost of the regime itself (per replay)."""
    x = torch.zeros(1, device=device)
    return GraphedCall(lambda t: (t,), [x], device)


def graph_sides(
    sides: list[Side],
    device: torch.device,
    per_run: int,
    positions: frozenset[int],
    check: Callable[[GraphedCall, list], Any] | None,
    calls: int = GRAPH_CALLS,
) -> tuple[list[Side], checks.TimedSampler, str]:
    """Each side's callable captured on its own inputs. Returns the new sides, the
    candidate's sampler (its secret positions become checked replays through ``check``) and
    a note naming a baseline left out because it could not be captured.

    Raises CaptureError, prefixed with the side's name, when the reference or the candidate
    cannot be captured."""
    out: list[Side] = []
    candidate: checks.TimedSampler | None = None
    dropped = ""
    for s in sides:
        fn = s.fn.fn if isinstance(s.fn, checks.TimedSampler) else s.fn
        try:
            graphed = GraphedCall(fn, s.args, device, calls)
        except CaptureError as exc:
            if s.name in ("reference", "candidate"):
                raise CaptureError(f"{s.name} {exc}") from exc
            dropped += f"; {s.name} left out: it {exc}"
            continue
        if s.name == "candidate":
            hook = (lambda args, g=graphed: check(g, list(args))) if check else None
            candidate = checks.TimedSampler(graphed, per_run, positions, frozenset(), hook)
            out.append(Side(s.name, candidate, s.args, s.before, s.after, s.settle))
        else:
            sampler = checks.TimedSampler(graphed, per_run)
            out.append(Side(s.name, sampler, s.args, s.before, s.after, s.settle))
    assert candidate is not None, "no candidate side"
    return out, candidate, dropped


def checked_replay(graphed: GraphedCall, inputs: list, judge: Callable[[Any, list], None]) -> Any:
    """Replay on the values the harness just wrote into the static inputs and judge the
    outputs against eager on a copy of those values."""
    r_in = checks.clone_tree(inputs)
    out = graphed()
    judge(out, r_in)
    return out
