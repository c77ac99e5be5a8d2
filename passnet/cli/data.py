"""``passnet data list | get``: the data that ships with passnet (``passnet.core.bundled``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from passnet.cli.common import console
from passnet.cli.common import fail as _fail
from passnet.core import bundled

data_app = typer.Typer(
    name="data",
    help="List the data that ships with passnet, or copy it out (suites, example task and "
    "pass, pass library).",
    epilog="Example: passnet data get suite synth_passes",
    no_args_is_help=True,
)


@data_app.command("list", epilog="Example: passnet data list")
def list_cmd() -> None:
    """List the bundled suites, example task and pass and pass library, with their sizes.

    passnet bench runs the bundled suite when no SUITE is given; `passnet data get NAME`
    copies one out (into ./examples, archives unpacked).
    """
    table = Table(title=f"bundled data: {escape(bundled.describe_root())}", title_justify="left")
    for col in ("name", "what", "size", "shipped as"):
        table.add_column(col, overflow="fold")
    for it in bundled.ITEMS:
        n = bundled.size(it.name)
        shipped = it.archive or f"{it.name}/"
        table.add_row(it.name, it.what, _human(n), shipped)
    console.print(table)


def _human(n: int) -> str:
    if not n:
        return "-"
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


@data_app.command("get", epilog="Example: passnet data get graphnet_suite --out /tmp")
def get_cmd(
    names: Annotated[
        list[str] | None,
        typer.Argument(
            help="what to copy (`passnet data list`; default: "
            + " ".join(bundled.DEFAULT_GET)
            + ")",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path, typer.Option(help="folder that receives OUT/NAME for each NAME")
    ] = bundled.LOCAL,
    force: Annotated[
        bool, typer.Option("--force", help="replace a folder OUT/NAME that is already there")
    ] = False,
) -> None:
    """Copy bundled data into OUT (./examples): folders as they are, archives unpacked.

    With the defaults, the examples/ folders the README names are there in the current folder, e.g.
    `passnet bench examples/suite -c eager,library:examples/synth_passes`. The larger GraphNet
    suites are archives, written only when named (graphnet_suite, graphnet_train). A folder that
    is already there is kept unless --force.
    """
    try:
        items = [bundled.item(n) for n in names or bundled.DEFAULT_GET]
    except bundled.BundledError as exc:
        _fail(f"{exc} `passnet data list` shows them.")
    for it in items:
        try:
            dest, status = bundled.get(it.name, out, force=force)
        except bundled.BundledError as exc:
            _fail(str(exc))
        note = {
            "written": "wrote",
            "replaced": "replaced",
            "kept": "kept (already there; --force replaces it)",
            "bundled": "kept (it is the bundled copy itself)",
        }[status]
        console.print(f"{note} [bold]{escape(str(dest))}[/]", soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(data_app, name="data")
