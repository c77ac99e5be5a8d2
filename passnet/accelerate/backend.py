"""``passnet.backend``: a ``torch.compile`` backend that applies a pass library, then compiles
the rest with Inductor (or runs it eagerly).

Dynamo hands the backend each captured FX graph; the library rewrites it (library.py's
conflict rule), each replacement becomes a custom op (customops.py) and
``torch._inductor.compile_fx.compile_fx`` compiles the graph around those calls, with the
config of an Inductor ``mode`` (``reduce-overhead``: CUDA graphs). When a replacement cannot
be a custom op, or Inductor fails on the rewritten graph, that graph runs eagerly, with the
replacements, and says so (a warning and the graph's report): the rest of that graph then
loses Inductor's fusions, which on most models costs more than one fused kernel wins. With
``tune`` the backend keeps a rule at a site only where the compiled graph gets faster
(tune.py: timed once, then read from a cache).

A named backend ``"passnet"`` is registered with Dynamo when this module is imported; it reads
its library from ``PASSNET_PASSES`` (folders joined by ``os.pathsep``), ``PASSNET_INNER`` and
``PASSNET_TUNE`` (``1``: tune).
"""

from __future__ import annotations

import copy
import os
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from torch.fx import GraphModule

from passnet.accelerate import tune
from passnet.accelerate.library import GraphReport, LibraryError, PassLibrary, summarize
from passnet.accelerate.sites import KINDS, coverage, find_sites
from passnet.accelerate.tune import TuneCache

INNERS = ("inductor", "eager")


class _Eager(Exception):
    """The rewritten graph must run eagerly; the message says why."""


PassesArg = PassLibrary | str | Path | Sequence[str | Path]


class PassnetBackend:
    """The backend callable; ``reports`` holds one GraphReport per graph it compiled."""

    def __init__(
        self,
        library: PassLibrary,
        inner: str = "inductor",
        mode: str | None = None,
        tune: bool | TuneCache = False,
    ) -> None:
        if inner not in INNERS:
            raise ValueError(f"unknown inner compiler {inner!r}; use one of {', '.join(INNERS)}")
        if mode is not None and inner != "inductor":
            raise ValueError(f"mode {mode!r} needs inner='inductor'")
        if tune and inner != "inductor":
            raise ValueError("tune needs inner='inductor' (it compares compiled graphs)")
        self.library, self.inner, self.mode = library, inner, mode
        self.tune: TuneCache | None = (
            tune if isinstance(tune, TuneCache) else TuneCache() if tune else None
        )
        self.reports: list[GraphReport] = []

    def __call__(self, gm: GraphModule, example_inputs: list[Any]) -> Callable:
        from passnet.accelerate.customops import op_target

        inductor = self.inner == "inductor"
        keep, tuned = self._tuned(gm, example_inputs) if self.tune else (None, "")
        sites = find_sites(gm.graph)  # before the rewrite replaces their nodes
        report = self.library.apply(gm, len(self.reports), op_target if inductor else None, keep)
        report.inner, report.tune = self.inner, tuned
        report.sites = sites
        self.reports.append(report)
        if not inductor:
            return gm.forward
        from torch._dynamo.exc import RestartAnalysis

        try:
            return self._compile(gm, example_inputs, report)
        except _Eager as e:
            return self._eager(gm, report, str(e))
        except RestartAnalysis:  # Dynamo traces the frame again and calls the backend anew
            self.reports.remove(report)
            raise

    def _compile(self, gm: GraphModule, example_inputs: list[Any], report: GraphReport) -> Any:
        """Inductor on the rewritten graph; raises _Eager saying why it must run eagerly."""
        if report.note:  # some replacement is a plain Python call: Inductor would trace into it
            raise _Eager(f"not every replacement could be a custom op:\n{report.note}")
        from torch._inductor import list_mode_options
        from torch._inductor.compile_fx import compile_fx

        patches = list_mode_options(self.mode) if self.mode else {}
        from torch._dynamo.exc import RestartAnalysis

        try:
            return compile_fx(gm, example_inputs, config_patches=patches)
        except RestartAnalysis:  # not a failure: Dynamo's request to trace again (a float
            raise  # input it now treats as a tensor, after a recompile)
        except Exception as e:  # noqa: BLE001 - reported loudly, never dropped
            raise _Eager(f"Inductor failed on the rewritten graph: {type(e).__name__}: {e}") from e

    def _tuned(
        self, gm: GraphModule, example_inputs: list[Any]
    ) -> tuple[Callable[[str, list[str]], bool] | None, str]:
        """Which fired sites to keep (tune.py): from the cache, else timed now."""
        from passnet.accelerate.customops import op_target

        assert self.tune is not None
        probe = self.library.apply(copy.deepcopy(gm), -1)
        sites = [(f.rule, tuple(f.nodes)) for f in probe.fired]
        if not sites:
            return None, ""
        key = tune.graph_key(gm, example_inputs, self.library, self.mode or "default")
        decision = self.tune.get(key)
        if decision is None:

            def compile_with(copy_gm: GraphModule, keep: Callable[[str, list[str]], bool]) -> Any:
                report = self.library.apply(copy_gm, -1, op_target, keep)
                try:
                    return self._compile(copy_gm, example_inputs, report)
                except _Eager:
                    return copy_gm.forward

            decision = tune.tune_graph(gm, example_inputs, sites, compile_with)
            self.tune.put(key, tune.device_name(example_inputs), decision)
        kept = set(decision.kept)
        return (lambda label, nodes: (label, tuple(nodes)) in kept), decision.describe(len(sites))

    def _eager(self, gm: GraphModule, report: GraphReport, why: str) -> Callable:
        report.inner = "eager"
        report.note = f"graph {report.graph} runs eagerly, without Inductor: {why}"
        warnings.warn(f"passnet backend: {report.note}", RuntimeWarning, stacklevel=2)
        return gm.forward

    def summary(self) -> dict[str, Any]:
        """Per rule: how often it fired, where, overlaps it lost, the closest miss."""
        return summarize(self.reports, self.library.rules)

    def coverage(self) -> dict[str, tuple[int, int]]:
        """Per site kind (sites.py), over every graph: (sites found, sites a rule fused). A
        site is fused where a fired match holds its nodes and that match's rule never fell
        back to its pattern on a call (its kernel refused the inputs: another rank, say, so
        the site ran eagerly). Fallbacks are counted per rule: one refused site uncounts
        every site of that rule, so the count errs low, never high."""
        fell_back = {r.label for r in self.library.rules if r.fallbacks}
        out = {kind: (0, 0) for kind in KINDS}
        for r in self.reports:
            kept = (f.nodes for f in r.fired if f.rule not in fell_back)
            for kind, (found, fused) in coverage(r.sites, kept).items():
                a, b = out[kind]
                out[kind] = (a + found, b + fused)
        return out

    def fired(self) -> dict[str, int]:
        return {k: v["count"] for k, v in self.summary().items()}


def as_library(passes: PassesArg, order: str = "folders") -> PassLibrary:
    """A PassLibrary from a library, one folder or a list of folders (each may hold many)."""
    if isinstance(passes, PassLibrary):
        return passes
    paths = [passes] if isinstance(passes, (str, Path)) else list(passes)
    return PassLibrary.load(paths, order=order)


def backend(
    passes: PassesArg,
    inner: str = "inductor",
    *,
    mode: str | None = None,
    order: str = "folders",
    tune: bool | TuneCache = False,
) -> PassnetBackend:
    """A ``torch.compile`` backend applying ``passes`` (see the module docstring)::

    be = passnet.backend(passes=["examples/passes", "runs/synth"], inner="inductor")
    fast = torch.compile(model, backend=be)
    fast(*inputs); print(be.fired())
    """
    return PassnetBackend(as_library(passes, order), inner, mode, tune)


_NAMED: dict[tuple[str, str, bool], PassnetBackend] = {}


def named_backend(gm: GraphModule, example_inputs: list[Any]) -> Callable:
    """``torch.compile(model, backend="passnet")``: the library named by ``PASSNET_PASSES``."""
    paths = [p for p in os.environ.get("PASSNET_PASSES", "").split(os.pathsep) if p]
    if not paths:
        raise LibraryError(
            'backend="passnet" reads its pass folders from PASSNET_PASSES (joined by '
            f"{os.pathsep!r}); set it, or pass passnet.backend(passes=...) instead"
        )
    key = (os.pathsep.join(paths), os.environ.get("PASSNET_INNER", "inductor"),
           os.environ.get("PASSNET_TUNE", "0") == "1")  # fmt: skip
    if key not in _NAMED:
        _NAMED[key] = backend(paths, key[1], tune=key[2])
    return _NAMED[key](gm, example_inputs)


def register_named(name: str = "passnet") -> bool:
    """Register ``named_backend`` with Dynamo once; False if another backend has the name."""
    from torch._dynamo.backends.registry import _COMPILER_FNS, register_backend

    if name in _COMPILER_FNS:
        return _COMPILER_FNS[name] is named_backend
    register_backend(named_backend, name=name)
    return True
