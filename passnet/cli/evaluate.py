"""``passnet eval``: one task, one candidate (a pass folder or a baseline compiler)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from passnet.cli.common import check_call_path, check_device, check_out_file, console
from passnet.cli.common import fail as _fail
from passnet.cli.options import (
    CallPath,
    CiTarget,
    CpuThreads,
    Device,
    EvalServer,
    JsonOut,
    MaxTrials,
    PrepareAheadAuto,
    Rounds,
    ScoreB,
    ScoreP,
    Seed,
    Timeout,
    Trials,
    Warmup,
)
from passnet.core.bundled import missing_hint

if TYPE_CHECKING:
    from passnet.core.results import CandidateSpec, Parameters, TaskResult
    from passnet.dataset.task import Task


def _fmt_us(x: float | None) -> str:
    return "-" if x is None else f"{x:,.1f}"


def _fmt_x(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}x"


def print_task_result(result) -> None:  # noqa: ANN001 - TaskResult, imported lazily
    """A readable table of one task's variants plus its scores."""
    table = Table(title=f"{Path(result.task).name} — {result.candidate.label}", expand=False)
    for col in (
        "graph",
        "dtype",
        "status",
        "matches",
        "tightest t",
        "eager µs",
        "cand µs",
        "speedup",
    ):
        table.add_column(col, overflow="fold")
    for v in result.variants:
        t = v.comparison.tightest_passing_t if v.comparison else None
        colour = "green" if v.status.value == "ok" else "red"
        table.add_row(
            Path(v.graph).name,
            v.dtype,
            f"[{colour}]{v.status.value}[/]",
            str(sum(v.matches.values())) if v.matches else "-",
            "-" if t is None else str(t),
            _fmt_us(v.reference.wall.median_us if v.reference else None),
            _fmt_us(v.candidate.wall.median_us if v.candidate else None),
            _fmt_x(v.speedup),
        )
    console.print(table)
    for v in result.variants:
        if v.error:
            console.print(f"[red]{Path(v.graph).name}[/]: {v.error}", soft_wrap=True)
    notes = {v.timing_note for v in result.variants if v.timing_note}
    for note in notes:
        console.print(f"[dim]note: {note}[/]")
    s = result.scores
    es = " ".join(f"{t}:{s.ES[t]:.3f}" for t in sorted(s.ES))
    console.print(
        f"[bold]AS = {s.AS:.4f}[/]  fast_1 = {s.fast_p:.2f}  correct = {s.subgraph_correct_rate:.2f}"
        f"  G-mean speedup (correct) = {_fmt_x(s.gmean_speedup_correct)}"
        + (
            f"  vs Inductor = {_fmt_x(s.gmean_speedup_vs_inductor_correct)}"
            if s.gmean_speedup_vs_inductor_correct
            else ""
        )
    )
    console.print(f"[dim]ES_t  {es}[/]")
    env = result.environment
    console.print(
        f"[dim]{env.device} ({env.device_name}), torch {env.torch}, triton {env.triton}, "
        f"b = {result.parameters.b}, p = {result.parameters.p}, {result.wall_seconds:.1f} s[/]"
    )


def eval_cmd(
    task: Annotated[Path, typer.Argument(help="task folder (graph_list.txt) or one graph folder")],
    pass_dir: Annotated[Path | None, typer.Option(help="pass folder to evaluate")] = None,
    compiler: Annotated[
        str | None, typer.Option(help="baseline instead of passes: eager, inductor[:MODE]")
    ] = None,
    device: Device = "cpu",
    json_out: JsonOut = None,
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
    with_inductor: Annotated[
        bool, typer.Option("--with-inductor", help="also time Inductor for speedup vs Inductor")
    ] = False,
    prepare_ahead: PrepareAheadAuto = None,
    server: EvalServer = None,
) -> None:
    """Evaluate a pass folder (or a baseline compiler) on every variant of TASK."""
    from passnet.core.results import default_parameters

    if (pass_dir is None) == (compiler is None):
        _fail("give exactly one of --pass-dir DIR or --compiler NAME (eager, inductor[:MODE]).")
    check_call_path(call_path, device)
    if server is None:  # a service checks its own devices
        check_device(device)
    if pass_dir is not None and not pass_dir.is_dir():
        _fail(f"pass folder {pass_dir} does not exist{missing_hint(pass_dir)}.")
    check_out_file(json_out, "--json")  # before evaluating, which would be lost
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
    if server is not None:  # the service loads and checks the task (no torch needed here)
        candidate = f"passes:{pass_dir.resolve()}" if pass_dir else str(compiler)
        result = _evaluate_remote(server, task, candidate, device, params, with_inductor,
                                  prepare_ahead)  # fmt: skip
    else:
        spec, loaded = _load(task, pass_dir, compiler)
        result = _evaluate(loaded, spec, device, params, with_inductor, prepare_ahead)
    print_task_result(result)
    if json_out:
        _write_json(result, json_out)


def _load(task: Path, pass_dir: Path | None, compiler: str | None) -> tuple[CandidateSpec, Task]:
    """The candidate and the task, or exit 2; ``synth`` is refused (it is bench's candidate)."""
    from passnet.dataset.task import TaskError, load_task
    from passnet.evaluation.candidates import parse_candidate

    try:
        spec = parse_candidate(f"passes:{pass_dir}" if pass_dir else str(compiler))
        loaded = load_task(task)
    except (ValueError, TaskError) as exc:
        _fail(str(exc))
    if spec.kind == "synth":
        _fail("synth is a candidate of passnet bench; for one task run `passnet synth TASK "
              "--out DIR`, then `passnet eval TASK --pass-dir DIR/<task>/pass`.")  # fmt: skip
    if spec.kind == "library":
        _fail("library is a candidate of passnet bench; for one task run `passnet eval TASK "
              "--pass-dir DIR/<task>/pass`.")  # fmt: skip
    return spec, loaded


def _evaluate(
    loaded: Task,
    spec: CandidateSpec,
    device: str,
    params: Parameters,
    with_inductor: bool,
    prepare_ahead: int | None,
) -> TaskResult:
    """Every variant of the task, under a status line that counts the variants done."""
    from passnet.evaluation.evaluator import evaluate_task

    n = len(loaded.variants)
    with console.status(f"evaluating {spec.label} on {n} variant(s) of {loaded.name} ...") as st:
        done = 0

        def progress(variant, vr) -> None:  # noqa: ANN001
            nonlocal done
            done += 1
            st.update(f"[{done}/{n}] {variant.graph}: {vr.status.value}")

        return evaluate_task(
            loaded,
            spec,
            device=device,
            parameters=params,
            with_inductor=with_inductor,
            on_variant=progress,
            prepare_ahead=prepare_ahead,
        )


def _evaluate_remote(
    url: str,
    task: Path,
    candidate: str,
    device: str,
    params: Parameters,
    with_inductor: bool,
    prepare_ahead: int | None,
) -> TaskResult:
    """The same evaluation by the service at ``url`` (folders sent as absolute paths)."""
    from passnet.runner.service import EvaluateRequest, ServiceError, evaluate_remote

    request = EvaluateRequest(task=str(task.resolve()), candidate=candidate, parameters=params,
                              device=device, with_inductor=with_inductor,
                              prepare_ahead=prepare_ahead)  # fmt: skip
    t0 = time.perf_counter()
    with console.status(f"evaluating {candidate} on {task.name} at {url} ..."):
        try:
            result = evaluate_remote(url, request)
        except ServiceError as exc:
            _fail(str(exc))
    # what the service's own wall time leaves out: loading the task, the transfer, this client
    age = _process_age()
    since = f"; this command started {age:.2f} s ago" if age is not None else ""
    console.print(f"[dim]round trip {time.perf_counter() - t0:.2f} s (the evaluation "
                  f"{result.wall_seconds:.2f} s){since}[/]")  # fmt: skip
    return result


def _process_age() -> float | None:
    """Seconds since this process started (Linux: /proc), interpreter start-up and imports
    included; None where /proc cannot say."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _write_json(result: TaskResult, json_out: Path) -> None:
    """Write the result to --json; should that fail after all, exit 2 naming the file that has it."""
    from passnet.runner.paths import write_with_fallback

    text = result.model_dump_json(indent=2)
    if saved := write_with_fallback(json_out, text, "passnet-eval"):
        _fail(f"cannot write --json {json_out} ({saved[1]}); the result is in {saved[0]}")
    console.print(f"[dim]wrote {json_out}[/]")


def register(app: typer.Typer) -> None:
    app.command(
        "eval",
        epilog="Example: passnet eval examples/tasks/bert_add_layer_norm "
        "--pass-dir examples/passes/add_layer_norm",
    )(eval_cmd)
