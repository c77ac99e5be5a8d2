"""Whole-model acceleration: a pass library applied inside ``torch.compile`` on full models.

Sits above the passes and evaluation layers: ``library`` merges pass folders under one
conflict rule, ``customops`` makes replacements opaque to Inductor, ``backend`` is the
``torch.compile`` backend, ``models`` and ``run`` drive ``passnet accelerate`` (docs/accelerate.md).
Importing this package registers the named Dynamo backend ``"passnet"``.
"""

from __future__ import annotations

from passnet.accelerate.backend import PassnetBackend, backend, register_named
from passnet.accelerate.library import LibraryError, PassLibrary

register_named()

__all__ = ["LibraryError", "PassLibrary", "PassnetBackend", "backend"]
