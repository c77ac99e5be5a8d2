"""Check the project's Markdown: it describes the system, and its links lead somewhere.

Fails (exit 1, one line per problem) when

- a Markdown file narrates the order in which the project was built by work sessions
  ("the ninth session", "this session's run", "since the thirteenth session", ...): pages
  describe the system as it is; measurements carry their date and device instead;
- a relative link or image in a Markdown file points to a missing file or folder, or to a
  heading anchor the target page does not have (GitHub's anchors: the heading's text in lower
  case, punctuation dropped, spaces turned into '-', '-1', '-2' ... for repeats);
- README.md is larger than README_LIMIT bytes, or a reference page (docs/*.md) larger than
  PAGE_LIMIT bytes (the dated records under docs/results/ are exempt).

The files are the project's Markdown files as git lists them (tracked, and untracked ones that
are not ignored); outside a git checkout, every *.md below the root except tool folders.

    python scripts/check_docs.py [ROOT]
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

README_LIMIT = 6500
PAGE_LIMIT = 26000

ORDINALS = (
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    "thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth"
)
RELATIVE = "last|this|that|these|those|previous|next|later|earlier|same|GPU|CPU|device"
COUNTS = "two|three|four|five|six|seven|eight|nine|ten|several"
NARRATION = [
    re.compile(rf"\b(?:{ORDINALS}|{RELATIVE}|{COUNTS})\s+sessions?\b", re.I),
    re.compile(r"\bsessions?\s+(?:before|after|ago)\b", re.I),
    re.compile(rf"\b(?:{ORDINALS})\s+GPU\s+sessions?\b", re.I),
]

SKIP_DIRS = {".git", ".venv", "venv", "runs", "build", "out", "node_modules", "__pycache__"}
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files(root: Path) -> list[Path]:
    """The project's Markdown files, as paths below ``root``."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.md"],
            cwd=root, capture_output=True, check=True, timeout=30,
        ).stdout  # fmt: skip
        names = sorted({n for n in out.decode().split("\0") if n})
        return [root / n for n in names if (root / n).is_file()]
    except (OSError, subprocess.SubprocessError):
        pass
    found = []
    for path in sorted(root.rglob("*.md")):
        parts = path.relative_to(root).parts[:-1]
        if any(p in SKIP_DIRS or p.endswith(".egg-info") or p.startswith(".") for p in parts):
            continue
        found.append(path)
    return found


def prose_lines(text: str) -> list[tuple[int, str, bool]]:
    """Each line with its number and whether it lies inside a fenced code block."""
    lines, fence = [], ""
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m and (not fence or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
            lines.append((number, line, True))
            fence = "" if fence else m.group(1)
            continue
        lines.append((number, line, bool(fence)))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a page offers: its headings' slugs (repeats numbered) and HTML anchors."""
    seen: dict[str, int] = {}
    found = set(HTML_ANCHOR.findall(text))
    for _, line, code in prose_lines(text):
        m = None if code else HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(text: str) -> list[tuple[int, str]]:
    """Every link and image target outside code, with its line number."""
    found = []
    for number, line, code in prose_lines(text):
        if code:
            continue
        line = CODE_SPAN.sub("", line)
        found += [(number, m.group(2)) for m in LINK.finditer(line)]
    return found


def check_file(root: Path, path: Path, cache: dict[Path, set[str]]) -> list[str]:
    """The problems of one Markdown file."""
    rel = path.relative_to(root).as_posix()
    text = path.read_text(encoding="utf-8")
    problems = []
    for number, line, _ in prose_lines(text):
        for pattern in NARRATION:
            m = pattern.search(line)
            if m:
                problems.append(
                    f"{rel}:{number}: tells the project's history by work session "
                    f"({m.group(0)!r}); describe the system as it is, with dated measurements"
                )
                break
    for number, target in links(text):
        if SCHEME.match(target) or target.startswith("//"):
            continue
        where, _, anchor = target.partition("#")
        if where:
            base = root if where.startswith("/") else path.parent
            dest = (base / unquote(where.lstrip("/"))).resolve()
        else:
            dest = path.resolve()
        try:
            dest.relative_to(root.resolve())
        except ValueError:
            problems.append(f"{rel}:{number}: link {target!r} leaves the repository")
            continue
        if not dest.exists():
            problems.append(f"{rel}:{number}: link {target!r}: no such file or folder")
            continue
        if anchor and dest.suffix == ".md":
            if dest not in cache:
                cache[dest] = anchors(dest.read_text(encoding="utf-8"))
            if unquote(anchor) not in cache[dest]:
                problems.append(f"{rel}:{number}: link {target!r}: no heading with that anchor")
    size = len(text.encode("utf-8"))
    parts = path.relative_to(root).parts
    if rel == "README.md" and size > README_LIMIT:
        problems.append(f"{rel}: {size} bytes, over {README_LIMIT}: the front page stays short")
    if len(parts) == 2 and parts[0] == "docs" and size > PAGE_LIMIT:
        problems.append(f"{rel}: {size} bytes, over {PAGE_LIMIT}: split the page by subsystem")
    return problems


def check(root: Path) -> list[str]:
    """Every problem of the project's Markdown under ``root``."""
    root = root.resolve()
    cache: dict[Path, set[str]] = {}
    problems = []
    for path in markdown_files(root):
        problems += check_file(root, path, cache)
    return problems


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) in the project's Markdown (scripts/check_docs.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
