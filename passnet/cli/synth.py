"""``passnet synth``: write a verified pass folder for each task of a task or suite folder."""

from __future__ import annotations

import fnmatch
import json
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from passnet.cli.common import check_device, err
from passnet.cli.common import fail as _fail
from passnet.cli.options import Timeout
from passnet.core.bundled import missing_hint

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from passnet.core.results import Parameters
    from passnet.synth.driver import SynthResult


def synth_cmd(
    target: Annotated[Path, typer.Argument(help="a task folder or a suite of task folders")],
    out: Annotated[Path, typer.Option(help="write OUT/<task>/pass/ and OUT/<task>/synth.json")],
    device: Annotated[
        str, typer.Option(help="verify on cpu (Triton interpreter) or cuda[:N]")
    ] = "cpu",
    verify: Annotated[
        bool,
        typer.Option(
            "--verify/--no-verify",
            help="evaluate each pass and keep it only if "
            "correct on every variant (and faster than eager on CUDA)",
        ),
    ] = True,
    tune: Annotated[
        bool,
        typer.Option(
            "--tune/--no-tune",
            help="on a GPU, choose each pass's block sizes "
            "and warps on the device before verifying (docs/synth.md)",
        ),
    ] = True,
    warmup: Annotated[int | None, typer.Option(help="untimed calls per side")] = None,
    trials: Annotated[int | None, typer.Option(help="timed calls per side")] = None,
    timeout: Timeout = 600.0,
    keep: Annotated[
        str,
        typer.Option(
            help="which verified passes to keep: 'win' (correct and faster than eager on "
            "a GPU) or 'correct' (every correct one, slower too)"
        ),
    ] = "win",
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="tasks synthesised at once, each in its own process (timings still take "
            "the device one at a time) [default: on a GPU the host's cores less one, at most "
            "8, as passnet bench; 1 on CPU]",
        ),
    ] = None,
    filter_: Annotated[
        list[str] | None,
        typer.Option(
            "--filter", "-k", help="only tasks whose folder name matches a glob (repeatable)"
        ),
    ] = None,
    literal_shapes: Annotated[
        bool,
        typer.Option(
            "--literal-shapes",
            help="rules whose patterns and kernels carry the task's literal sizes and "
            "constants (match only that configuration) instead of generic ones whose free "
            "literals are bound at match time (docs/synth.md#generic-rules)",
        ),
    ] = False,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="reuse each task whose OUT/<task>/synth.json this synthesizer finished for the "
            "same task content, device model and result-changing options; synthesise the rest "
            "(docs/synth.md#resuming)",
        ),
    ] = False,
) -> None:
    """Synthesize one Triton pass per task from its graph (no LLM); see docs/synth.md."""
    from rich.console import Console

    from passnet.synth.driver import SynthInterrupted, synthesize_tasks

    console = Console()
    tasks = _tasks(target, device, keep, filter_)
    params = _parameters(device, warmup, trials, timeout)
    key = _resume_key(device, verify=verify, tune=tune, keep=keep,
                      literal_shapes=literal_shapes, parameters=params)  # fmt: skip
    results: list[SynthResult | None] = [None] * len(tasks)
    if resume:
        results = [_reusable(out / t.name, t, key) for t in tasks]
    reused = sum(r is not None for r in results)
    if reused:
        console.print(f"{reused} of {len(tasks)} task(s) finished in {out} before: reused")
    todo = [i for i, r in enumerate(results) if r is None]
    done = reused

    def progress(k: int, r: SynthResult) -> None:
        nonlocal done
        done += 1
        results[todo[k]] = r
        console.print(f"[dim][{done}/{len(tasks)}][/] {Path(r.task).name}: {r.status}")

    if workers is None:
        from passnet.evaluation.evaluator import host_workers

        workers = host_workers(device)
    interrupted = False
    with _sigterm_interrupts():
        try:
            synthesize_tasks([(tasks[i], None) for i in todo], out, workers=workers,
                             on_result=progress, device=device, verify=verify,
                             parameters=params, tune=tune, keep=keep,
                             literal_shapes=literal_shapes, resume_key=key)  # fmt: skip
        except SynthInterrupted as exc:
            interrupted = True
            for k, r in enumerate(exc.results):
                results[todo[k]] = results[todo[k]] or r
    finished = [(t, r) for t, r in zip(tasks, results, strict=True) if r is not None]
    console.print(_results_table(device, [t for t, _ in finished], [r for _, r in finished]))
    summary = _summary([t for t, _ in finished], [r for _, r in finished])
    _write_summary(console, out, summary, verify, reused)
    if interrupted:
        left = len(tasks) - len(finished)
        err.print(f"[yellow]interrupted[/]: {left} of {len(tasks)} task(s) remain; rerun with "
                  "--resume to continue.", soft_wrap=True)  # fmt: skip
        raise typer.Exit(code=130)


def _resume_key(device: str, *, verify: bool, tune: bool, keep: str, literal_shapes: bool,
                parameters: Parameters) -> dict[str, Any]:  # fmt: skip
    """What a task's synthesis depends on besides the task: the synthesizer's code hash (the
    bench's synth cache key), the device model and the options that change the result
    (``--workers`` and ``--filter`` do not; the launch-shape search and the verification's
    timing only where they run). Recorded in each synth.json; ``--resume`` compares it."""
    from passnet.evaluation.evaluator import environment
    from passnet.runner.suite import synth_code_hash

    options = {
        "device": device.split(":")[0],
        "verify": verify,
        "tune": tune and verify and device.startswith("cuda"),
        "keep": keep,
        "literal_shapes": literal_shapes,
        "parameters": parameters.model_dump(mode="json") if verify else None,
    }
    key = {"synthesizer": synth_code_hash(), "device_name": environment(device).device_name,
           "options": options}  # fmt: skip
    return dict(json.loads(json.dumps(key)))  # as synth.json gives it back


def _reusable(folder: Path, task: Path, key: dict[str, Any]) -> SynthResult | None:
    """The result ``folder`` holds for ``task`` if ``--resume`` may take it as it is: made
    under ``key`` for the task's current content, and a verdict that stands as the bench's
    synth cache judges one (a written pass still there; a skip that is not a host failure,
    ``synth_candidate.TRANSIENT``). A synth.json without ``resume`` (older) is redone."""
    from passnet.dataset.task import TaskError, load_task
    from passnet.runner.synth_candidate import reusable as verdict_stands
    from passnet.synth.driver import task_content_id

    done = verdict_stands(folder)
    if done is None or done.resume is None:
        return None
    if {k: v for k, v in done.resume.items() if k != "task"} != key:
        return None
    try:
        current = task_content_id(load_task(task))
    except (OSError, TaskError):
        return None
    return done if done.resume.get("task") == current else None


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt meanwhile, as SIGINT does, so that a run stopped either
    way writes what it finished (in the main thread only: signals are set there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _tasks(target: Path, device: str, keep: str, filter_: list[str] | None) -> list[Path]:
    """The task folders to synthesise, once the options are known to be usable (else exit 2)."""
    from passnet.evaluation.candidates.synth import KEEP
    from passnet.synth.driver import task_folders

    if not target.is_dir():
        _fail(f"{target} is not a task or suite folder{missing_hint(target)}.")
    check_device(device)
    if keep not in KEEP:
        _fail(f"unknown --keep {keep!r}; use one of: {', '.join(KEEP)}.")
    globs = filter_ or ["*"]
    tasks = [t for t in task_folders(target) if any(fnmatch.fnmatch(t.name, g) for g in globs)]
    if not tasks:
        what = f" matching {', '.join(globs)}" if filter_ else ""
        _fail(f"no task folder (with graph_list.txt){what} in {target}.")
    return tasks


def _parameters(device: str, warmup: int | None, trials: int | None, timeout: float) -> Parameters:
    """The synthesizer's own verification settings for DEVICE, with the options given."""
    from passnet.synth.driver import synth_parameters

    updates = {"warmup": warmup, "trials": trials, "timeout_s": timeout}
    return synth_parameters(device).model_copy(
        update={k: v for k, v in updates.items() if v is not None}
    )


def _results_table(device: str, tasks: list[Path], results: list[SynthResult]) -> Table:
    """One row a task: what became of it, its rules, worst tolerance level and speedup."""
    from rich.table import Table

    table = Table(title=f"passnet synth ({device})", expand=False)
    for col in ("task", "status", "rules", "worst t", "speedup", "reason"):
        table.add_column(col, overflow="fold")
    for path, r in zip(tasks, results, strict=True):
        ver = r.verification or {}
        ts = [v["tightest_t"] for v in ver.get("variants", []) if v["tightest_t"] is not None]
        speed = ver.get("gmean_speedup")
        colour = "green" if r.status == "written" else "yellow"
        table.add_row(path.name, f"[{colour}]{r.status}[/]", str(len(r.rules)),
                      str(max(ts)) if ts else "-", f"{speed:.3f}x" if speed else "-",
                      r.reason or "")  # fmt: skip
    return table


def _summary(tasks: list[Path], results: list[SynthResult]) -> list[dict[str, Any]]:
    """The rows of OUT/summary.json, one a task."""
    summary = []
    for path, r in zip(tasks, results, strict=True):
        speed = (r.verification or {}).get("gmean_speedup")
        summary.append({"task": path.name, "status": r.status, "reason": r.reason,
                        "rules": len(r.rules), "gmean_speedup": speed})  # fmt: skip
    return summary


def _write_summary(
    console: Console, out: Path, summary: list[dict[str, Any]], verify: bool, reused: int = 0
) -> None:
    """How many tasks got a pass (and were reused), OUT/summary.json and, for verified passes,
    their trajectories."""
    written = sum(s["status"] == "written" for s in summary)
    again = f", {reused} reused" if reused else ""
    console.print(
        f"{written} of {len(summary)} task(s) got a pass{again}; reports in {out}/<task>/synth.json"
    )
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if verify:
        from passnet.synth.trajectory import collect_trajectories

        console.print(f"trajectories (agent record format): {collect_trajectories(out)}")


def register(app: typer.Typer) -> None:
    app.command(
        "synth", epilog="Example: passnet synth examples/suite --out runs/synth --keep correct"
    )(synth_cmd)
