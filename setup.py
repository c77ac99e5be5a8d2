"""The build hook that makes the wheel stand on its own: it ships ``examples/`` (the bundled
suite, the example task and pass, the pass library, the held-out tasks and the GraphNet
archives) as ``passnet/_data``, copied when the wheel is built so that git holds the files
once. Everything else is in pyproject.toml. A checkout and an editable install read
``examples/`` where it is (``passnet.core.bundled``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
EXAMPLES = ROOT / "examples"


def _ignored(folder: str, names: list[str]) -> list[str]:
    """Caches, hidden files and the repository's lint configuration stay out (the same rule as
    ``passnet.core.bundled._ignored``)."""
    del folder
    return [
        n
        for n in names
        if n.startswith(".") or n == "__pycache__" or n.endswith(".pyc") or n == "ruff.toml"
    ]


class BuildPyWithData(build_py):
    """``build_py``, then ``examples/`` copied to ``BUILD_LIB/passnet/_data``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads examples/
            return
        if not (EXAMPLES / "suite").is_dir():
            raise SystemExit(
                f"{EXAMPLES}/suite is missing: build the wheel from a checkout (or an sdist) "
                "that holds examples/, or the wheel would ship without its suite"
            )
        dest = Path(self.build_lib) / "passnet" / "_data"
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(EXAMPLES, dest, ignore=_ignored)


setup(cmdclass={"build_py": BuildPyWithData})
