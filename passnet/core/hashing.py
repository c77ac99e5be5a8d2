"""Content ids: short SHA-256 digests and the canonical JSON they are taken over.

Every id in a suite and in the results store (tasks, variants, parameters, environments,
candidates) is made here, so that two places never hash the same thing two ways.
"""

from __future__ import annotations

import hashlib
import json


def digest(*parts: str | bytes, n: int = 16) -> str:
    """Short SHA-256 over parts separated by NUL (ids and cache keys)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:n]


def canonical_json(obj: object) -> str:
    """JSON with sorted keys and no spaces: equal content, equal text, equal digest."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
