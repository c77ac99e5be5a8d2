"""The harness's callables as a pass found them: ``HarnessWatch`` remembers the timer, torch,
Triton-launch and harness functions (and class members) before a pass loads, and names every
one that a pass replaced, removed or gave other code since (``Runtime.verify`` asks after
every checked call).
"""

from __future__ import annotations

import os
import types
from pathlib import Path
from typing import Any

import torch

_TORCH_DIR = str(Path(torch.__file__).parent) + os.sep
_MISSING = object()
_CLASS_WATCH = (types.FunctionType, staticmethod, classmethod, property)


class HarnessWatch:
    """The watched entries of ``owners`` (modules: their callables; classes: their functions,
    static and class methods and properties), each with its code where it has one."""

    def __init__(self, owners: list[Any]) -> None:
        self.entries: list[tuple[Any, str, Any, Any]] = []
        for owner in owners:
            for key, value in list(vars(owner).items()):
                if isinstance(owner, type) and not isinstance(value, _CLASS_WATCH):
                    continue
                if not isinstance(owner, type) and not callable(value):
                    continue
                self.entries.append((owner, key, value, getattr(value, "__code__", None)))

    def changed(self) -> list[str]:
        """``owner.name`` of every entry that differs from the snapshot (torch's own lazy
        re-wrapping aside): replaced, removed, or its code swapped."""
        changed = []
        for owner, key, value, code in self.entries:
            now = vars(owner).get(key, _MISSING)
            if now is not value and _torch_rewrap(now, value):
                continue
            if now is not value or (
                code is not None and getattr(now, "__code__", None) is not code
            ):
                changed.append(f"{getattr(owner, '__name__', owner)}.{key}")
        return changed


def _torch_rewrap(now: Any, value: Any) -> bool:
    """torch's own lazy re-wrapping (importing Dynamo wraps ``torch.manual_seed`` and
    ``nn.Module.__init__``): a function defined inside torch that wraps the original."""
    code = getattr(now, "__code__", None)
    if code is None or not code.co_filename.startswith(_TORCH_DIR):
        return False
    cells = [c.cell_contents for c in getattr(now, "__closure__", None) or ()]
    return getattr(now, "__wrapped__", None) is value or any(c is value for c in cells)
