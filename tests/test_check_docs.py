"""scripts/check_docs.py: the project's Markdown describes the system (no build-order
narration by work session) and its relative links and anchors lead somewhere."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def check_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_docs", ROOT / "scripts" / "check_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_projects_markdown_passes(check_docs: ModuleType) -> None:
    assert check_docs.check(ROOT) == []


def test_the_script_exits_1_and_names_each_problem(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("In the ninth session we added [x](missing.md).\n")
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_docs.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert run.returncode == 1
    assert "README.md:1: tells the project's history" in run.stdout
    assert "README.md:1: link 'missing.md': no such file" in run.stdout


@pytest.mark.parametrize(
    "line",
    [
        "Measured in the thirteenth session on the H100.",
        "Since the eighth session the lookups are fused.",
        "This session's device time ran out.",
        "(fifth session: attention layouts)",
        "Not yet measured in a later session.",
        "as in the previous sessions",
        "Not lent in four sessions.",
        "the GPU session before",
    ],
)
def test_build_order_narration_is_refused(
    check_docs: ModuleType, tmp_path: Path, line: str
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(f"# Page\n\n{line}\n")
    (problem,) = check_docs.check(tmp_path)
    assert problem.startswith("docs/page.md:3: tells the project's history"), problem


def test_sessions_as_a_term_and_dated_measurements_pass(
    check_docs: ModuleType, tmp_path: Path
) -> None:
    (tmp_path / "README.md").write_text(
        "Every invocation is a *session* row; sessions `killed` then `complete`.\n"
        "Measured on an NVIDIA H100 (2026-12-05): 4.19-4.64 s.\n"
    )
    assert check_docs.check(tmp_path) == []


def test_links_and_github_anchors(check_docs: ModuleType, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "results" / "raw").mkdir(parents=True)
    (docs / "target.md").write_text(
        "# Target page\n\n"
        "## The device lock and `--prepare-ahead`\n\n"
        "## Exploit class -> defence -> test\n\n"
        "## Notes\n\n## Notes\n\n"
        "```bash\n# not a heading\n```\n"
    )
    good = [
        "[a](docs/target.md)",
        "[b](docs/target.md#the-device-lock-and---prepare-ahead)",
        "[c](docs/target.md#exploit-class---defence---test)",
        "[d](docs/target.md#notes-1)",
        "[e](docs/results/raw/)",
        "[f](https://example.com/missing)",
        "[g](#readme)",
        "`[h](not/a/link.md)`",
    ]
    (tmp_path / "README.md").write_text("# README\n\n" + "\n".join(good) + "\n")
    assert check_docs.check(tmp_path) == []
    bad = [
        "[a](docs/nothing.md)",
        "[b](docs/target.md#no-such-heading)",
        "[c](docs/target.md#not-a-heading)",
        "[d](#elsewhere)",
        "[e](../outside.md)",
    ]
    (tmp_path / "README.md").write_text("# README\n\n" + "\n".join(bad) + "\n")
    problems = check_docs.check(tmp_path)
    assert [p.split(": link ")[1].split("'")[1] for p in problems] == [
        "docs/nothing.md",
        "docs/target.md#no-such-heading",
        "docs/target.md#not-a-heading",
        "#elsewhere",
        "../outside.md",
    ], problems


def test_page_sizes(check_docs: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "README.md").write_text("x" * (check_docs.README_LIMIT + 1))
    (tmp_path / "docs" / "big.md").write_text("x" * (check_docs.PAGE_LIMIT + 1))
    (tmp_path / "docs" / "results" / "record.md").write_text("x" * (check_docs.PAGE_LIMIT + 1))
    problems = check_docs.check(tmp_path)
    assert sorted(p.split(":")[0] for p in problems) == ["README.md", "docs/big.md"], problems
