"""The harness's callables as a pass found them: ``HarnessWatch`` remembers the timer, torch,
Triton-launch and harness functions (and class members) before a pass loads, and names every
one that a pass replaced, removed or gave other code since (``Runtime.verify`` asks after
every checked call).

Code swaps are seen one of two ways. Where the worker's audit hook runs
(``passnet.integrity.audit``), every ``function.__code__`` write in the process raises an
``object.__setattr__`` event and the hook records the function: the watch asks that record
and reads no code (each ``__code__`` read is an audit event too). Without the hook it compares
each function's code with the one it remembered.
"""

from __future__ import annotations

import os
import types
from collections.abc import Collection
from operator import is_
from pathlib import Path
from typing import Any

import torch

_TORCH_DIR = str(Path(torch.__file__).parent) + os.sep
_MISSING = object()
_CLASS_WATCH = (types.FunctionType, staticmethod, classmethod, property)


class HarnessWatch:
    """The watched entries of ``owners`` (modules: their callables; classes: their functions,
    static and class methods and properties), each with its code where it has one.

    ``code_swaps``: ids of the functions whose code was set since the hook was installed
    (``AuditHook.code_swaps``, a live set), or None to compare code objects instead."""

    def __init__(self, owners: list[Any], code_swaps: Collection[int] | None = None) -> None:
        self.code_swaps = code_swaps
        # per owner: the owner, its live namespace, the watched keys, the values they had and
        # those values' code (the identity check of a whole owner runs in C)
        self.groups: list[tuple[Any, Any, list[str], list[Any], list[Any]]] = []
        for owner in owners:
            space = vars(owner)
            keys = [key for key, value in list(space.items())
                    if (isinstance(value, _CLASS_WATCH) if isinstance(owner, type)
                        else callable(value))]  # fmt: skip
            if keys:
                values = [space[key] for key in keys]
                codes = [getattr(value, "__code__", None) for value in values]
                self.groups.append((owner, space, keys, values, codes))

    @property
    def entries(self) -> list[tuple[Any, str, Any, Any]]:
        """Every watched entry: (owner, name, value, code or None)."""
        return [(owner, key, value, code) for owner, _, keys, values, codes in self.groups
                for key, value, code in zip(keys, values, codes, strict=True)]  # fmt: skip

    def changed(self) -> list[str]:
        """``owner.name`` of every entry that differs from the snapshot (torch's own lazy
        re-wrapping aside): replaced, removed, or its code swapped."""
        swaps = self.code_swaps
        if (
            swaps is not None
            and not swaps
            and all(
                all(map(is_, map(space.get, keys), values))
                for _, space, keys, values, _ in self.groups
            )
        ):
            return []  # the common case: every entry in place, no code set anywhere
        changed = []
        for owner, space, keys, values, codes in self.groups:
            for key, value, code in zip(keys, values, codes, strict=True):
                now = space.get(key, _MISSING)
                if now is not value and _torch_rewrap(now, value):
                    continue
                if now is not value or (code is not None and self._swapped(now, code)):
                    changed.append(f"{getattr(owner, '__name__', owner)}.{key}")
        return changed

    def _swapped(self, fn: Any, code: Any) -> bool:
        if self.code_swaps is not None:
            return id(fn) in self.code_swaps
        return getattr(fn, "__code__", None) is not code


def _torch_rewrap(now: Any, value: Any) -> bool:
    """torch's own lazy re-wrapping (importing Dynamo wraps ``torch.manual_seed`` and
    ``nn.Module.__init__``): a function defined inside torch that wraps the original."""
    code = getattr(now, "__code__", None)
    if code is None or not code.co_filename.startswith(_TORCH_DIR):
        return False
    cells = [c.cell_contents for c in getattr(now, "__closure__", None) or ()]
    return getattr(now, "__wrapped__", None) is value or any(c is value for c in cells)
