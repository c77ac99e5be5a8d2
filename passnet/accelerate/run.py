"""``passnet accelerate``'s procedure: compile one model several ways, check, time.

Sides: ``eager`` (the reference), ``inductor`` and ``inductor-ro`` (``torch.compile`` default
and reduce-overhead), ``passnet`` (the library, then the inner compiler) and ``passnet-ro``
(the library, then Inductor's reduce-overhead config). Every compiled side's outputs are
compared with eager's at the SPEC tolerance levels (``passnet.scores.compare``); then all
sides are timed end to end in interleaved rounds (``passnet.evaluation.timing.measure``). On
CPU only ``eager`` and ``passnet`` run and nothing is timed: the pass kernels run in Triton's
interpreter there, so times would say nothing about speed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from passnet.accelerate.backend import PassnetBackend
from passnet.accelerate.library import PassLibrary, library_json
from passnet.accelerate.models import LoadedModel
from passnet.evaluation.timing import Side, measure
from passnet.scores.compare import StructureError, compare_outputs

STRICT_T = -4  # the synthesizer's keep level (passnet.synth.driver.STRICT_T)
CPU_TIMING_NOTE = (
    "not timed on CPU: the passes' Triton kernels run in Triton's interpreter here, so "
    "end-to-end times would say nothing about speed; correctness and firing are real"
)


@dataclass
class Check:
    """One compiled side's outputs against eager's."""

    side: str
    tightest_t: int | None = None
    max_abs_diff: float | None = None
    max_rel_diff: float | None = None
    error: str = ""  # why the side failed (structure, exception, or no level passes)
    where: str = ""  # where the first missed tolerance level fails (compare_outputs' detail)


@dataclass
class AccelerateResult:
    """Everything ``passnet accelerate`` reports (its ``--json`` output)."""

    model: str
    shape: str
    device: str
    dtype: str
    inner: str
    order: str
    library: list[dict[str, Any]]
    rules: dict[str, Any]
    graphs: list[dict[str, Any]]
    checks: dict[str, Check]
    correct: bool
    verdict: str
    timing: dict[str, Any] = field(default_factory=dict)
    speedups: dict[str, float] = field(default_factory=dict)
    timing_note: str = ""
    sites: dict[str, Any] = field(default_factory=dict)  # kind -> [found, fused] (sites.py)

    @property
    def fired(self) -> int:
        return sum(r["count"] for r in self.rules.values())

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"fired": self.fired}


def _detached(out: Any) -> Any:
    """Plain containers of cloned tensors: later calls (CUDA-graph replays) cannot overwrite
    them, and ``compare_outputs`` sees the same structure on both sides."""
    if isinstance(out, torch.Tensor):
        return out.detach().clone()
    if isinstance(out, dict):
        return {k: _detached(v) for k, v in out.items()}
    if isinstance(out, (tuple, list)):
        return [_detached(v) for v in out]
    return out


def _check(name: str, fn: Callable[[], Any], reference: Any) -> Check:
    try:
        c = compare_outputs(_detached(fn()), reference)
    except StructureError as e:
        return Check(name, error=f"structure: {e}")
    except Exception as e:  # noqa: BLE001 - a side that fails to compile or run is reported
        return Check(name, error=f"{type(e).__name__}: {e}"[:2000])
    failed = c.tightest_passing_t is None
    return Check(name, c.tightest_passing_t, c.max_abs_diff, c.max_rel_diff,
                 error=c.detail if failed else "", where="" if failed else c.detail)  # fmt: skip


def _verdict(checks: dict[str, Check], strict_t: int) -> tuple[bool, str]:
    """Correct at ``strict_t``, or no worse than Inductor alone (whose reordering drifts too)."""
    mine = [c for k, c in checks.items() if k.startswith("passnet")]
    ind = checks.get("inductor")
    bar = max(strict_t, ind.tightest_t) if ind and ind.tightest_t is not None else strict_t
    bad = [c for c in mine if c.error or c.tightest_t is None or c.tightest_t > bar]
    if not bad:
        worst = max(c.tightest_t for c in mine if c.tightest_t is not None)
        return True, f"correct: every passnet side matches eager at t = {worst} (needed t <= {bar})"
    why = "; ".join(f"{c.side}: {c.error or f'tightest t = {c.tightest_t}'}" for c in bad)
    return False, f"INCORRECT (needed t <= {bar} against eager): {why}"


def accelerate(
    loaded: LoadedModel,
    library: PassLibrary,
    *,
    device: str = "cpu",
    dtype: str = "float32",
    inner: str = "inductor",
    baselines: bool | None = None,
    time_it: bool | None = None,
    warmup: int = 20,
    trials: int = 100,
    rounds: int = 4,
    strict_t: int = STRICT_T,
    tune: bool = False,
) -> AccelerateResult:
    """Compile ``loaded`` with and without ``library``, check every side, time them on CUDA."""
    cuda = device.startswith("cuda")
    baselines = cuda if baselines is None else baselines
    time_it = cuda if time_it is None else time_it
    model = loaded.model
    torch._dynamo.reset()
    backends = {"passnet": PassnetBackend(library, inner, tune=tune)}
    sides: dict[str, Callable] = {"eager": model}
    if baselines:
        sides["inductor"] = torch.compile(model)
        if cuda:
            sides["inductor-ro"] = torch.compile(model, mode="reduce-overhead")
    sides["passnet"] = torch.compile(model, backend=backends["passnet"])
    if cuda and inner == "inductor":
        backends["passnet-ro"] = PassnetBackend(library, inner, mode="reduce-overhead", tune=tune)
        sides["passnet-ro"] = torch.compile(model, backend=backends["passnet-ro"])
    checks: dict[str, Check] = {}
    with torch.no_grad():
        reference = _detached(loaded(model))
        for name, fn in sides.items():
            if name != "eager":
                checks[name] = _check(name, lambda fn=fn: loaded(fn), reference)
    correct, verdict = _verdict(checks, strict_t)
    main = backends["passnet"]
    graphs = [
        {
            "graph": r.graph,
            "nodes": r.nodes,
            "inner": r.inner,
            "fired": r.counts(),
            "note": r.note,
            "tune": r.tune,
        }  # fmt: skip
        for r in main.reports
    ]
    result = AccelerateResult(
        loaded.name, loaded.shape, device, dtype, inner, library.order, library_json(library),
        main.summary(), graphs, checks, correct, verdict,
    )  # fmt: skip
    result.sites = {k: list(v) for k, v in main.coverage().items()}
    if not time_it:
        result.timing_note = CPU_TIMING_NOTE if not cuda else "timing skipped (--no-time)"
        return result
    ok = {k: fn for k, fn in sides.items() if k == "eager" or not checks[k].error}
    timed = [Side(k, _caller(loaded, fn), ()) for k, fn in ok.items()]
    with torch.no_grad():
        timings = measure(timed, torch.device(device), warmup=warmup, trials=trials, rounds=rounds)
    result.timing = {k: v.model_dump() for k, v in timings.items()}
    result.speedups = _speedups({k: v.wall.median_us for k, v in timings.items()})
    result.timing_note = (
        f"end to end per call (sync; call; sync), {trials} calls a side in {rounds} interleaved "
        f"rounds after {warmup} warm-up calls; medians of wall time"
    )
    return result


def _caller(loaded: LoadedModel, fn: Callable) -> Callable[[], Any]:
    def call() -> Any:
        return loaded(fn)

    return call


def _speedups(median: dict[str, float]) -> dict[str, float]:
    """Ratios of medians: ``A/B`` is how many times faster B is than A."""
    pairs = [("eager", "inductor"), ("eager", "passnet"), ("inductor", "passnet"),
             ("eager", "inductor-ro"), ("eager", "passnet-ro"), ("inductor-ro", "passnet-ro")]  # fmt: skip
    return {f"{a}/{b}": median[a] / median[b] for a, b in pairs if a in median and b in median}
