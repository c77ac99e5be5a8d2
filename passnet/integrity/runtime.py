"""Runtime integrity guards (SPEC section 8, layer B and up), installed inside a worker.

The static policy reads a pass; these guards watch it run. One ``Runtime`` per worker:

- ``wrap``: each replacement node of the rewritten graph gets a guarded twin. A guarded call
  runs under a TorchDispatchMode that lets through only allocation and view/metadata aten ops
  (a mode, not a tensor subclass, so ``type(x)`` shows nothing; tensors nested in lists and
  tuples are covered because the mode sees every op). Any other op is a ``torch-compute``
  finding unless Triton's own launch machinery issued it (the interpreter copies arguments on
  CPU; the autotuner zeroes its cache). A TorchFunctionMode adds host reads (``numpy()``,
  ``tolist()``) as ``host-compute``. Uninitialised allocations are filled with NaN (integers
  with their max value), so elements a kernel never writes show up in the comparison.
- Triton launches are counted (``JITFunction.run``, the interpreter's ``run``,
  ``CompiledKernel.__getitem__``, PassNet's ``CachedKernel.launch_python``; its native hot
  path counts in C, which keeps a Python frame out of every timed launch) and can be turned
  into no-ops for a ghost replay.
- ``snapshot``/``verify``: the identity (and code object) of timer, torch, Triton-launch and
  harness functions, taken before the pass loads and re-checked after every checked call.
- ``probe``/``after_call``: threads, native threads, child processes and (CUDA) device work
  still running after a call returned (``device_work.py``: two slow device waits in one
  evaluation reject, one warns); the persisting-L2 limit; Dynamo compilations.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
import threading
import time
import types
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from passnet.core.results import Finding
from passnet.integrity.device_work import DeviceWork, timed_wait
from passnet.integrity.harness_watch import HarnessWatch
from passnet.integrity.process_probes import (
    child_pids,
    l2_persisting_limit,
    native_threads,
    set_l2_persisting_limit,
)
from passnet.passes.launch import native_counter

ALLOC = frozenset(
    "empty empty_like empty_strided new_empty new_empty_strided zeros zeros_like ones ones_like "
    "full full_like new_zeros new_ones new_full scalar_tensor lift_fresh".split())  # fmt: skip
UNINITIALISED = frozenset("empty empty_like empty_strided new_empty new_empty_strided".split())
VIEWS = frozenset(
    "view _unsafe_view _reshape_alias as_strided permute transpose t expand unsqueeze squeeze "
    "select slice narrow detach alias unbind split split_with_sizes diagonal unfold "
    "view_as_real view_as_complex real imag sym_size sym_stride sym_numel sym_storage_offset "
    "is_same_size is_non_overlapping_and_dense".split())  # fmt: skip
FILLS = frozenset({"fill_", "zero_"})  # only on a tensor allocated in the same call
HOST_READS = frozenset({"numpy", "__array__", "tolist", "__dlpack__", "__reduce_ex__"})
WATCHED_MODULES = (
    "time builtins threading os json statistics secrets random torch torch.cuda "
    "torch.nn.functional torch.fx passnet.scores.compare passnet.evaluation.timing "
    "passnet.evaluation.worker passnet.evaluation.candidates passnet.graph.sample "
    "passnet.core.tolerance passnet.integrity.runtime passnet.integrity.checks "
    "passnet.integrity.harness_watch"
).split()
_SKIP_FRAMES = (str(Path(torch.__file__).parent) + os.sep, str(Path(__file__).parent) + os.sep,
                contextlib.__file__)  # fmt: skip
_MAX_FINDINGS = 40
SETTLE_S = 0.02  # after a checked call: a late write lands before outputs are compared


def _try_import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - an optional module (triton on a CPU build)
        return None


_TRITON_FILE = getattr(sys.modules.get("triton") or _try_import("triton"), "__file__", None)
_TRITON_DIR = str(Path(_TRITON_FILE).parent) + os.sep if _TRITON_FILE else None
#: Triton's launch machinery, whose own torch ops are allowed (the interpreter copies
#: arguments on CPU, the autotuner zeroes its cache); not ``triton.testing`` and the like,
#: which a pass could use to read or compute on its inputs.
_TRITON_LAUNCH = (
    tuple(_TRITON_DIR + sub + os.sep for sub in ("runtime", "compiler", "backends", "_C"))
    if _TRITON_DIR
    else ()
)


def culprit() -> str | None:
    """``file:line`` of the code that issued the current torch op, skipping torch and this
    package; None when Triton's launch machinery issued it (a kernel launch is allowed)."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(_SKIP_FRAMES):
            if _TRITON_LAUNCH and name.startswith(_TRITON_LAUNCH):
                return None
            return f"{os.path.basename(name)}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


def storage_key(t: Any) -> int | None:
    """Address of a tensor's storage (None for empty tensors or non-tensors)."""
    if not isinstance(t, torch.Tensor) or t.numel() == 0:
        return None
    try:
        storage = t.untyped_storage()
    except (RuntimeError, NotImplementedError):
        return None
    return storage.data_ptr() if storage.nbytes() else None


def poison(t: torch.Tensor) -> None:
    """Fill a fresh allocation with NaN (integers: their max) so unwritten elements show."""
    if t.numel() == 0 or t.dtype == torch.bool:
        return
    if t.is_floating_point() or t.is_complex():
        t.fill_(float("nan"))
    else:
        t.fill_(torch.iinfo(t.dtype).max)


class _ComputeGuard(TorchDispatchMode):
    def __init__(self, rt: Runtime) -> None:
        super().__init__()
        self.rt = rt

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # no torch._disable_dynamo wrapper: importing Dynamo costs seconds

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        rt = self.rt
        if name in ALLOC:
            out = func(*args, **kwargs)
            if isinstance(out, torch.Tensor):
                if name in UNINITIALISED and rt.fill:
                    poison(out)
                rt.fresh.add(storage_key(out))
            return out
        if name in VIEWS or (name in FILLS and args and storage_key(args[0]) in rt.fresh):
            return func(*args, **kwargs)
        where = culprit()
        if where is not None:
            rt.add("torch-compute", f"aten.{name} ran in replacement {rt.current} at {where}; "
                   "a replacement may only allocate, view and launch kernels")  # fmt: skip
        return func(*args, **kwargs)


class _HostReadGuard(TorchFunctionMode):
    def __init__(self, rt: Runtime) -> None:
        super().__init__()
        self.rt = rt

    def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        name = getattr(func, "__name__", "")
        if name in HOST_READS and (where := culprit()) is not None:
            self.rt.add("host-compute", f"Tensor.{name}() in replacement {self.rt.current} at "
                        f"{where}: tensor data read on the host, outside any kernel")  # fmt: skip
        return func(*args, **(kwargs or {}))


def _node_key(node: torch.fx.Node) -> Any:
    return node.target if node.op == "call_function" else ("method", node.target)


def _method_caller(name: str) -> Callable:
    def call(self_: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(self_, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


class Runtime:
    """Runtime guards and findings of one worker (one variant)."""

    def __init__(self, device: torch.device, watch_dynamo: bool = True) -> None:
        self.device, self.watch_dynamo = device, watch_dynamo
        self.findings: list[Finding] = []
        self.phase = "load"
        self.fill = True
        # the cheap launch path's native launches, counted in C (no Python frame per launch)
        self._native_launched, self._native_skip = native_counter()
        self._ghost = False
        self.counted = 0  # launches the Python hooks counted (``launched`` adds the native ones)
        self._scope_start = 0  # ``launched`` when the current call scope began
        self.fresh: set[int | None] = set()
        self.current = ""
        self.guarded_calls = 0  # replacement calls in this call scope
        self.unlaunched: list[tuple[str, Any, tuple]] = []  # ghost: (name, out, args) of calls
        # that launched no Triton kernel (checks.CandidateChecker.ghost)
        self.device_work = DeviceWork()  # the side-stream check's strikes (device_work.py)
        self._seen: set[tuple[str, str]] = set()
        self._watch = HarnessWatch([])  # nothing watched before ``snapshot``
        self._code_swaps: set[int] | None = None  # the audit hook's record, once installed
        self._unhook: list[tuple[type, str, Any]] = []
        self.hooked = _hook_triton(self)
        _warm_thread_pools(device)
        self.dynamo_frames = _dynamo_frames()
        self.l2_limit = l2_persisting_limit() if device.type == "cuda" else None

    @property
    def launched(self) -> int:
        """Counted launches in the worker's life (timed_phase counts per call): the hooked
        Python launch paths' and the native hot path's."""
        return self.counted + self._native_launched()

    @property
    def ghost(self) -> bool:
        """A ghost replay: counted launches do nothing (the native hot path's too)."""
        return self._ghost

    @ghost.setter
    def ghost(self, value: bool) -> None:
        self._ghost = bool(value)
        self._native_skip(self._ghost)

    @property
    def launches(self) -> int:
        """Counted launches in the current call scope."""
        return self.launched - self._scope_start

    # -- findings -------------------------------------------------------------------------
    def add(self, check: str, detail: str, fatal: bool = True) -> None:
        key = (check, detail[:120])
        if key in self._seen or len(self.findings) >= _MAX_FINDINGS:
            return
        self._seen.add(key)
        self.findings.append(Finding(check=check, detail=detail, phase=self.phase, fatal=fatal))

    def fatal(self) -> list[Finding]:
        return [f for f in self.findings if f.fatal]

    # -- guarded replacement calls ----------------------------------------------------------
    def guard_graph(self, fn: Callable, original: torch.fx.GraphModule) -> Callable | None:
        """A twin of the rewritten graph whose replacement nodes run guarded; None when ``fn``
        is not a GraphModule's forward. Replacement nodes are the call nodes the rewrite added:
        names the original graph never had, or targets it calls more often now."""
        gm = getattr(fn, "__self__", None)
        if not isinstance(gm, torch.fx.GraphModule):
            return None
        calls = ("call_function", "call_method")
        base = Counter(_node_key(n) for n in original.graph.nodes if n.op in calls)
        now = Counter(_node_key(n) for n in gm.graph.nodes if n.op in calls)
        new = {k for k, c in now.items() if c > base.get(k, 0)}
        names = {n.name for n in original.graph.nodes}  # FX never reuses a name in one graph
        twin = torch.fx.GraphModule(gm, _copy_graph(gm.graph))
        for node in twin.graph.nodes:
            if node.op not in calls or (_node_key(node) not in new and node.name in names):
                continue
            if node.op == "call_method":
                node.op, node.target = "call_function", _method_caller(str(node.target))
            if node.target is not _GETITEM:
                node.target = self.wrap(node.target)
        twin.recompile()
        return twin.forward

    def wrap(self, target: Callable) -> Callable:
        rt, name = self, getattr(target, "__name__", type(target).__name__)

        def guarded(*args: Any, **kwargs: Any) -> Any:
            rt.current = name
            # torch.compile inside a replacement runs eagerly here, in plain sight of the guard
            config = sys.modules.get("torch._dynamo.config")
            disabled = getattr(config, "disable", True)
            if config is not None:
                setattr(config, "disable", True)  # noqa: B010 - a module attribute mypy cannot see
            before = rt.launches
            try:
                with _ComputeGuard(rt), _HostReadGuard(rt):
                    out = target(*args, **kwargs)
            finally:
                if config is not None:
                    setattr(config, "disable", disabled)  # noqa: B010
            rt.guarded_calls += 1
            if rt.ghost and rt.launches == before:
                rt.unlaunched.append((name, out, args))
            return out

        guarded.__name__ = guarded.__qualname__ = f"guarded_{name}"
        return guarded

    @contextlib.contextmanager
    def call_scope(self, fill: bool = True, ghost: bool = False) -> Iterator[None]:
        self.fill, self.ghost, self._scope_start = fill, ghost, self.launched
        self.guarded_calls, self.unlaunched = 0, []
        self.fresh.clear()
        try:
            yield
        finally:
            self.ghost = False
            self.fresh.clear()

    # -- harness snapshot -----------------------------------------------------------------
    def snapshot(self) -> None:
        """Remember timer, torch, Triton-launch and harness callables (call before the pass
        loads, after everything the harness uses is imported)."""
        owners: list[Any] = []
        for name in WATCHED_MODULES:
            mod = sys.modules.get(name) or _try_import(name)
            if mod is not None:
                owners.append(mod)
                if name.startswith("passnet."):
                    owners += [v for v in vars(mod).values()
                               if isinstance(v, type) and v.__module__ == name]  # fmt: skip
        owners += [torch.Tensor, torch._C.TensorBase, torch.nn.Module, torch.fx.GraphModule,
                   TorchDispatchMode, TorchFunctionMode, threading.Thread, *self.hooked]  # fmt: skip
        if self.device.type == "cuda":
            owners += [torch.cuda.Event, torch.cuda.Stream]
        self._watch = HarnessWatch(owners, self._code_swaps)

    def watch_code_swaps(self, code_swaps: set[int]) -> None:
        """Take code swaps from the audit hook's record (``AuditHook.code_swaps``) from now on,
        instead of reading every watched function's code at each ``verify``."""
        self._code_swaps = self._watch.code_swaps = code_swaps

    def watch_instances(self, *objects: Any) -> None:
        """Harness objects whose methods a pass must not shadow on the instance (this
        ``Runtime`` is always watched): ``verify`` flags an instance attribute that hides one."""
        self._instances = [self, *objects]

    def verify(self) -> None:
        """A ``harness-tamper`` finding for every watched callable that changed, and every
        method of a watched harness object shadowed by an instance attribute."""
        changed = [f"{type(obj).__name__}.{name} (on the instance)"
                   for obj in getattr(self, "_instances", [self]) for name in vars(obj)
                   if callable(getattr(type(obj), name, None))]  # fmt: skip
        changed += self._watch.changed()
        if changed:
            more = f" (+{len(changed) - 6} more)" if len(changed) > 6 else ""
            self.add("harness-tamper", "replaced: " + ", ".join(changed[:6]) + more)
        frames = _dynamo_frames()
        if frames > self.dynamo_frames and self.watch_dynamo:
            self.add("torch-compile", f"{frames - self.dynamo_frames} frame(s) compiled by "
                     "torch.compile while the candidate ran")  # fmt: skip
            self.dynamo_frames = frames
        if self.device.type == "cuda":
            limit = l2_persisting_limit()
            if limit and limit != self.l2_limit:
                self.add("l2-persist", f"persisting L2 cache limit set to {limit} bytes")
                set_l2_persisting_limit(self.l2_limit or 0)

    def rebase(self) -> None:
        """Take the snapshot again (after the harness itself loaded more of torch)."""
        self.snapshot()
        self.dynamo_frames = _dynamo_frames()

    # -- threads, processes, device work ----------------------------------------------------
    def probe(self) -> tuple[frozenset[int], int, frozenset[int]]:
        alive = frozenset(t.ident or 0 for t in threading.enumerate() if t.is_alive())
        return alive, native_threads(), frozenset(child_pids())

    def after_call(self, before: tuple, steady: bool, settle_s: float = SETTLE_S) -> None:
        """Threads, processes and device work the call left running (waits ``settle_s`` for
        them, so a late write lands before the outputs are compared; longer after a native
        thread the call left running)."""
        alive, native, kids = before
        if self.device.type == "cuda":
            torch.cuda.current_stream(self.device).synchronize()
            found = self.device_work.observe(
                *timed_wait(lambda: torch.cuda.synchronize(self.device))
            )
            if found:
                self.add(*found)
        new = [t for t in threading.enumerate() if t.is_alive() and (t.ident or 0) not in alive]
        if new:
            names = ", ".join(t.name for t in new[:3])
            self.add("background-thread", f"{len(new)} thread(s) still running after the call "
                     f"returned ({names})")  # fmt: skip
            for t in new:
                t.join(timeout=2.0)
        now = native_threads()
        if steady and now > native >= 0:
            self.add("background-thread", f"{now - native} native thread(s) started by the call "
                     "still running after it returned")  # fmt: skip
            settle_s = max(settle_s, 0.5)
        extra = set(child_pids()) - kids
        if extra:
            self.add("child-process", f"process(es) {sorted(extra)[:5]} started by the call "
                     "still running")  # fmt: skip
        time.sleep(settle_s)

    def close(self) -> None:
        """Remove the Triton hooks (a worker never needs to; tests in one process do)."""
        for cls, attr, orig in self._unhook:
            setattr(cls, attr, orig)
        self._unhook = []

    def after_load(self, before: tuple) -> None:
        """Threads and processes the pass started while it was imported and applied."""
        alive, _, kids = before
        new = [
            t.name for t in threading.enumerate() if t.is_alive() and (t.ident or 0) not in alive
        ]
        if new:
            self.add("background-thread", f"thread(s) started at import still running: {new[:3]}")
        if extra := set(child_pids()) - kids:
            self.add("child-process", f"process(es) {sorted(extra)[:5]} started at import")

    def nan_fill_device(self, nbytes: int = 1 << 28) -> None:
        """Fill the CUDA caching allocator's free blocks with NaN (large and small pools)."""
        if self.device.type != "cuda":
            return
        free, _ = torch.cuda.mem_get_info(self.device)
        big = torch.empty(min(nbytes, free // 8) // 4, dtype=torch.float32, device=self.device)
        small = [torch.empty((1 << 18) - 64, device=self.device) for _ in range(16)]
        for t in (big, *small):
            t.fill_(float("nan"))
        del big, small


_GETITEM = __import__("operator").getitem


def _copy_graph(graph: torch.fx.Graph) -> torch.fx.Graph:
    new = torch.fx.Graph()
    new.output(new.graph_copy(graph, {}))
    return new


def _hook_triton(rt: Runtime) -> list[type]:
    """Count Triton launches and make them no-ops during a ghost replay."""
    hooked: list[type] = []
    places = [("triton.runtime.jit", "JITFunction", "run")]
    if os.environ.get("TRITON_INTERPRET") == "1":
        places.append(("triton.runtime.interpreter", "InterpretedFunction", "run"))
    places.append(("triton.compiler.compiler", "CompiledKernel", "__getitem__"))
    # the cheap launch path's Python side (its native hot path counts in C: ``launched``)
    places.append(("passnet.passes.launch", "CachedKernel", "launch_python"))
    for module, cls_name, attr in places:
        cls = getattr(_try_import(module), cls_name, None)
        orig = vars(cls).get(attr) if isinstance(cls, type) else None
        if cls is None or orig is None or getattr(orig, "_passnet_hook", False):
            continue
        hook = _getitem_hook if attr == "__getitem__" else _launch_hook
        setattr(cls, attr, hook(rt, orig))
        rt._unhook.append((cls, attr, orig))
        hooked.append(cls)
    return hooked


def _launch_hook(rt: Runtime, orig: Callable) -> Callable:
    @functools.wraps(orig)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("warmup", False):
            rt.counted += 1
            if rt.ghost:
                return None
        return orig(self, *args, **kwargs)

    run._passnet_hook = True  # type: ignore[attr-defined]
    return run


def _getitem_hook(rt: Runtime, orig: Callable) -> Callable:
    @functools.wraps(orig)
    def getitem(self: Any, grid: Any) -> Callable:
        runner = orig(self, grid)

        def launch(*args: Any, **kwargs: Any) -> Any:
            rt.counted += 1
            return None if rt.ghost else runner(*args, **kwargs)

        return launch

    getitem._passnet_hook = True  # type: ignore[attr-defined]
    return getitem


def _warm_thread_pools(device: torch.device) -> None:
    """Start torch's intra-op pool now, so a candidate's first parallel op adds no thread."""
    x = torch.ones(1 << 16)
    (x + x).sum()
    if device.type == "cuda":
        torch.ones(1, device=device).add_(1)
        torch.cuda.synchronize(device)


def _dynamo_frames() -> int:
    utils = sys.modules.get("torch._dynamo.utils")  # never imported just to look
    return int(sum(utils.counters["frames"].values())) if utils is not None else 0
