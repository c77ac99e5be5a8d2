"""``passnet dataset ...``: build | import | decompose | tasks | stats | export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from passnet.cli.common import fail as _fail

console = Console()
err = Console(stderr=True)
dataset_app = typer.Typer(
    name="dataset",
    help="Build PassNet-Dataset: capture real models, decompose graphs, group tasks, export "
    "suites.",
    epilog="Example: passnet dataset build bert --shapes 1x16,4x128",
    no_args_is_help=True,
)

Root = Annotated[Path, typer.Option("--root", help="dataset folder (catalog.sqlite + samples/)")]
Workers = Annotated[int, typer.Option(help="worker processes [CPU cores]")]
DEFAULT_ROOT = Path("dataset")


def _user_errors() -> tuple[type[Exception], ...]:
    from passnet.dataset.catalog import CatalogError
    from passnet.dataset.export import ExportError
    from passnet.dataset.pipeline import PipelineError
    from passnet.dataset.zoo import ZooError

    return ZooError, PipelineError, CatalogError, ExportError


def _workers(n: int | None) -> int:
    from passnet.dataset.pipeline import default_workers

    return n if n and n > 0 else default_workers()


def _report(report, fail_exit: bool = False) -> None:  # noqa: ANN001 - StageReport
    """Print what a stage did; with ``fail_exit``, exit 1 after it if anything failed."""
    parts = ", ".join(f"{k} {v}" for k, v in sorted(report.by_status.items())) or "nothing to do"
    console.print(
        f"[bold]{report.stage}[/]: {parts}; {report.skipped_done} already done; {report.seconds:.1f} s"
    )
    for key, value in report.extra.items():
        console.print(f"  {key}: {value}")
    for failure in report.failures[:50]:
        console.print(f"  [yellow]{escape(failure)}[/]", soft_wrap=True)
    for note in report.notes[:50]:
        console.print(f"  [dim]{escape(note)}[/]", soft_wrap=True)
    if fail_exit and report.failures:
        raise typer.Exit(code=1)


@dataset_app.command("build", epilog="Example: passnet dataset build bert --shapes 1x16,4x128")
def build_cmd(
    models: Annotated[
        list[str] | None, typer.Argument(help="zoo model names [all available]")
    ] = None,
    root: Root = DEFAULT_ROOT,
    library: Annotated[str | None, typer.Option(help="only models of this library")] = None,
    shapes: Annotated[
        str | None, typer.Option(help="BATCHxSIZE list, e.g. 1x16,4x128 [zoo's]")
    ] = None,
    workers: Workers = 0,
    max_model_gb: Annotated[
        float | None, typer.Option(help="larger weights: capture on meta")
    ] = None,
    retry_failed: Annotated[bool, typer.Option(help="retry captures that failed before")] = False,
    list_models: Annotated[bool, typer.Option("--list", help="list the zoo and exit")] = False,
) -> None:
    """Capture zoo models (random weights, no download) into validated GraphNet graphs."""
    from passnet.dataset import pipeline, zoo

    try:
        chosen = zoo.select(models or None, library)
        if list_models:
            for m in chosen:
                shapes_text = ",".join(s.key for s in m.shapes)
                console.print(f"{m.name:34} {m.family:11} {m.domain:10} {shapes_text:18} "
                              f"{m.unavailable() or 'available'}", soft_wrap=True)  # fmt: skip
            return
        shape_list = [zoo.Shape.parse(s) for s in shapes.split(",")] if shapes else None
        max_bytes = int(max_model_gb * 2**30) if max_model_gb else None
        report = pipeline.build(root, chosen, shapes=shape_list, workers=_workers(workers),
                                max_bytes=max_bytes, retry_failed=retry_failed)  # fmt: skip
    except _user_errors() as e:
        _fail(str(e))
    _report(report)


@dataset_app.command(
    "import", epilog="Example: passnet dataset import /data/graphnet/samples --family bert"
)
def import_cmd(
    paths: Annotated[list[Path], typer.Argument(help="GraphNet sample folders (any depth)")],
    root: Root = DEFAULT_ROOT,
    family: Annotated[str | None, typer.Option(help="model family of all imported graphs")] = None,
    workers: Workers = 0,
    retry_failed: Annotated[bool, typer.Option(help="retry imports that failed before")] = False,
) -> None:
    """Import GraphNet graph folders (validated by running them) into the dataset.

    Exit 1 if any folder is not in (failed now or before, or no graph below a path).
    """
    from passnet.dataset import pipeline

    try:
        report = pipeline.import_graphs(root, paths, family=family, workers=_workers(workers),
                                        retry_failed=retry_failed)  # fmt: skip
    except _user_errors() as e:
        _fail(str(e))
    _report(report, fail_exit=True)  # the valid graphs are in; the exit code says some were not


@dataset_app.command("decompose", epilog="Example: passnet dataset decompose --kinds fusible")
def decompose_cmd(
    root: Root = DEFAULT_ROOT,
    kinds: Annotated[str, typer.Option(help="fusible,typical,single")] = "fusible,typical,single",
    device: Annotated[str, typer.Option(help="device whose Inductor kernels are counted")] = "cpu",
    max_compiles: Annotated[int, typer.Option(help="prefix compiles per graph (cap)")] = 64,
    window: Annotated[int, typer.Option(help="ops per prefix-analysis window")] = 16,
    dtypes: Annotated[str, typer.Option(help="dtype variants")] = "float32,float16,bfloat16",
    single_limit: Annotated[int, typer.Option(help="single-op subgraphs per graph")] = 32,
    typical_limit: Annotated[int, typer.Option(help="typical subgraphs per graph")] = 16,
    workers: Workers = 0,
    redo: Annotated[
        bool, typer.Option(help="decompose graphs that are already done again")
    ] = False,
    retry_failed: Annotated[
        bool, typer.Option(help="decompose graphs whose decomposition failed before")
    ] = False,
) -> None:
    """Cut fusible / typical / single-op subgraphs with dtype and shape-bucket variants."""
    from passnet.dataset import pipeline
    from passnet.dataset.decompose import KINDS
    from passnet.dataset.jobs import DecomposeConfig
    from passnet.dataset.variants import DTYPES

    kind_list = tuple(k.strip() for k in kinds.split(",") if k.strip())
    dtype_list = tuple(d.strip() for d in dtypes.split(",") if d.strip())
    if bad := [k for k in kind_list if k not in KINDS]:
        _fail(f"unknown kind(s) {', '.join(bad)}; known: {', '.join(KINDS)}")
    if bad := [d for d in dtype_list if d not in DTYPES]:
        _fail(f"unknown dtype(s) {', '.join(bad)}; known: {', '.join(DTYPES)}")
    cfg = DecomposeConfig(kinds=kind_list, device=device, max_compiles=max_compiles, window=window,
                          dtypes=dtype_list, single_limit=single_limit, typical_limit=typical_limit)  # fmt: skip
    try:
        report = pipeline.decompose(root, cfg, workers=_workers(workers), redo=redo,
                                    retry_failed=retry_failed)  # fmt: skip
    except _user_errors() as e:
        _fail(str(e))
    _report(report, fail_exit=True)  # the subgraphs cut are in; exit 1 says some graphs failed


@dataset_app.command("tasks", epilog="Example: passnet dataset tasks --curate --device cuda")
def tasks_cmd(
    root: Root = DEFAULT_ROOT,
    kinds: Annotated[str, typer.Option(help="subgraph kinds to group")] = "fusible",
    max_per_cell: Annotated[int, typer.Option(help="variants per (bucket, dtype) cell")] = 2,
    eval_fraction: Annotated[float, typer.Option(help="share of tasks in eval")] = 0.2,
    split_by: Annotated[str, typer.Option(help="task or family")] = "task",
    seed: Annotated[int, typer.Option(help="split seed")] = 0,
    curate: Annotated[bool, typer.Option(help="measure eager vs Inductor, mark long-tail")] = False,
    device: Annotated[str, typer.Option(help="device for --curate")] = "cpu",
    top: Annotated[int, typer.Option(help="long-tail tasks to keep")] = 30,
    threshold: Annotated[
        float, typer.Option(help="Inductor speedup below which a task is weak")
    ] = 1.0,
) -> None:
    """Group subgraphs into tasks, split train/eval without leakage, optionally curate."""
    from passnet.dataset import tasks as T
    from passnet.dataset.catalog import Catalog

    kind_list = tuple(k.strip() for k in kinds.split(",") if k.strip())
    if split_by not in T.SCHEMES:
        _fail(f"unknown --split-by {split_by!r}; known: {', '.join(T.SCHEMES)}")
    try:
        with Catalog(root, create=False) as cat:
            specs = T.group_tasks(cat, kind_list, max_per_cell)
            T.save_tasks(cat, specs)
            sides = T.split_tasks(cat, eval_fraction=eval_fraction, by=split_by, seed=seed)
            T.check_no_leakage(cat, split_by, seed)
            console.print(f"{len(specs)} task(s); eval {sum(s == 'eval' for s in sides.values())}, "
                          f"train {sum(s == 'train' for s in sides.values())} (split by {split_by})")  # fmt: skip
            for empty in {"eval", "train"} - set(sides.values()):
                console.print(f"[yellow]warning: no task on the {empty} side (too few tasks or "
                              f"{split_by} groups for --eval-fraction {eval_fraction})[/]")  # fmt: skip
            if curate:
                from passnet.evaluation.evaluator import measure_inductor

                ranked = T.curate(cat, device=device, top=top, threshold=threshold, measure=measure_inductor,
                                  on_measured=lambda t, r: console.print(f"  {t}: {r['status']} {r['speedup']}"))  # fmt: skip
                bench = sum(
                    1
                    for r in ranked
                    if r["inductor_failed"] or (r["gmean_speedup"] or 9) < threshold
                )
                console.print(f"long-tail: {min(bench, top)} of {len(ranked)} task(s) marked bench")
    except _user_errors() as e:
        _fail(str(e))


@dataset_app.command("stats", epilog="Example: passnet dataset stats --tasks")
def stats_cmd(
    root: Root = DEFAULT_ROOT,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    tasks: Annotated[bool, typer.Option("--tasks", help="list tasks")] = False,
) -> None:
    """Print counts: models, captures, dedup ratio, subgraphs per kind, variants, tasks, splits."""
    from passnet.dataset.catalog import Catalog
    from passnet.dataset.export import stats

    try:
        with Catalog(root, create=False) as cat:
            s = stats(cat)
            task_rows = cat.rows(
                "SELECT name, n_variants, families, buckets, dtypes FROM tasks ORDER BY name"
            )
    except _user_errors() as e:
        _fail(str(e))
    if as_json:
        console.print_json(json.dumps(s | ({"task_list": task_rows} if tasks else {})))
        return
    for key, value in s.items():
        if key != "failures":
            console.print(f"[bold]{key}[/]: {value}", soft_wrap=True)
    for failure in s["failures"]:
        console.print(f"  [yellow]{failure}[/]", soft_wrap=True)
    if tasks:
        table = Table("task", "variants", "families", "buckets", "dtypes")
        for r in task_rows:
            table.add_row(r["name"], str(r["n_variants"]), r["families"], r["buckets"], r["dtypes"])
        console.print(table)


@dataset_app.command("export", epilog="Example: passnet dataset export runs/my_suite --split bench")
def export_cmd(
    out: Annotated[Path, typer.Argument(help="folder (task folders) or FILE.parquet")],
    root: Root = DEFAULT_ROOT,
    kind: Annotated[str, typer.Option(help="subgraph kind")] = "fusible",
    split: Annotated[str | None, typer.Option(help="eval, train, or bench (long-tail)")] = None,
    scheme: Annotated[str, typer.Option(help="split scheme: task or family")] = "task",
    task: Annotated[list[str] | None, typer.Option(help="task name (repeatable)")] = None,
    limit: Annotated[int | None, typer.Option(help="at most this many tasks")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace a non-empty folder")] = False,
) -> None:
    """Export tasks as PassNet task folders (passnet eval runs them) or as Parquet."""
    from passnet.dataset.catalog import Catalog
    from passnet.dataset.export import export_folders, export_parquet, select_tasks

    try:
        with Catalog(root, create=False) as cat:
            rows = select_tasks(cat, kind=kind, split=split, scheme=scheme, names=task, limit=limit)
            if out.suffix == ".parquet":
                path = export_parquet(cat, rows, out, scheme=scheme)
            else:
                path = export_folders(cat, rows, out, scheme=scheme, overwrite=overwrite)
    except _user_errors() as e:
        _fail(str(e))
    console.print(f"exported {len(rows)} task(s) to {path}")


def register(app: typer.Typer) -> None:
    """Add ``passnet dataset`` to the main CLI."""
    app.add_typer(dataset_app, name="dataset")
