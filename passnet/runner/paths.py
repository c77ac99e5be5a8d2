"""Output paths checked before the work that fills them, and a fallback when writing fails.

An evaluation takes minutes to hours; finding out afterwards that ``--json`` or ``--out``
cannot be written would lose it. So commands probe their outputs first (creating the parent
folder, opening the file for append) and, if the final write fails anyway, save the text
where it can be written and say where.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def blocking_file(folder: Path) -> Path | None:
    """The existing non-folder that keeps ``folder`` from being created, if any (``mkdir``
    would only say "File exists" or "Not a directory")."""
    for p in (folder, *folder.parents):
        if p.exists():
            return None if p.is_dir() else p
    return None


def mkdir_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot be created (None once it exists)."""
    if block := blocking_file(folder):
        return f"{block} is a file, not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _reason(exc)
    return None


def file_problem(path: Path, option: str) -> str | None:
    """Why ``path`` cannot be written as an output file (None if it can). Creates its parent
    folder; leaves no file behind that was not there before."""
    if path.is_dir():
        return f"{option} {path} is a folder; give a file name"
    if why := mkdir_problem(path.parent):
        return f"cannot write {option} {path}: {why}"
    existed = path.exists()
    try:
        with open(path, "a"):
            pass
        if not existed:
            path.unlink()
    except OSError as exc:
        return f"cannot write {option} {path}: {_reason(exc)}"
    return None


def folder_problem(path: Path, option: str) -> str | None:
    """Why files cannot be written into the folder ``path`` (None if they can); creates it."""
    if why := mkdir_problem(path):
        return f"cannot write into {option} {path}: {why}"
    try:
        fd, probe = tempfile.mkstemp(prefix=".passnet-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"cannot write into {option} {path}: {_reason(exc)}"
    return None


def write_with_fallback(path: Path, text: str, prefix: str) -> tuple[Path, str] | None:
    """Write ``text`` to ``path``; if that fails, to a new file in the temporary folder:
    returns (that file, why ``path`` failed), None when ``path`` was written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return None
    except OSError as exc:
        reason = _reason(exc)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    fd, name = tempfile.mkstemp(prefix=f"{prefix}-{stamp}-", suffix=path.suffix or ".json")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return Path(name), reason
