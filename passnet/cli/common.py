"""What every ``passnet`` subcommand shares: the consoles, the one error path and the checks
of options several commands take (each exits 2 through it)."""

from __future__ import annotations

import sys
from pathlib import Path

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


def check_device(device: str) -> None:
    """``cpu``, or ``cuda[:N]`` when PyTorch sees a GPU; else exit 2 before any work starts."""
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            fail("--device cuda asked for, but PyTorch sees no CUDA GPU; use --device cpu.")
    elif device != "cpu":
        fail(f"unknown --device {device!r}; use cpu or cuda[:N].")


def device_list(device: str) -> list[str]:
    """``--device`` as the devices evaluations run on, one measurement at a time each: a
    comma-separated list, ``cuda`` meaning every GPU; an unknown or absent device exits 2."""
    from passnet.evaluation.devices import ExecutorError, device_slots

    devices: list[str] = []
    try:
        for d in (x.strip() for x in device.split(",") if x.strip()):
            devices += [s for s in device_slots(d) if s not in devices]
    except ExecutorError as exc:
        fail(f"{exc}.")
    return devices or ["cpu"]


def check_call_path(call_path: str, device: str) -> None:
    """A known ``--call-path``, and CUDA graphs only on a CUDA device; else exit 2."""
    from passnet.core.results import CALL_PATHS

    if call_path not in CALL_PATHS:
        fail(f"unknown --call-path {call_path!r}; known: {', '.join(CALL_PATHS)}.")
    if call_path == "cudagraph" and not device.startswith("cuda"):
        fail("--call-path cudagraph captures CUDA graphs: it needs --device cuda.")


def check_out_file(path: Path | None, option: str) -> None:
    """Exit 2 now if ``path`` (when given) cannot be written, not after the work it would hold."""
    if path is None:
        return
    from passnet.runner.paths import file_problem

    if problem := file_problem(path, option):
        fail(problem)
