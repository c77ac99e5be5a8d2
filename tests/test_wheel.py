"""The built wheel stands on its own (issue 40): installed into a fresh virtual environment,
its ``passnet`` benchmarks the bundled suite in an empty folder and copies the bundled data out.

The wheel is built from a copy of the source tree (the checkout's ``build/`` is never
touched); the fresh venv gets the test interpreter's packages (torch, triton, pydantic, ...)
through a ``.pth`` line, not ``--system-site-packages``, which would expose the base
interpreter's packages rather than this venv's, and no ``.pth`` file of those packages runs
there, so the editable install of the checkout stays invisible. Nothing is downloaded where
setuptools is installed (``passnet[dev]`` installs it).
"""

from __future__ import annotations

import os
import shutil
import site
import sqlite3
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
    "LICENSE",
    "passnet",
    "examples",
)
_JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", ".*", "*.egg-info", "build")


def _run(cmd: list[str | Path], cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    out = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, f"{cmd} exited {out.returncode}:\n{out.stdout}\n{out.stderr}"
    return out.stdout + out.stderr


def _offline_setuptools() -> bool:
    """setuptools >= 77 (pyproject.toml's build requirement) here: build without isolation."""
    try:
        return int(metadata.version("setuptools").split(".")[0]) >= 77
    except (metadata.PackageNotFoundError, ValueError):
        return False


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the source tree."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=_JUNK)
        else:
            shutil.copy2(path, src / name)
    isolation = ["--no-build-isolation"] if _offline_setuptools() else []
    env = _clean_env()
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w", base / "dist", src],
         cwd=base, env=env)  # fmt: skip
    (whl,) = (base / "dist").glob("passnet-*.whl")
    return whl


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed; this interpreter's packages visible to it."""
    env_dir = tmp_path_factory.mktemp("venv") / "venv"
    env = _clean_env()
    _run([sys.executable, "-m", "venv", "--without-pip", env_dir], cwd=env_dir.parent, env=env)
    purelib = sysconfig.get_path("purelib", vars={"base": str(env_dir), "platbase": str(env_dir)})
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    Path(purelib, "_passnet_test_outer.pth").write_text("".join(f"{p}\n" for p in ours))
    python = env_dir / "bin" / "python"
    _run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed",
          "--no-compile", "--disable-pip-version-check", wheel], cwd=env_dir.parent, env=env)  # fmt: skip
    return env_dir


def _clean_env(path_first: Path | None = None) -> dict[str, str]:
    """The environment without anything that points Python at the checkout."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))
    }
    if path_first is not None:
        env["PATH"] = f"{path_first}{os.pathsep}{env.get('PATH', '')}"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def test_the_wheel_holds_the_bundled_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for f in ("examples/suite/suite.json", "examples/graphnet_suite.tgz",
              "examples/passes/add_layer_norm/FuseAddLayerNorm.py",
              "examples/synth_passes/README.md"):  # fmt: skip
        assert "passnet/_data/" + f.removeprefix("examples/") in names, f
    tasks = sorted({n.split("/")[3] for n in names if n.startswith("passnet/_data/suite/")})
    assert len([t for t in tasks if t.startswith("fusible_")]) == 30
    assert any(n.startswith("passnet/agent/prompts/") for n in names)  # prompts
    assert any(n.startswith("passnet/passes/") and n.endswith(".c") for n in names)  # launcher
    assert not [n for n in names if "ruff" in n or "__pycache__" in n or "/." in n]
    assert wheel.stat().st_size < 8 * 2**20


def test_installed_passnet_benches_the_bundled_suite_in_an_empty_folder(
    venv: Path, tmp_path: Path
) -> None:
    """`pip install passnet && passnet bench ...` in an empty folder (the CI-sized form of
    the issue's `passnet bench -c eager,inductor --limit 5`)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    env = _clean_env(venv / "bin")
    where = _run([venv / "bin" / "python", "-c", "import passnet; print(passnet.__file__)"],
                 cwd=empty, env=env).strip()  # fmt: skip
    assert Path(where).resolve().is_relative_to(venv.resolve()), where
    out = _run(["passnet", "bench", "-c", "eager", "--limit", "2", "--device", "cpu"],
               cwd=empty, env=env, timeout=600)  # fmt: skip
    assert "eager" in out and "passnet report" in out, out
    with sqlite3.connect(empty / "runs" / "passnet.db") as db:
        ((suite, status),) = db.execute("SELECT suite, status FROM runs").fetchall()
    assert Path(suite).is_relative_to(venv.resolve()) and Path(suite).name == "suite", suite
    assert status == "complete", status
    assert sorted(p.name for p in empty.iterdir()) == ["runs"]


def test_installed_passnet_copies_its_data_out_and_names_the_fix(
    venv: Path, tmp_path: Path
) -> None:
    env = _clean_env(venv / "bin")
    listed = _run(["passnet", "data", "list"], cwd=tmp_path, env=env)
    assert "graphnet_suite" in listed and "installed package" in listed, listed
    missing = subprocess.run(["passnet", "eval", "examples/tasks/bert_add_layer_norm",
                              "--compiler", "eager"], cwd=tmp_path, env=env, capture_output=True,
                             text=True)  # fmt: skip
    assert missing.returncode == 2 and "passnet data get tasks" in missing.stderr, missing.stderr
    _run(["passnet", "data", "get", "tasks", "passes", "graphnet_suite"], cwd=tmp_path, env=env)
    assert (tmp_path / "examples/tasks/bert_add_layer_norm/graph_list.txt").is_file()
    assert (tmp_path / "examples/passes/add_layer_norm/FuseAddLayerNorm.py").is_file()
    assert len(list((tmp_path / "examples/graphnet_suite").glob("*/task.json"))) == 201
