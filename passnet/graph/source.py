"""Thread-safe ``ast.parse``.

CPython 3.11 (seen on 3.11.7) tracks the recursion depth of the AST-to-object conversion in
state shared by all threads, so two threads parsing at once can fail with ``SystemError: AST
constructor recursion depth mismatch``. The agent loads samples and checks pass sources from
several threads, so every parse in passnet goes through one lock (parsing is fast; the lock
costs nothing measurable).
"""

from __future__ import annotations

import ast
import threading

_PARSE_LOCK = threading.Lock()


def parse_source(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``, serialised across threads."""
    with _PARSE_LOCK:
        return ast.parse(source, filename=filename)
