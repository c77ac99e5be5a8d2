"""``passnet serve``: a long-lived local evaluator that ``passnet eval --server URL`` sends to."""

from __future__ import annotations

from typing import Annotated

import typer

from passnet.cli.common import console, device_list
from passnet.cli.common import fail as _fail


def serve_cmd(
    device: Annotated[
        str, typer.Option(help="devices it evaluates on: cpu, cuda (every GPU), cuda:N, or a list")
    ] = "cpu",
    host: Annotated[
        str, typer.Option(help="address to listen on (the default serves this machine only)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port; 0 lets the system pick one")] = 8765,
    prewarm: Annotated[
        bool, typer.Option(help="start the pass workers' zygote now, not at the first request")
    ] = True,
) -> None:
    """Serve evaluations over HTTP until interrupted, workers kept warm between them."""
    from passnet.evaluation.evaluator import spare_stock
    from passnet.evaluation.sandbox import spare_workers
    from passnet.runner.service import EvaluatorService, make_server

    devices = device_list(device)
    try:
        server = make_server(EvaluatorService(devices, prewarm=prewarm), host, port)
    except OSError as exc:
        _fail(f"cannot listen on {host}:{port}: {exc}")
    bound_host, bound_port = server.server_address[:2]
    # one line a script can read: the URL to pass to `passnet eval --server`
    print(
        f"passnet evaluator on http://{bound_host}:{bound_port} ({', '.join(devices)})", flush=True
    )
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(f"[yellow]listening on {host}: anyone who reaches it can run pass code on "
                      "this machine (in the evaluator's sandbox)[/]")  # fmt: skip
    try:
        with spare_workers(spare_stock(devices)):  # warm spares kept between requests
            server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def register(app: typer.Typer) -> None:
    app.command("serve", epilog="Example: passnet serve --device cuda --port 8765")(serve_cmd)
