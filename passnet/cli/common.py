"""What every ``passnet`` subcommand shares: the consoles and the one error path."""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape

# Wide enough when piped that one-line messages and tables are not wrapped mid-path.
console = Console(width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)


class UserError(Exception):
    """A problem the user can fix; printed as one paragraph, no traceback."""


def fail(message: str) -> None:
    """One line on stderr (never wrapped, paths and brackets printed as they are), exit 2."""
    err.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code=2)
