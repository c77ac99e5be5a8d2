"""The data that ships with passnet (``passnet.core.bundled``, ``passnet data``) and the
``--help`` of every command (issue 40). The installed wheel itself: tests/test_wheel.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from passnet.cli import app
from passnet.core import bundled
from passnet.dataset.suite import SuiteError, load_suite, resolve_suite_path

ROOT = Path(__file__).resolve().parents[1]


def test_a_checkout_reads_its_examples_folder() -> None:
    assert bundled.data_root() == ROOT / "examples"
    assert bundled.bundled_path("passes/add_layer_norm") == ROOT / "examples/passes/add_layer_norm"
    assert bundled.bundled_path("nothing") is None


def test_the_default_suite_is_the_working_directorys_else_the_bundled_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_suite_path(None) == ROOT / "examples" / "suite"
    (tmp_path / "examples" / "suite").mkdir(parents=True)
    assert resolve_suite_path(None) == tmp_path / "examples" / "suite"


def test_no_suite_and_nothing_bundled_names_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bundled, "data_root", lambda: None)
    with pytest.raises(SuiteError, match="give a suite folder, or reinstall passnet"):
        load_suite(None)


@pytest.mark.parametrize(
    ("path", "hint"),
    [
        ("examples/suite", "passnet data get suite`"),
        ("examples/passes/add_layer_norm", "passnet data get passes`"),
        ("examples/tasks/bert_add_layer_norm", "passnet data get tasks`"),
        ("/tmp/graphnet_suite", "passnet data get graphnet_suite --out /tmp`"),
        ("elsewhere/synth_passes", "passnet data get synth_passes --out elsewhere`"),
        ("examples/passes/not_bundled", None),
        ("examples/graphnet_suite/some_task", None),
        ("my_suite", None),
    ],
)
def test_a_missing_folder_names_the_command_that_writes_it(path: str, hint: str | None) -> None:
    got = bundled.missing_hint(path)
    assert (hint in got) if hint else got == "", got


def test_get_copies_folders_and_unpacks_archives(tmp_path: Path) -> None:
    out = tmp_path / "ex"
    dest, status = bundled.get("passes", out)
    assert status == "written" and (dest / "add_layer_norm" / "FuseAddLayerNorm.py").is_file()
    assert bundled.get("passes", out) == (dest, "kept")
    (dest / "mine.txt").write_text("x")
    assert bundled.get("passes", out, force=True) == (dest, "replaced")
    assert not (dest / "mine.txt").exists()
    dest, status = bundled.get("graphnet_train", out)
    assert status == "written" and any(dest.glob("*/task.json"))
    suite, _ = bundled.get("suite", out)
    assert not (suite / "ruff.toml").exists() and not list(suite.rglob("__pycache__"))
    # the checkout's own examples/ is never replaced by itself
    assert bundled.get("suite", ROOT / "examples", force=True)[1] == "bundled"
    with pytest.raises(bundled.BundledError, match="known: suite"):
        bundled.get("nope", out)


def test_data_get_writes_into_examples_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["data", "get", "tasks", "passes"], terminal_width=200)
    assert res.exit_code == 0, res.output
    assert "wrote examples/tasks" in res.output
    assert (tmp_path / "examples/tasks/bert_add_layer_norm/graph_list.txt").is_file()
    res = CliRunner().invoke(app, ["data", "get", "passes"], terminal_width=200)
    assert res.exit_code == 0 and "kept (already there; --force replaces it)" in res.output
    res = CliRunner().invoke(app, ["data", "get", "nope"], terminal_width=200)
    assert res.exit_code == 2 and "passnet data list" in res.output, res.output
    res = CliRunner().invoke(app, ["data", "list"], terminal_width=200)
    assert res.exit_code == 0 and "graphnet_suite.tgz" in res.output, res.output


def test_bench_names_the_fix_for_a_missing_bundled_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["bench", "examples/suite", "--store", "x.db"],
                             terminal_width=300)  # fmt: skip
    assert res.exit_code == 2 and "`passnet data get suite` writes" in res.output, res.output
    res = CliRunner().invoke(app, ["bench", "-c", "library:examples/synth_passes", "--limit",
                                   "1", "--store", "x.db"], terminal_width=300)  # fmt: skip
    assert res.exit_code == 2 and "`passnet data get synth_passes` writes" in res.output


def _commands(cmd: Any, path: tuple[str, ...] = ()) -> list[tuple[str, Any]]:
    """(``passnet ...``, command) for the app and every command and group below it."""
    out = [(" ".join(("passnet", *path)), cmd)]
    if hasattr(cmd, "commands"):  # a group (typer bundles its own click)
        for name, sub in sorted(cmd.commands.items()):
            out += _commands(sub, (*path, name))
    return out


def test_every_help_says_what_it_does_first_and_ends_with_an_example() -> None:
    """First paragraph one line that starts with a verb-like capital; last: `Example: ...`."""
    commands = _commands(typer.main.get_command(app))
    assert len(commands) > 20
    for name, cmd in commands:
        text = (cmd.help or "").strip()
        first = text.split("\n\n")[0]
        assert first and "\n" not in first and first[0].isupper(), (name, first)
        epilog = (cmd.epilog or "").strip()
        assert epilog.startswith("Example: " + name), (name, epilog)
        assert "\n" not in epilog, (name, epilog)
        shown = CliRunner().invoke(app, [*name.split()[1:], "--help"])
        assert shown.exit_code == 0, (name, shown.output)
        words = shown.output.split()  # the help as shown ends with the example (maybe wrapped)
        assert words[-len(epilog.split()) :] == epilog.split(), (name, shown.output)
