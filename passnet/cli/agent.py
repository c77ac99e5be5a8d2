"""CLI: ``passnet agent run|replay`` and ``passnet task prompt|submit``.

``agent run`` lets an LLM work a suite; ``task prompt`` / ``task submit`` let any other coding
agent (or a person) work the same tasks from a shell with the same statement and feedback.
``task submit`` says in its exit code how the pass did (``SUBMIT_EXIT``), so scripts can tell
success from failure.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from passnet.cli.common import device_list
from passnet.cli.common import fail as _fail
from passnet.cli.options import CiTarget, Device, EvalServer, PrepareAheadAuto, Trials, Warmup
from passnet.core.bundled import missing_hint

if TYPE_CHECKING:
    from collections.abc import Callable

    from passnet.agent.loop import AgentConfig, AttemptSpec
    from passnet.agent.run import RunSummary
    from passnet.agent.trajectory import AttemptRecord
    from passnet.core.results import Parameters, TaskResult
    from passnet.dataset.task import Task

console = Console()
err = Console(stderr=True)

agent_app = typer.Typer(
    help="Let an LLM write passes with the evaluator's feedback (PassAgent), or replay its runs.",
    epilog="Example: passnet agent run examples/suite --model M --base-url http://localhost:8000/v1",
)
task_app = typer.Typer(
    help="Work a task from a shell: print its prompt, submit a pass folder.",
    epilog="Example: passnet task prompt examples/tasks/bert_add_layer_norm",
)


SUBMIT_EXIT = {"ok": 0, "incorrect": 1, "usage": 2, "failed": 3}
"""Exit codes of ``task submit``: 0 correct on every graph; 1 every graph ran but some are not
correct; 2 a usage or input error (Typer's code for bad options too); 3 some graph could not be
evaluated (no match, compile or runtime error, timeout, crash, rejected, broken sample)."""


def submit_verdict(result) -> str:  # noqa: ANN001 - TaskResult, imported lazily
    """``ok``, ``incorrect`` or ``failed`` (a key of SUBMIT_EXIT) for an evaluated pass."""
    from passnet.core.results import Status

    statuses = {v.status for v in result.variants}
    if statuses == {Status.OK}:
        return "ok"
    return "incorrect" if statuses <= {Status.OK, Status.INCORRECT} else "failed"


def _parameters(
    devices: list[str],
    warmup: int | None,
    trials: int | None,
    timeout: float,
    ci_target: float | None = None,
):
    from passnet.core.results import default_parameters

    return default_parameters(
        devices[0], warmup=warmup, trials=trials, timeout_s=timeout, ci_target=ci_target
    )


def _fmt(x: float | None, spec: str = ".4f") -> str:
    return "-" if x is None else format(x, spec)


def print_summary(summary) -> None:  # noqa: ANN001 - RunSummary, imported lazily
    table = Table(title=f"{summary.model} ({summary.backend}) — run {summary.run_id}")
    for col in (
        "task",
        "attempts",
        "best@k AS",
        "mean AS",
        "first-eval AS",
        "correct",
        "steps",
        "stop reasons",
        "tokens",
        "cost $",
    ):
        table.add_column(col, overflow="fold")
    for t in summary.tasks:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(t.stop_reasons.items()))
        table.add_row(
            t.task,
            str(t.attempts),
            _fmt(t.best_AS),
            _fmt(t.mean_AS),
            _fmt(t.first_AS_mean),
            f"{t.task_correct}/{t.attempts}",
            f"{t.mean_steps:.1f}",
            reasons,
            f"{t.tokens:,}",
            _fmt(t.cost_usd, ".2f"),
        )
    console.print(table)
    console.print(
        f"[bold]mean best@k AS = {_fmt(summary.mean_best_AS)}[/]  mean AS = "
        f"{_fmt(summary.mean_AS)}  ({summary.attempts_finished} attempts finished; per-task "
        "AS averaged over tasks)"
    )
    for e in summary.errors:
        err.print(f"[red]attempt failed:[/] {e}", soft_wrap=True)


# Options of ``agent run`` whose help would crowd its signature.
ModelName = Annotated[
    str, typer.Option(help="model name (or HF checkpoint folder for --backend hf)")
]
BaseUrl = Annotated[
    str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
]
ApiKeyEnv = Annotated[str, typer.Option(help="environment variable holding the key")]
MaxContextTokens = Annotated[int | None, typer.Option(help="stop when a turn reaches this")]
MaxTokensParam = Annotated[
    str, typer.Option(help="max_tokens or max_completion_tokens (OpenAI reasoning models)")
]
ExtraBody = Annotated[
    str | None,
    typer.Option(
        help="JSON merged into each request, e.g. vLLM's "
        '\'{"chat_template_kwargs": {"enable_thinking": false}}\''
    ),
]
EvalDevices = Annotated[
    str, typer.Option(help="evaluation device(s): cpu, cuda (every GPU), cuda:0,cuda:1")
]


@agent_app.command(
    "run",
    epilog="Example: passnet agent run examples/suite --model M "
    "--base-url http://localhost:8000/v1 --attempts 4",
)
def run_cmd(
    suite: Annotated[Path, typer.Argument(help="a task folder or a folder of task folders")],
    model: ModelName,
    backend: Annotated[str, typer.Option(help="openai, anthropic or hf")] = "openai",
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    attempts: Annotated[int, typer.Option(help="independent attempts per task (k)")] = 1,
    max_steps: Annotated[int, typer.Option(help="turns per attempt")] = 50,
    max_context_tokens: MaxContextTokens = 131072,
    max_total_tokens: Annotated[int | None, typer.Option(help="token budget per attempt")] = None,
    max_wall_time: Annotated[float | None, typer.Option(help="seconds per attempt")] = None,
    temperature: Annotated[float | None, typer.Option(help="sampling temperature")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="completion tokens per turn")] = 8192,
    max_tokens_param: MaxTokensParam = "max_tokens",
    extra_body: ExtraBody = None,
    timeout: Annotated[float, typer.Option(help="seconds per LLM request")] = 300.0,
    max_retries: Annotated[int, typer.Option(help="retries on 429/5xx/timeouts")] = 6,
    price_in: Annotated[float | None, typer.Option(help="USD per 1M prompt tokens")] = None,
    price_out: Annotated[float | None, typer.Option(help="USD per 1M completion tokens")] = None,
    out: Annotated[Path | None, typer.Option(help="run folder (rerun with it to resume)")] = None,
    device: EvalDevices = "cpu",
    concurrency: Annotated[int, typer.Option(help="attempts in flight at once")] = 4,
    warmup: Warmup = None,
    trials: Trials = None,
    eval_timeout: Annotated[float, typer.Option(help="seconds per evaluated graph")] = 600.0,
    prepare_ahead: PrepareAheadAuto = None,
    ci_target: CiTarget = None,
    server: EvalServer = None,
) -> None:
    """Let an LLM write passes for every task of SUITE, k attempts each; prints best@k and mean."""
    from passnet.agent.llm import GenerateConfig
    from passnet.agent.loop import AgentConfig
    from passnet.agent.trajectory import Budget

    if backend == "replay":
        _fail("to replay a trajectory use: passnet agent replay TRAJ.jsonl")
    devices = device_list(device)
    extra = _extra_body(max_tokens_param, extra_body)
    tasks = _load_suite(suite)
    out = out or _run_folder(model, backend)
    config = AgentConfig(
        backend=backend,
        generate=GenerateConfig(
            model=model,
            base_url=base_url,
            api_key_env=api_key_env,
            temperature=temperature,
            max_tokens=max_tokens,
            max_tokens_param=max_tokens_param,
            extra_body=extra,
            timeout_s=timeout,
            max_retries=max_retries,
            price_input_per_mtok=price_in,
            price_output_per_mtok=price_out,
        ),
        budget=Budget(
            max_steps=max_steps,
            max_context_tokens=max_context_tokens,
            max_total_tokens=max_total_tokens,
            max_wall_s=max_wall_time,
        ),
        parameters=_parameters(devices, warmup, trials, eval_timeout, ci_target),
        device=",".join(devices),
        run_id=out.name,
    )
    summary = _run(tasks, config, out, attempts, concurrency, devices, prepare_ahead, server)
    print_summary(summary)
    total = len(tasks) * attempts
    console.print(f"[dim]{total} attempt(s) planned; trajectories in {out}/trajectories.jsonl[/]")
    if summary.errors:
        raise typer.Exit(code=1)


def _evaluator(devices: list[str], parameters: Parameters, prepare_ahead: int | None,
               server: str | None) -> Callable[[Task, Path], TaskResult]:  # fmt: skip
    """The agent's evaluator: a local device pool, or the service at ``server`` (whose failures
    exit 2 with the service's reason)."""
    if server is None:
        from passnet.evaluation.devices import DevicePool

        return DevicePool(devices, parameters, prepare_ahead)
    from passnet.runner.service import RemoteEvaluator, ServiceError

    remote = RemoteEvaluator(server, parameters, devices[0], prepare_ahead)

    def evaluate(task: Task, pass_dir: Path) -> TaskResult:
        try:
            return remote(task, pass_dir)
        except ServiceError as exc:
            _fail(str(exc))

    return evaluate


def _extra_body(max_tokens_param: str, extra_body: str | None) -> dict[str, Any]:
    """--extra-body as a JSON object, once --max-tokens-param is known to be one of its two."""
    if max_tokens_param not in ("max_tokens", "max_completion_tokens"):
        _fail("--max-tokens-param must be max_tokens or max_completion_tokens.")
    try:
        extra = json.loads(extra_body) if extra_body else {}
    except json.JSONDecodeError as exc:
        _fail(f"--extra-body is not valid JSON: {exc}")
    if not isinstance(extra, dict):
        _fail("--extra-body must be a JSON object.")
    return extra


def _load_suite(suite: Path) -> list[Task]:
    """The tasks of SUITE, or exit 2 with what is wrong with it."""
    from passnet.agent.run import load_suite
    from passnet.dataset.suite import SuiteError

    try:
        return load_suite(suite)
    except SuiteError as exc:
        _fail(str(exc))


def _run_folder(model: str, backend: str) -> Path:
    """runs/agent/<time>-<model>: a new folder for a run not given --out (which resumes one)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(model).name if backend == "hf" else model)
    return Path("runs") / "agent" / (time.strftime("%Y%m%d-%H%M%S") + f"-{slug}")


def _run(
    tasks: list[Task],
    config: AgentConfig,
    out: Path,
    attempts: int,
    concurrency: int,
    devices: list[str],
    prepare_ahead: int | None,
    server: str | None = None,
) -> RunSummary:
    """Every attempt, a line as each starts and ends; exit 2 on an error that stops the run
    (the attempts finished are kept in OUT, and rerunning with --out OUT resumes)."""
    from passnet.agent.llm import LLMError, get_backend
    from passnet.agent.run import RunError, RunPlan, run_agent

    try:
        shared = get_backend(config.backend)
    except LLMError as exc:
        _fail(str(exc))
    evaluator = _evaluator(devices, config.parameters, prepare_ahead, server)
    console.print(
        f"{len(tasks)} task(s) x {attempts} attempt(s) with {config.generate.model} "
        f"({config.backend}); evaluating on {', '.join(devices)}"
        f"{f' at {server}' if server else ''}; run folder {out}"
    )
    plan = RunPlan(
        tasks=tasks,
        config=config,
        out=out,
        attempts=attempts,
        concurrency=concurrency,
        make_backend=lambda spec: shared,
        make_evaluator=lambda spec: evaluator,
        on_event=_on_event,
    )
    from passnet.evaluation.evaluator import spare_stock
    from passnet.evaluation.sandbox import spare_workers

    # local workers: warm spares live as long as the run, so each evaluation starts on them
    stock = prepare_ahead or spare_stock(devices)
    spares = spare_workers(stock) if server is None else contextlib.nullcontext()
    try:
        with spares:
            return run_agent(plan)
    except (LLMError, RunError) as exc:
        _fail(f"{exc}\n(finished attempts are kept in {out}; rerun with --out {out} to resume)")


def _on_event(kind: str, spec: AttemptSpec, record: AttemptRecord | None) -> None:
    """One line when an attempt starts, ends (its score) or fails (the reason comes at the end)."""
    if kind == "done":
        console.print(
            f"done {spec.task_name} #{spec.attempt}: AS {_fmt(record.final_AS)}, "
            f"{'correct' if record.final_correct else 'not correct everywhere'} "
            f"({len(record.steps)} steps, {record.stop_reason}, {record.wall_seconds:.0f} s)"
        )
    elif kind == "start":
        console.print(f"start {spec.task_name} #{spec.attempt}")
    else:
        err.print(f"[red]failed {spec.task_name} #{spec.attempt}[/] (reason at the end)")


@agent_app.command(
    "replay", epilog="Example: passnet agent replay runs/agent/trajectories.jsonl --reevaluate"
)
def replay_cmd(
    trajectories: Annotated[Path, typer.Argument(help="trajectories.jsonl of a run")],
    task_dir: Annotated[Path | None, typer.Option(help="the task folder, if it moved")] = None,
    reevaluate: Annotated[
        bool,
        typer.Option("--reevaluate", help="measure again instead of using the recorded results"),
    ] = False,
    device: Annotated[str, typer.Option(help="device for --reevaluate")] = "cpu",
    out: Annotated[Path | None, typer.Option(help="where replayed attempts are written")] = None,
) -> None:
    """Play back recorded attempts through the loop and check they reach the same score."""
    from passnet.agent.replay import ReplayDiverged, replay_attempt
    from passnet.agent.trajectory import read_trajectories
    from passnet.dataset.task import TaskError, load_task
    from passnet.evaluation.devices import DevicePool

    records = read_trajectories(trajectories)
    if not records:
        _fail(f"{trajectories}: no trajectory records")
    work = out or Path(tempfile.mkdtemp(prefix="passnet-replay-"))
    bad = 0
    for record in records:
        try:
            task = load_task(task_dir or record.sample_dir)
        except TaskError as exc:
            _fail(f"{exc} (pass --task-dir if the task moved)")
        evaluator = None
        if reevaluate:
            evaluator = DevicePool(device_list(device), record.parameters)
        dest = work / record.task_name / str(record.attempt)
        try:
            _, rep = replay_attempt(record, dest, task, evaluator)
        except ReplayDiverged as exc:
            bad += 1
            console.print(f"[red]{record.task_name} #{record.attempt}: diverged: {exc}[/]")
            continue
        ok = rep.same_files and (rep.same_score or reevaluate)
        bad += not ok
        colour = "green" if ok else "red"
        console.print(
            f"[{colour}]{rep.task_name} #{rep.attempt}: recorded AS {_fmt(rep.recorded_AS)}, "
            f"replayed AS {_fmt(rep.replayed_AS)}; files {'same' if rep.same_files else 'DIFFER'}"
            f"; messages {'same' if rep.same_messages else 'differ'}[/]"
            + (f" — {rep.first_difference}" if rep.first_difference else "")
        )
    console.print(f"[dim]replayed into {work}[/]")
    if bad:
        raise typer.Exit(code=1)


@task_app.command(
    "prompt", epilog="Example: passnet task prompt examples/tasks/bert_add_layer_norm"
)
def prompt_cmd(
    task: Annotated[Path, typer.Argument(help="task folder")],
    device: Annotated[str, typer.Option(help="device the pass will be evaluated on")] = "cpu",
) -> None:
    """Print the task statement with the pass contract, for an agent working from a shell."""
    from passnet.agent.prompting import system_prompt, task_statement
    from passnet.dataset.task import TaskError, load_task

    try:
        loaded = load_task(task)
    except TaskError as exc:
        _fail(str(exc))
    contract = system_prompt(max_steps=0, b=0.1, device=device, shell=True)
    sys.stdout.write(contract + "\n" + task_statement(loaded))
    sys.stdout.write(
        f"\nWrite your pass folder anywhere (say ./pass_dir), then evaluate it with:\n"
        f"    passnet task submit {task} ./pass_dir\n"
    )


@task_app.command(
    "submit",
    epilog="Example: passnet task submit examples/tasks/bert_add_layer_norm "
    "examples/passes/add_layer_norm",
)
def submit_cmd(
    task: Annotated[Path, typer.Argument(help="task folder")],
    pass_dir: Annotated[Path, typer.Argument(help="your pass folder")],
    device: Device = "cpu",
    warmup: Warmup = None,
    trials: Trials = None,
    timeout: Annotated[float, typer.Option(help="seconds per graph")] = 600.0,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="write the full result here")
    ] = None,
    prepare_ahead: PrepareAheadAuto = None,
    ci_target: CiTarget = None,
    server: EvalServer = None,
) -> None:
    """Evaluate PASS_DIR on TASK and print the feedback the agent would get.

    Exit code: 0 correct on every graph, 1 some graph incorrect (all ran), 2 usage or input
    error, 3 some graph could not be evaluated (no match, compile/runtime error, timeout,
    crash, rejected)."""
    from passnet.agent.feedback import format_feedback
    from passnet.dataset.task import TaskError, load_task

    devices = device_list(device)
    if not pass_dir.is_dir():
        _fail(f"pass folder {pass_dir} does not exist{missing_hint(pass_dir)}.")
    try:
        loaded = load_task(task)
    except TaskError as exc:
        _fail(str(exc))
    params = _parameters(devices, warmup, trials, timeout, ci_target)
    pool = _evaluator(devices[:1], params, prepare_ahead, server)
    with console.status(f"evaluating {pass_dir} on {len(loaded.variants)} graph(s) ..."):
        result = pool(loaded, pass_dir.resolve())
    sys.stdout.write(format_feedback(result) + "\n")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(result.model_dump_json(indent=2))
    verdict = submit_verdict(result)
    code = SUBMIT_EXIT[verdict]
    if code:
        bad = sum(v.status.value != "ok" for v in result.variants)
        err.print(f"{verdict}: {bad} of {len(result.variants)} graph(s) not correct (exit {code})")
    raise typer.Exit(code=code)


def register(app: typer.Typer) -> None:
    app.add_typer(agent_app, name="agent")
    app.add_typer(task_app, name="task")
