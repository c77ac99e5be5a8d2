"""Work a replacement does per input signature, done once per signature instead of per call.

A replacement wrapper reads its inputs' shapes, checks its guards, works out output sizes,
strides to pass, block sizes and the grid, and only then launches: on a launch-bound
subgraph that bookkeeping is a visible share of the call (docs/benchmarks.md). All of it is a
function of metadata alone, so :func:`plan_cache` memoises it::

    from passnet.passes.plans import plan_cache

    @plan_cache
    def _plan(s0, t0, cuda):              # shapes, strides, flags: never a tensor
        if len(s0) != 2:
            raise ValueError("another rank")  # raised again on every such call, never stored
        n = s0[0] * s0[1]
        return (s0,), ((n + 1023) // 1024,), (n, t0[0], t0[1]), {"BLOCK": 1024}

    def replacement(x):
        out_shape, grid, ints, consts = _plan[x.shape, x.stride(), x.is_cuda]
        ...

``_plan[a, b, ...]`` is one dict lookup (a ``dict`` subclass whose ``__missing__`` calls the
function with the key's items; a one-item key is written ``_plan[a,]``). The integrity
policy forbids state kept across calls because a cache of outputs returns stale results; a
plan cannot be one. On every miss its key is checked to hold only numbers below 2**40 (sizes,
strides, flags: never an identity such as ``id``/``hash``/``data_ptr``), strings, dtypes and
devices, and its value to hold no tensor; the value is then frozen (tuples and dicts whose
writes raise ``PlanWriteError``), so a later call gets back exactly what the plan function
computed and nothing can be written into it. Only ``__missing__`` stores: ``_plan[k] = v``,
``update``, ``setdefault``, ``pop``, ``clear`` and ``del`` raise.
A signature's plan is computed once per process; past ``limit`` signatures plans are still
computed, no longer stored. While a ``torch.library.triton_op`` body is traced
(``passnet.passes.launch.traced_launches``) sizes may be symbols, which do not hash: a
signature holding one gets its plan computed on every lookup, never stored.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import torch

__all__ = ["PlanCache", "PlanWriteError", "plan_cache", "symbolic_plans"]

_LEAVES = (bool, int, float, str, type(None), torch.dtype, torch.device)
_SYMBOLS = (torch.SymInt, torch.SymFloat, torch.SymBool)  # sizes of a symbolic trace
_KEY_INT_LIMIT = 1 << 40  # sizes and strides fit; addresses and ids do not
_ADDRESS_END = 1 << 64  # beyond: a dtype's limit or an infinity (a mask's fill value)


def _check(value: Any, what: str) -> None:
    """Raise TypeError unless ``value`` is built of numbers, strings, dtypes and devices (and,
    in a signature, no number in the range of addresses and object ids: ``finfo(bfloat16).min``
    and infinities, a masked fill's values, are beyond it)."""
    if isinstance(value, _SYMBOLS):  # only in a traced plan (``symbolic_plans``): a size
        return
    if isinstance(value, _LEAVES):
        if (what == "signature" and isinstance(value, (int, float)) and not isinstance(value, bool)
                and _KEY_INT_LIMIT <= abs(value) < _ADDRESS_END):  # fmt: skip
            raise TypeError(f"a launch plan's signature holds the number {value}: as large "
                            "as an address or an id, which a plan must not be keyed on")  # fmt: skip
        return
    if isinstance(value, (tuple, list)):
        for v in value:
            _check(v, what)
        return
    if isinstance(value, dict):
        for k, v in value.items():
            _check(k, what)
            _check(v, what)
        return
    raise TypeError(
        f"a launch plan's {what} holds a {type(value).__name__}: only numbers, "
        "strings, dtypes, devices, sizes and tuples, lists or dicts of them"
    )


class PlanWriteError(TypeError):
    """A write into a launch plan or a plan cache: state kept across calls (an integrity
    finding, ``plan-write``, in an evaluation)."""


def _refused(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise PlanWriteError(f"a launch plan {'cache ' if isinstance(self, PlanCache) else ''}"
                         "is written only by its own misses: plans are frozen")  # fmt: skip


_MUTATORS = ("__setitem__ __delitem__ __iadd__ __imul__ __ior__ append extend insert pop "
             "remove clear sort reverse update setdefault popitem").split()  # fmt: skip


class FrozenTuple(tuple):
    """A plan's list or tuple: a tuple whose would-be mutators raise ``PlanWriteError``."""

    __slots__ = ()


class FrozenDict(dict):
    """A plan's dict: unpacks as fast as a dict (``**consts``), refuses every write."""

    __slots__ = ()


for _name in _MUTATORS:
    setattr(FrozenTuple, _name, _refused)
    if _name not in ("__iadd__", "__imul__", "append", "extend", "insert", "remove", "sort",
                     "reverse"):  # fmt: skip
        setattr(FrozenDict, _name, _refused)


def _freeze(value: Any) -> Any:
    """A checked plan value that cannot change: lists frozen into tuples that refuse writes,
    dicts too, tuples kept plain tuples of frozen items (a launch grid taken from a plan must
    stay an exact tuple: the native launch path declines any other sequence, and a call then
    pays the Python launch path's microseconds)."""
    if type(value) is torch.Size:
        return value
    if type(value) is tuple:
        return tuple(_freeze(v) for v in value)
    if isinstance(value, (tuple, list)):
        return FrozenTuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return FrozenDict((k, _freeze(v)) for k, v in value.items())
    return value


class PlanCache(dict):
    """``fn``'s results by argument tuple; see the module docstring."""

    def __init__(self, fn: Callable[..., Any], limit: int = 256) -> None:
        super().__init__()
        self.fn, self.limit = fn, limit
        functools.update_wrapper(self, fn)
        key = id(self)
        _CACHES[key] = weakref.ref(self, functools.partial(_forget, key))

    def __missing__(self, key: tuple) -> Any:
        plan = self._compute_plan(key)
        if len(self) < self.limit:
            dict.__setitem__(self, key, plan)
        return plan

    def _compute_plan(self, key: tuple) -> Any:
        """The checked, frozen plan of ``key``, computed now."""
        if type(key) is not tuple:
            raise TypeError(
                "index a PlanCache with a tuple of its function's arguments: plan[a, b] or plan[a,]"
            )
        _check(key, "signature")
        plan = self.fn(*key)
        _check(plan, "value")
        return _freeze(plan)

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _refused
    __ior__ = _refused

    def __call__(self, *key: Any) -> Any:
        return self[key]

    def __repr__(self) -> str:
        return f"PlanCache({getattr(self.fn, '__qualname__', self.fn)!r}, {len(self)} plans)"


class _SymbolicPlanCache(PlanCache):
    """A plan cache inside ``symbolic_plans``: a signature that does not hash (symbolic sizes)
    gets its plan computed, not stored. Only there, so that a lookup stays one dict lookup
    (no Python frame) everywhere else."""

    def __getitem__(self, key: tuple) -> Any:
        try:
            return dict.__getitem__(self, key)  # a miss still goes to ``__missing__``
        except TypeError:
            try:
                hash(key)
            except TypeError:
                return self._compute_plan(key)
            raise


_CACHES: dict[int, weakref.ref[PlanCache]] = {}  # every live cache (a dict does not hash)
_SYMBOLIC_DEPTH = [0]


def _forget(key: int, _: object) -> None:
    _CACHES.pop(key, None)


def _live() -> list[PlanCache]:
    return [c for ref in list(_CACHES.values()) if (c := ref()) is not None]


@contextlib.contextmanager
def symbolic_plans() -> Iterator[None]:
    """Every plan cache takes symbolic signatures while inside (a triton op's body traced on
    fake tensors under a shape environment, where a ``SymInt`` does not hash)."""
    if _SYMBOLIC_DEPTH[0] == 0:
        for cache in _live():
            if type(cache) is PlanCache:
                cache.__class__ = _SymbolicPlanCache
    _SYMBOLIC_DEPTH[0] += 1
    try:
        yield
    finally:
        _SYMBOLIC_DEPTH[0] -= 1
        if _SYMBOLIC_DEPTH[0] == 0:
            for cache in _live():
                if type(cache) is _SymbolicPlanCache:
                    cache.__class__ = PlanCache  # type: ignore[assignment]


def plan_cache(fn: Callable[..., Any] | None = None, *, limit: int = 256) -> Any:
    """Memoise ``fn`` (a pure function of shapes, strides, dtypes and flags) per argument
    tuple, as :class:`PlanCache`; ``@plan_cache`` or ``@plan_cache(limit=...)``."""
    cls = _SymbolicPlanCache if _SYMBOLIC_DEPTH[0] else PlanCache
    if fn is None:
        return lambda f: cls(f, limit)
    return cls(fn, limit)
