"""``passnet synth``: write a verified pass folder for each task of a task or suite folder."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from passnet.cli.common import check_device
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
) -> None:
    """Synthesize one Triton pass per task from its graph (no LLM); see docs/synth.md."""
    from rich.console import Console

    from passnet.synth.driver import synthesize_tasks

    console = Console()
    tasks = _tasks(target, device, keep, filter_)
    params = _parameters(device, warmup, trials, timeout)
    done = 0

    def progress(_: int, r: SynthResult) -> None:
        nonlocal done
        done += 1
        console.print(f"[dim][{done}/{len(tasks)}][/] {Path(r.task).name}: {r.status}")

    if workers is None:
        from passnet.evaluation.evaluator import host_workers

        workers = host_workers(device)
    results = synthesize_tasks([(p, None) for p in tasks], out, workers=workers,
                               on_result=progress, device=device, verify=verify,
                               parameters=params, tune=tune, keep=keep,
                               literal_shapes=literal_shapes)  # fmt: skip
    console.print(_results_table(device, tasks, results))
    _write_summary(console, out, _summary(tasks, results), verify)


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
    console: Console, out: Path, summary: list[dict[str, Any]], verify: bool
) -> None:
    """How many tasks got a pass, OUT/summary.json and, for verified passes, their trajectories."""
    written = sum(s["status"] == "written" for s in summary)
    console.print(
        f"{written} of {len(summary)} task(s) got a pass; reports in {out}/<task>/synth.json"
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
