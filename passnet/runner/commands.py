"""``passnet bench``, ``passnet runs`` and ``passnet export`` (registered by passnet.cli)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from passnet.runner.store import DEFAULT_STORE
from passnet.runner.suite import DEFAULT_SUITE

# In logs (not a terminal) rich would wrap tables at 80 columns; give them room instead.
console = Console(width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
STEAL_WARN = 0.02  # mean share of CPU time stolen by the hypervisor above which bench warns


def _fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code=2)


def _split(values: list[str] | None) -> tuple[str, ...]:
    return tuple(x.strip() for v in values or [] for x in v.split(",") if x.strip())


def _progress(total_label: str):  # noqa: ANN202 - (Progress, on_start, on_result)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err,
    )
    state: dict = {"task": None, "counts": {}}
    log_every = not err.is_terminal  # in CI logs, one line per result

    def on_start(plan, n: int) -> None:  # noqa: ANN001 - bench.Plan
        if n == 0:
            return
        progress.start()
        state["task"] = progress.add_task(total_label, total=n)

    def on_result(item, result) -> None:  # noqa: ANN001 - WorkItem, VariantResult | None
        status = result.status.value if result is not None else "harness error"
        counts = state["counts"]
        counts[status] = counts.get(status, 0) + 1
        desc = " ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        progress.update(state["task"], advance=1, description=f"{total_label} [{desc}]")
        if log_every or status != "ok":
            from passnet.reports.leaderboard import short_label

            speed = f" {result.speedup:.3f}x" if result is not None and result.speedup else ""
            where = f"{item.variant.variant.graph}"
            progress.console.print(
                f"[dim]{short_label(item.candidate.spec.label)}[/] {where}: {status}{speed}",
                soft_wrap=True,
                highlight=False,
            )

    return progress, on_start, on_result


def bench_cmd(
    suite: Annotated[
        Path | None,
        typer.Argument(help=f"suite folder (task folders), or one task (default: {DEFAULT_SUITE})"),
    ] = None,
    candidates: Annotated[
        list[str] | None,
        typer.Option(
            "--candidates", "-c", help="comma-separated: eager, inductor[:MODE], passes:DIR"
        ),
    ] = None,
    device: Annotated[str, typer.Option(help="cpu, cuda (every visible GPU) or cuda:N")] = "cpu",
    jobs: Annotated[
        int | None,
        typer.Option(help="concurrent measurements [CPU: 1; GPU: one per GPU, never more]"),
    ] = None,
    executor: Annotated[str, typer.Option(help="local (process pool) or ray")] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address (default: start a local one)")
    ] = None,
    store: Annotated[Path, typer.Option(help="results store (SQLite, WAL)")] = Path(DEFAULT_STORE),
    run: Annotated[
        str | None, typer.Option(help="run name (default: derived from suite/candidates/...)")
    ] = None,
    filter_: Annotated[
        list[str] | None,
        typer.Option("--filter", "-k", help="only tasks whose name matches a glob (repeatable)"),
    ] = None,
    limit: Annotated[int | None, typer.Option(help="only the first N tasks (sorted)")] = None,
    dtype: Annotated[
        list[str] | None,
        typer.Option(help="only variants of this dtype, e.g. float32 (repeatable)"),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="re-measure baselines even if cached")
    ] = False,
    b: Annotated[float, typer.Option(help="score of a failed subgraph (SPEC: 0.1)")] = 0.1,
    p: Annotated[float, typer.Option(help="slowdown penalty exponent (SPEC: 0)")] = 0.0,
    warmup: Annotated[
        int | None, typer.Option(help="untimed calls per side [GPU 25, CPU 10]")
    ] = None,
    trials: Annotated[
        int | None, typer.Option(help="timed calls per side [GPU 100, CPU 40]")
    ] = None,
    rounds: Annotated[int, typer.Option(help="interleaved measurement rounds")] = 4,
    timeout: Annotated[float, typer.Option(help="wall-clock limit per variant, seconds")] = 600.0,
    seed: Annotated[int | None, typer.Option(help="input seed (default: fresh random)")] = None,
    call_path: Annotated[str, typer.Option(help="direct (no Dynamo guards) or dynamo")] = "direct",
    cpu_threads: Annotated[
        int, typer.Option(help="intra-op threads of a CPU worker (0: torch's default)")
    ] = 1,
    report: Annotated[
        bool, typer.Option("--report/--no-report", help="print the leaderboard at the end")
    ] = True,
) -> None:
    """Run every task of SUITE for every candidate; rerun the same command to continue."""
    from passnet.dataset.task import TaskError
    from passnet.evaluation.candidates import CALL_PATHS
    from passnet.evaluation.results import default_parameters
    from passnet.runner.bench import BenchConfig, bench
    from passnet.runner.pool import ExecutorError, LocalPool
    from passnet.runner.store import Store, StoreError
    from passnet.runner.suite import SuiteError

    if call_path not in CALL_PATHS:
        _fail(f"unknown --call-path {call_path!r}; known: {', '.join(CALL_PATHS)}.")
    if executor not in ("local", "ray"):
        _fail(f"unknown --executor {executor!r}; known: local, ray.")
    params = default_parameters(
        device,
        b=b,
        p=p,
        warmup=warmup,
        trials=trials,
        rounds=rounds,
        timeout_s=timeout,
        seed=seed,
        call_path=call_path,
        cpu_threads=cpu_threads,
    )
    config = BenchConfig(
        suite=suite,
        candidates=_split(candidates) or ("eager", "inductor"),
        device=device,
        parameters=params,
        filters=_split(filter_),
        limit=limit,
        dtypes=_split(dtype),
        run=run,
        use_cache=not no_cache,
    )
    try:
        if executor == "ray":
            from passnet.runner.ray_executor import RayExecutor

            ex = RayExecutor(device, address)
        else:
            if address:
                _fail("--address is for --executor ray.")
            ex = LocalPool(device, jobs)
    except ExecutorError as exc:
        _fail(str(exc))
    progress, on_start, on_result = _progress("measuring")
    with Store(store) as st:
        try:
            summary = bench(config, st, ex, on_start=on_start, on_result=on_result)
        except (SuiteError, StoreError, TaskError, ValueError) as exc:
            _fail(str(exc))
        finally:
            progress.stop()
        console.print(
            f"run [bold]{summary.run_id}[/]: {summary.planned} items; "
            f"{summary.skipped} already done, {summary.cached} baselines from cache, "
            f"{summary.measured} measured, {summary.duplicates} duplicates; "
            f"{summary.wall_seconds:.1f} s",
            soft_wrap=True,
        )
        if phases := summary.phase_seconds:
            total = sum(phases.values())
            parts = ", ".join(f"{k} {v / total:.0%}" for k, v in phases.items())
            console.print(f"[dim]worker time {total:.1f} s: {parts}[/]", soft_wrap=True)
        if steal := summary.cpu_steal:
            mean = sum(steal) / len(steal)
            line = f"host CPU steal while evaluating: mean {mean:.1%}, max {max(steal):.1%}"
            if mean > STEAL_WARN:
                err.print(f"[yellow]{line}: a shared host was busy; compare these timings "
                          "only with others of this run[/]", soft_wrap=True)  # fmt: skip
            else:
                console.print(f"[dim]{line}[/]", soft_wrap=True)
        for e in summary.errors:
            err.print(f"[red]harness error (not stored, rerun to retry):[/] {e}", soft_wrap=True)
        if summary.interrupted:
            err.print("[yellow]interrupted[/]: rerun the same command to continue.")
            raise typer.Exit(code=130)
        if report:
            from passnet.reports import build_leaderboard, print_leaderboard

            print_leaderboard(build_leaderboard(st, [summary.run_id]), console)
            console.print(f"[dim]passnet report {summary.run_id} --store {store}[/]")
    if summary.errors:
        raise typer.Exit(code=1)


def runs_cmd(
    store: Annotated[Path, typer.Option(help="results store (SQLite)")] = Path(DEFAULT_STORE),
) -> None:
    """List the runs in a results store."""
    from rich.table import Table

    from passnet.runner.store import Store

    if not store.is_file():
        _fail(f"no results store at {store}.")
    with Store(store) as st:
        table = Table(title=str(store))
        for col in ("run", "suite", "device", "candidates", "done", "status"):
            table.add_column(col, overflow="fold")
        for r in st.runs():
            cands = ", ".join(c["label"] for c in st.run_candidates(r["run_id"]))
            table.add_row(
                r["run_id"],
                Path(r["suite"]).name,
                r["device"],
                cands,
                f"{r['done']}/{r['planned']}",
                r["status"],
            )
        console.print(table)


def export_cmd(
    runs: Annotated[list[str], typer.Argument(help="run ids, unique prefixes or 'latest'")],
    out: Annotated[Path, typer.Option(help="output file (.json or .parquet)")],
    store: Annotated[Path, typer.Option(help="results store (SQLite)")] = Path(DEFAULT_STORE),
) -> None:
    """Export runs to JSON (everything, nested) or Parquet (one row per measurement)."""
    from passnet.runner.export import export_json, export_parquet
    from passnet.runner.store import Store, StoreError

    if out.suffix not in (".json", ".parquet"):
        _fail(f"--out {out}: use a .json or .parquet file name.")
    if not store.is_file():
        _fail(f"no results store at {store}.")
    with Store(store) as st:
        try:
            ids = [st.resolve_run(r) for r in runs]
        except StoreError as exc:
            _fail(str(exc))
        (export_json if out.suffix == ".json" else export_parquet)(st, ids, out)
    console.print(f"wrote {out}")


def register(app: typer.Typer) -> None:
    app.command("bench")(bench_cmd)
    app.command("runs")(runs_cmd)
    app.command("export")(export_cmd)
