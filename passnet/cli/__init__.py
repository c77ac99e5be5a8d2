"""The ``passnet`` command line: a thin layer over the library, one module per command group
(errors for humans in ``passnet.cli.common``). The top layer: it may import every subpackage,
and none imports it."""

from __future__ import annotations

import os
import sys

import typer

app = typer.Typer(
    name="passnet",
    help="Evaluate LLM-written compiler passes and compilers for PyTorch on PassBench tasks.",
    epilog="Example: passnet bench -c eager,inductor --limit 5",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """PassNet: evaluate compiler passes and compilers on PassBench tasks."""


# Each module has ``register(app)`` and imports its heavy dependencies lazily; one whose
# optional dependencies are missing in a partial install is left out.
_SUBCOMMAND_MODULES = (
    "passnet.cli.evaluate",
    "passnet.cli.serve",
    "passnet.cli.bench",
    "passnet.cli.data",
    "passnet.cli.reports",
    "passnet.cli.agent",
    "passnet.cli.dataset",
    "passnet.cli.synth",
    "passnet.cli.accelerate",
    "passnet.cli.train",
)
# Optional third-party packages whose absence leaves a module out (its ``ModuleNotFoundError``
# names them); any other missing module is a broken install and is raised.
_OPTIONAL = {"passnet.cli.train": ("trl",)}


def _register_subcommands() -> None:
    import importlib

    for name in _SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            optional = exc.name in _OPTIONAL.get(name, ())
            if exc.name is None or not (optional or name.startswith(exc.name)):
                raise
            continue
        module.register(app)


_register_subcommands()


def main() -> None:
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(app())
