"""Where a worker's Triton time goes: compiles, cache hits, compiler stages, kernel loads.

A pass worker's first call dominates its time on the GPU (docs/results/h200-2026-12-04b.md), and the phase
timer cannot say whether that is Triton compiling (and in which stage: ptxas is ``cubin``),
loading a cached kernel, or something else. Triton reports every compile to
``triton.knobs.compilation.listener`` (with per-stage times and whether the cache answered);
loading a compiled kernel onto the device (module load and launcher) happens in
``CompiledKernel._init_handles``. Both are recorded here, per worker, into
``EvalResult.triton``. Diagnostics only: nothing here decides a verdict, and a pass that
resets the listener only hides its own compile times.
"""

from __future__ import annotations

import functools
import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any


class TritonStats:
    """Compile and load times of one worker; ``install`` before any pass code runs."""

    def __init__(self) -> None:
        self.compiles = 0
        self.cache_hits = 0
        self.stage_us: Counter[str] = Counter()
        self.loads = 0
        self.load_s = 0.0
        self.driver_s: float | None = None  # warm_driver's seconds, when it ran
        self._undo: list[Callable[[], None]] = []

    def listen(self, *, times: Any, cache_hit: bool, **_: Any) -> None:
        """A ``CompilationListener``: one call per ``triton.compile``."""
        self.compiles += 1
        self.cache_hits += bool(cache_hit)
        if cache_hit:
            return
        self.stage_us["ir"] += getattr(times, "ir_initialization", 0)
        for stage, us in getattr(times, "lowering_stages", ()):
            self.stage_us[stage] += us
        self.stage_us["store"] += getattr(times, "store_results", 0)

    def install(self) -> bool:
        """Hook Triton (False where Triton or its listener knob is missing)."""
        try:
            from triton import knobs
            from triton.compiler.compiler import CompiledKernel
        except ImportError:
            return False
        compilation = getattr(knobs, "compilation", None)
        if compilation is None or not hasattr(compilation, "listener"):
            return False
        before = compilation.listener
        compilation.listener = self.listen
        self._undo.append(lambda: setattr(compilation, "listener", before))
        init = vars(CompiledKernel).get("_init_handles")
        if init is not None:

            @functools.wraps(init)
            def timed_init(kernel: Any) -> Any:
                fresh = getattr(kernel, "module", None) is None
                t0 = time.perf_counter()
                try:
                    return init(kernel)
                finally:
                    if fresh:
                        self.loads += 1
                        self.load_s += time.perf_counter() - t0

            CompiledKernel._init_handles = timed_init
            self._undo.append(lambda: setattr(CompiledKernel, "_init_handles", init))
        return True

    def warm_driver(self, shared: Path | None) -> None:
        """Build or load Triton's CUDA driver module (``cuda_utils``, compiled from Triton's
        own C source with the host's C compiler) from the trusted compile cache, before any
        pass code runs. In a new pass's own, empty cache folder every worker would compile it
        again, several at once under ``--prepare-ahead``. The module is a per-process singleton,
        so the pass's cache folder is back in use for everything after."""
        if shared is None:
            return
        try:
            from triton.runtime import driver
        except ImportError:
            return
        saved = os.environ.get("TRITON_CACHE_DIR")
        os.environ["TRITON_CACHE_DIR"] = str(shared / "triton")
        t0 = time.perf_counter()
        try:
            driver.active.utils  # noqa: B018 - the property builds or loads the module
        except Exception:  # noqa: BLE001 - no usable driver: the first launch will say why
            return
        finally:
            if saved is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = saved
        self.driver_s = time.perf_counter() - t0

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()

    def summary(self) -> dict[str, float]:
        """Seconds and counts for the result; empty when Triton compiled and loaded nothing."""
        if not (self.compiles or self.loads or self.driver_s is not None):
            return {}
        out: dict[str, float] = {
            "compiles": self.compiles,
            "cache_hits": self.cache_hits,
            "compile_s": round(sum(self.stage_us.values()) / 1e6, 4),
        }
        out |= {f"{k}_s": round(v / 1e6, 4) for k, v in self.stage_us.items()}
        out |= {"loads": self.loads, "load_s": round(self.load_s, 4)}
        if self.driver_s is not None:
            out["driver_s"] = round(self.driver_s, 4)
        return out


def merge(total: dict[str, float], one: dict[str, float]) -> None:
    """Add one worker's summary into a running total (the bench's line)."""
    for key, value in one.items():
        total[key] = total.get(key, 0) + value


def triton_line(total: dict[str, float]) -> str:
    """One line for a run's summed worker stats: where Triton's time went."""
    stages = sorted(
        ((k[:-2], v) for k, v in total.items() if k.endswith("_s") and k not in NOT_STAGES),
        key=lambda kv: -kv[1],
    )
    top = ", ".join(f"{k} {v:.1f} s" for k, v in stages[:3] if v > 0)
    return (
        f"Triton in workers: {total.get('compiles', 0):.0f} compiles "
        f"({total.get('cache_hits', 0):.0f} from its cache), {total.get('compile_s', 0):.1f} s "
        f"compiling{f' ({top})' if top else ''}; {total.get('loads', 0):.0f} kernel loads, "
        f"{total.get('load_s', 0):.1f} s"
        + (f"; driver module {total['driver_s']:.1f} s" if "driver_s" in total else "")
    )


NOT_STAGES = frozenset({"compile_s", "load_s", "driver_s"})
