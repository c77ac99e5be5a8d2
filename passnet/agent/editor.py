"""The model's file editor, confined to one pass folder.

Paths are relative to the folder (a leading ``pass_dir/`` or ``/pass_dir/`` is accepted, as
upstream prompts name the folder so). A path that leaves the folder — ``..``, an absolute
path elsewhere, or any symbolic link on the way, even one pointing inside — is refused with
an :class:`EditorError` whose message goes back to the model.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

MAX_FILE_BYTES = 256 * 1024
MAX_FILES = 64
MAX_VIEW_CHARS = 20000
SNIPPET_LINES = 4


class EditorError(Exception):
    """A recoverable problem with an edit; the message tells the model what to do."""


def _numbered(lines: list[str], start: int) -> str:
    return "\n".join(f"{i:6d}\t{line}" for i, line in enumerate(lines, start=start))


def _clip(text: str) -> str:
    if len(text) <= MAX_VIEW_CHARS:
        return text
    return text[:MAX_VIEW_CHARS] + "\n... [output clipped; use view_range to see the rest]"


class PassFolderEditor:
    """``view``, ``create``, ``str_replace`` and ``insert`` inside ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()

    def resolve(self, path: str | None) -> Path:
        """The absolute path of ``path`` inside the folder, or an EditorError."""
        text = (path or ".").strip() or "."
        for prefix in ("/pass_dir", "pass_dir"):
            if text == prefix or text.startswith(prefix + "/"):
                text = text[len(prefix) :].lstrip("/") or "."
                break
        if text.startswith("/"):
            normal = Path(os.path.normpath(text))
            if not normal.is_relative_to(self.root):
                raise EditorError(
                    f"{path}: outside the pass folder; use a path relative to it, e.g. 'FusedOp.py'"
                )
            text = normal.relative_to(self.root).as_posix()
        rel = PurePosixPath(text)
        if ".." in rel.parts:
            raise EditorError(f"{path}: '..' is not allowed; the editor only sees the pass folder")
        current = self.root
        for part in rel.parts:
            if part == ".":
                continue
            current = current / part
            if current.is_symlink():
                raise EditorError(f"{path}: is a symbolic link; the editor does not follow links")
        resolved = current.resolve()
        if not resolved.is_relative_to(self.root):
            raise EditorError(f"{path}: outside the pass folder")
        return resolved

    def _rel(self, p: Path) -> str:
        return p.relative_to(self.root).as_posix() or "."

    def view(self, path: str | None, view_range: list[int] | None = None) -> str:
        target = self.resolve(path)
        if target.is_dir():
            files = [
                f"{self._rel(p)} ({p.stat().st_size} bytes)"
                for p in sorted(target.rglob("*"))
                if p.is_file() and "__pycache__" not in p.parts
            ]
            if not files:
                return f"{self._rel(target)}/ is empty"
            return f"files in {self._rel(target)}/:\n" + "\n".join(files)
        if not target.is_file():
            raise EditorError(f"{path}: no such file (view '.' lists the folder)")
        lines = self._read(target).split("\n")
        start, end = 1, len(lines)
        if view_range:
            if len(view_range) != 2 or not all(isinstance(x, int) for x in view_range):
                raise EditorError("view_range must be two integers [start, end] (end -1 = EOF)")
            start, end = view_range[0], view_range[1] if view_range[1] != -1 else len(lines)
            if not 1 <= start <= max(end, 1) or end > len(lines):
                raise EditorError(f"view_range {view_range} is outside lines 1..{len(lines)}")
        body = _numbered(lines[start - 1 : end], start)
        return _clip(f"{self._rel(target)} (lines {start}-{end} of {len(lines)}):\n{body}")

    def _read(self, target: Path) -> str:
        try:
            return target.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise EditorError(f"{self._rel(target)}: not a UTF-8 text file") from exc

    def _write(self, target: Path, text: str) -> None:
        if len(text.encode()) > MAX_FILE_BYTES:
            raise EditorError(f"file too large (limit {MAX_FILE_BYTES // 1024} KiB)")
        if not target.exists():
            count = sum(1 for p in self.root.rglob("*") if p.is_file())
            if count >= MAX_FILES:
                raise EditorError(f"the pass folder already holds {MAX_FILES} files")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def _snippet(self, target: Path, first: int, last: int) -> str:
        lines = self._read(target).split("\n")
        lo, hi = max(1, first - SNIPPET_LINES), min(len(lines), last + SNIPPET_LINES)
        return _numbered(lines[lo - 1 : hi], lo)

    def create(self, path: str | None, file_text: str) -> str:
        if not path or path.strip() in (".", ""):
            raise EditorError("create needs a file path, e.g. 'FusedOp.py'")
        target = self.resolve(path)
        if target.is_dir():
            raise EditorError(f"{path}: is a folder")
        existed = target.exists()
        self._write(target, file_text)
        n = file_text.count("\n") + (0 if file_text.endswith("\n") else 1)
        verb = "overwrote" if existed else "created"
        return f"{verb} {self._rel(target)} ({n} lines)"

    def str_replace(self, path: str | None, old_str: str, new_str: str) -> str:
        target = self._existing(path)
        text = self._read(target)
        count = text.count(old_str) if old_str else 0
        if not old_str:
            raise EditorError("old_str must not be empty")
        if count == 0:
            raise EditorError(
                f"old_str not found in {self._rel(target)}; view the file and copy the exact "
                "text (whitespace included)"
            )
        if count > 1:
            at, lines, pos = [], [], -1
            while (pos := text.find(old_str, pos + 1)) != -1:
                at.append(text.count("\n", 0, pos) + 1)
            lines = ", ".join(map(str, at[:10]))
            raise EditorError(
                f"old_str occurs {count} times in {self._rel(target)} (lines {lines}); include "
                "more surrounding text so it is unique"
            )
        first = text.count("\n", 0, text.find(old_str)) + 1
        self._write(target, text.replace(old_str, new_str, 1))
        last = first + new_str.count("\n")
        return f"edited {self._rel(target)}:\n{self._snippet(target, first, last)}"

    def insert(self, path: str | None, insert_line: int, new_str: str) -> str:
        target = self._existing(path)
        lines = self._read(target).split("\n")
        if not isinstance(insert_line, int) or not 0 <= insert_line <= len(lines):
            raise EditorError(f"insert_line must be in 0..{len(lines)} (0 inserts at the top)")
        new_lines = new_str.split("\n")
        lines[insert_line:insert_line] = new_lines
        self._write(target, "\n".join(lines))
        first = insert_line + 1
        snippet = self._snippet(target, first, first + len(new_lines) - 1)
        return f"inserted {len(new_lines)} line(s) into {self._rel(target)}:\n{snippet}"

    def _existing(self, path: str | None) -> Path:
        target = self.resolve(path)
        if not target.is_file():
            raise EditorError(f"{path}: no such file (create it first)")
        return target
