"""``passnet bench``, ``passnet runs`` and ``passnet export`` (registered by passnet.cli)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from passnet.cli.common import check_call_path
from passnet.cli.common import fail as _fail
from passnet.cli.options import (
    CallPath,
    CiTarget,
    CpuThreads,
    MaxTrials,
    PrepareAhead,
    ResultsStore,
    Rounds,
    ScoreB,
    ScoreP,
    Seed,
    Timeout,
    Trials,
    Warmup,
)
from passnet.dataset import DEFAULT_SUITE
from passnet.evaluation.compile_stats import triton_line
from passnet.runner.store import DEFAULT_STORE

if TYPE_CHECKING:
    from passnet.runner.bench import BenchConfig, BenchSummary, Executor
    from passnet.runner.store import Store
    from passnet.synth.driver import SynthResult

# In logs (not a terminal) rich would wrap tables at 80 columns; give them room instead.
console = Console(width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
STEAL_WARN = 0.02  # mean share of CPU time stolen by the hypervisor above which bench warns
NOISY_WARN = 0.5  # share of timed items still noisy after re-runs above which bench warns


def _open_store(path: Path, *, readonly: bool = False):  # noqa: ANN202 - Store (lazy import)
    """The store, or a one-line error before any work starts."""
    from passnet.runner.store import Store, StoreError

    try:
        return Store(path, readonly=readonly)
    except StoreError as exc:
        _fail(str(exc))


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
                f"[dim]{short_label(item.candidate.label)}[/] {where}: {status}{speed}",
                soft_wrap=True,
                highlight=False,
            )

    def on_retry(item, result, attempt: int) -> None:  # noqa: ANN001 - WorkItem, VariantResult
        progress.update(state["task"], total=progress.tasks[0].total + 1, advance=1)
        from passnet.reports.leaderboard import short_label

        progress.console.print(
            f"[dim]{short_label(item.candidate.label)}[/] {item.variant.variant.graph}: "
            f"{result.status.value}, retry {attempt} (attempt kept in the store)",
            soft_wrap=True,
            highlight=False,
        )

    return progress, on_start, on_result, on_retry


# Options of ``bench`` whose help would crowd its signature.
Suite = Annotated[
    Path | None,
    typer.Argument(
        help="suite folder (task folders), or one task (default: ./"
        f"{DEFAULT_SUITE} where there is one, else the bundled suite: `passnet data list`)",
        show_default=False,
    ),
]
Candidates = Annotated[
    list[str] | None,
    typer.Option(
        "--candidates",
        "-c",
        help="comma-separated: eager, inductor[:MODE], passes:DIR, synth (a pass per task "
        "from passnet synth, cached beside the store)",
    ),
]
Jobs = Annotated[
    int | None,
    typer.Option(help="concurrent measurements [CPU: 1; GPU: one per GPU, never more]"),
]
Address = Annotated[
    str | None, typer.Option(help="Ray cluster address (default: start a local one)")
]
RunName = Annotated[
    str | None, typer.Option(help="run name (default: derived from suite/candidates/...)")
]
TaskFilter = Annotated[
    list[str] | None,
    typer.Option("--filter", "-k", help="only tasks whose name matches a glob (repeatable)"),
]
DtypeFilter = Annotated[
    list[str] | None,
    typer.Option(help="only variants of this dtype, e.g. float32 (repeatable)"),
]
NoCache = Annotated[bool, typer.Option("--no-cache", help="re-measure baselines even if cached")]
Retries = Annotated[int, typer.Option(help="retries of an item whose worker crashed or timed out")]
RerunFailed = Annotated[
    bool,
    typer.Option(
        "--rerun-failed", help="re-measure the run's crash and timeout results (see below)"
    ),
]
RerunStatus = Annotated[
    list[str] | None,
    typer.Option(help="statuses --rerun-failed re-measures (default: crash,timeout)"),
]
Report = Annotated[
    bool, typer.Option("--report/--no-report", help="print the leaderboard at the end")
]


def bench_cmd(
    suite: Suite = None,
    candidates: Candidates = None,
    device: Annotated[str, typer.Option(help="cpu, cuda (every visible GPU) or cuda:N")] = "cpu",
    jobs: Jobs = None,
    prepare_ahead: PrepareAhead = None,
    executor: Annotated[str, typer.Option(help="local (process pool) or ray")] = "local",
    address: Address = None,
    pin_cpus: Annotated[
        bool,
        typer.Option(
            "--pin-cpus/--no-pin-cpus",
            help="local executor: each slot's workers on cores of their own, and on a GPU two "
            "cores kept for the worker that times (docs/workers.md)",
        ),
    ] = True,  # fmt: skip
    store: Annotated[Path, typer.Option(help="results store (SQLite, WAL)")] = Path(DEFAULT_STORE),
    run: RunName = None,
    filter_: TaskFilter = None,
    limit: Annotated[int | None, typer.Option(help="only the first N tasks (sorted)")] = None,
    dtype: DtypeFilter = None,
    no_cache: NoCache = False,
    retries: Retries = 2,
    rerun_failed: RerunFailed = False,
    rerun_status: RerunStatus = None,
    b: ScoreB = 0.1,
    p: ScoreP = 0.0,
    warmup: Warmup = None,
    trials: Trials = None,
    rounds: Rounds = 4,
    ci_target: CiTarget = None,
    max_trials: MaxTrials = None,
    timeout: Timeout = 600.0,
    seed: Seed = None,
    call_path: CallPath = "direct",
    cpu_threads: CpuThreads = 1,
    report: Report = True,
) -> None:
    """Run every task of SUITE for every candidate; rerun the same command to continue.

    With --rerun-failed, the same command re-measures the run's items that ended as crash or
    timeout (--rerun-status picks other statuses), replacing their results; the results set
    aside stay in the store as earlier attempts.
    """
    from passnet.core.results import default_parameters
    from passnet.runner.bench import BenchConfig

    rerun = _check_options(call_path, device, executor, retries, rerun_failed, rerun_status)
    params = default_parameters(
        device,
        b=b,
        p=p,
        warmup=warmup,
        trials=trials,
        rounds=rounds,
        ci_target=ci_target,
        max_trials=max_trials,
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
        retries=retries,
        rerun=rerun,
        synth_workers=prepare_ahead or _synth_workers(device, executor),
    )
    st = _open_store(store)  # an unusable store fails here, before any worker starts
    ex = _executor(st, executor, device, jobs, prepare_ahead, address, pin_cpus)
    with st:
        summary = _measure(config, st, ex, store)
        _finish(summary, st, store, report)
    if summary.errors:
        raise typer.Exit(code=1)


def _check_options(
    call_path: str,
    device: str,
    executor: str,
    retries: int,
    rerun_failed: bool,
    rerun_status: list[str] | None,
) -> tuple[str, ...]:
    """Exit 2 on an unusable option before the store opens; the statuses --rerun-failed
    re-measures (none without it)."""
    from passnet.runner.bench import check_rerun
    from passnet.runner.store import RETRY_STATUSES

    check_call_path(call_path, device)
    if executor not in ("local", "ray"):
        _fail(f"unknown --executor {executor!r}; known: local, ray.")
    if retries < 0:
        _fail(f"--retries must be at least 0, got {retries}.")
    if rerun_status and not rerun_failed:
        _fail("--rerun-status goes with --rerun-failed.")
    try:
        return check_rerun(_split(rerun_status) or RETRY_STATUSES) if rerun_failed else ()
    except ValueError as exc:
        _fail(str(exc))


def _measure(config: BenchConfig, st: Store, ex: Executor, store: Path) -> BenchSummary:
    """The run, with a progress bar; exit 2 on an error that stops it (what was committed stays)."""
    from passnet.dataset.suite import SuiteError
    from passnet.dataset.task import TaskError
    from passnet.runner.bench import bench
    from passnet.runner.store import StoreError

    progress, on_start, on_result, on_retry = _progress("measuring")
    try:
        return bench(
            config,
            st,
            ex,
            on_start=on_start,
            on_result=on_result,
            on_retry=on_retry,
            on_synth=_on_synth,
        )
    except (SuiteError, StoreError, TaskError, ValueError) as exc:
        _fail(str(exc))
    except sqlite3.Error as exc:  # e.g. the file damaged while running
        _fail(f"store {store}: {exc} (results committed before this are kept)")
    finally:
        progress.stop()


def _on_synth(task: str, r: SynthResult) -> None:
    """One line per task the synth candidate has synthesised a pass for (or skipped)."""
    why = f": {r.reason}" if r.reason else ""
    colour = "green" if r.status == "written" else "yellow"
    err.print(f"[dim]synth[/] {task}: [{colour}]{r.status}[/]{escape(why)}", soft_wrap=True)


def _finish(summary: BenchSummary, st: Store, store: Path, report: bool) -> None:
    """The summary, the leaderboard (not if interrupted), then the run's outliers; exit 130
    if interrupted (a rerun continues)."""
    _print_summary(summary, st)
    if summary.interrupted:
        err.print("[yellow]interrupted[/]: rerun the same command to continue.")
    elif report:
        from passnet.reports import build_leaderboard, print_leaderboard

        print_leaderboard(build_leaderboard(st, [summary.run_id]), console)
        console.print(f"[dim]passnet report {summary.run_id} --store {store}[/]")
    _print_outliers(summary)
    if summary.interrupted:
        raise typer.Exit(code=130)


def _print_outliers(summary: BenchSummary) -> None:
    """The closing lines, over the whole run (every invocation of it): items whose reference
    median stayed off the variant's earlier ones, then eager against itself (always last)."""
    if ref := summary.reference_off:
        err.print(f"[yellow]reference median outside 0.8-1.25x of the variant's earlier items "
                  f"on {len(ref)} of the run's items: {escape(', '.join(ref))}[/]",
                  soft_wrap=True)  # fmt: skip
    n, off = summary.eager_timed, summary.eager_off
    if off:
        err.print(f"[yellow]eager against itself outside 0.9-1.1x on "
                  f"{len(off)} of the run's {n} timed eager items: {escape(', '.join(off))}[/]",
                  soft_wrap=True)  # fmt: skip
    elif n:
        console.print(f"[dim]eager against itself within 0.9-1.1x on all {n} timed eager "
                      "items of the run[/]", soft_wrap=True)  # fmt: skip


def _synth_workers(device: str, executor: str) -> int:
    """Tasks the synth candidate synthesises at once by default: as many as the local pool's
    workers on the host (each in its own process; timings take the device lock in turn)."""
    from passnet.evaluation.evaluator import host_workers

    return 1 if executor == "ray" else host_workers(device)


def _executor(
    st,
    executor: str,
    device: str,
    jobs,
    prepare_ahead: int | None,  # noqa: ANN001, ANN202
    address: str | None,
    pin_cpus: bool = True,
):
    """The executor asked for; a user error closes the store and exits."""
    from passnet.evaluation.devices import ExecutorError
    from passnet.runner.pool import LocalPool

    try:
        if executor == "ray":
            from passnet.runner.ray_executor import RayExecutor

            if prepare_ahead is not None and prepare_ahead > 1:
                _fail("--prepare-ahead is for the local executor (Ray schedules its own tasks).")
            return RayExecutor(device, address)
        if address:
            _fail("--address is for --executor ray.")
        return LocalPool(device, jobs, pin=pin_cpus, prepare_ahead=prepare_ahead)
    except ExecutorError as exc:
        st.close()
        _fail(str(exc))


def _print_summary(summary, st) -> None:  # noqa: ANN001 - BenchSummary, Store
    """What the run did, where worker time went, host CPU steal, errors and what to rerun."""
    from passnet.runner.store import RETRY_STATUSES

    again = f"{summary.rerun} set aside to re-measure, " if summary.rerun else ""
    console.print(
        f"run [bold]{summary.run_id}[/]: {summary.planned} items; "
        f"{summary.skipped} already done, {again}{summary.cached} baselines from cache, "
        f"{summary.measured} measured, {summary.retried} failed attempts retried, "
        f"{summary.duplicates} duplicates; {summary.wall_seconds:.1f} s",
        soft_wrap=True,
    )
    if phases := summary.phase_seconds:
        total = sum(phases.values())
        parts = ", ".join(f"{k} {v / total:.0%}" for k, v in phases.items())
        console.print(f"[dim]worker time {total:.1f} s: {parts}[/]", soft_wrap=True)
    if tri := summary.triton:
        console.print(f"[dim]{triton_line(tri)}[/]", soft_wrap=True)
    if steal := summary.cpu_steal:
        mean = sum(steal) / len(steal)
        line = f"host CPU steal while evaluating: mean {mean:.1%}, max {max(steal):.1%}"
        if mean > STEAL_WARN:
            err.print(f"[yellow]{line}: a shared host was busy; compare these timings "
                      "only with others of this run[/]", soft_wrap=True)  # fmt: skip
        else:
            console.print(f"[dim]{line}[/]", soft_wrap=True)
    if summary.timed:
        share = summary.noisy / summary.timed
        line = (f"timings still noisy after re-runs (IQR/median above the noise limit on "
                f"either side): {summary.noisy} of {summary.timed} timed items ({share:.0%})")  # fmt: skip
        if share > NOISY_WARN:
            err.print(f"[yellow]{line}: the device or host was busy; medians stand, spreads "
                      "are wide[/]", soft_wrap=True)  # fmt: skip
        else:
            console.print(f"[dim]{line}[/]", soft_wrap=True)
    if summary.remeasured:
        console.print(f"[dim]{summary.remeasured} timed items measured again: they disagreed "
                      "with the run (reference median off the variant's others, or eager "
                      "against itself outside 0.9-1.1x)[/]", soft_wrap=True)  # fmt: skip
    for e in summary.errors:
        err.print(f"[red]harness error (not stored, rerun to retry):[/] {e}", soft_wrap=True)
    counts = st.status_counts(summary.run_id)
    if failed := {s: counts[s] for s in RETRY_STATUSES if counts.get(s)}:
        what = ", ".join(f"{n} {s}" for s, n in failed.items())
        err.print(f"[yellow]{what} in this run, final after retries: add --rerun-failed "
                  "to the same command to measure them again[/]", soft_wrap=True)  # fmt: skip


def runs_cmd(
    store: ResultsStore = Path(DEFAULT_STORE),
) -> None:
    """List the runs in a results store."""
    from rich.table import Table

    with _open_store(store, readonly=True) as st:
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
    store: ResultsStore = Path(DEFAULT_STORE),
) -> None:
    """Export runs to JSON (everything, nested) or Parquet (one row per measurement)."""
    from passnet.runner.export import export_json, export_parquet
    from passnet.runner.paths import file_problem
    from passnet.runner.store import StoreError

    if out.suffix not in (".json", ".parquet"):
        _fail(f"--out {out}: use a .json or .parquet file name.")
    with _open_store(store, readonly=True) as st:
        try:
            ids = [st.resolve_run(r) for r in runs]
        except StoreError as exc:
            _fail(str(exc))
        if problem := file_problem(out, "--out"):
            _fail(problem)
        try:
            (export_json if out.suffix == ".json" else export_parquet)(st, ids, out)
        except OSError as exc:
            _fail(f"cannot write --out {out}: {exc.strerror or exc}")
    console.print(f"wrote {out}")


def register(app: typer.Typer) -> None:
    app.command("bench", epilog="Example: passnet bench -c eager,inductor --limit 5")(bench_cmd)
    app.command("runs", epilog="Example: passnet runs --store runs/passnet.db")(runs_cmd)
    app.command("export", epilog="Example: passnet export latest --out runs/latest.parquet")(
        export_cmd
    )
