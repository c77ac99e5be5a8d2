"""``passnet accelerate``: a whole model compiled with a pass library, checked and timed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from passnet.cli.common import check_device, check_out_file, console
from passnet.cli.common import fail as _fail
from passnet.cli.options import JsonOut, Rounds

if TYPE_CHECKING:
    from passnet.accelerate.library import PassLibrary
    from passnet.accelerate.models import LoadedModel
    from passnet.accelerate.run import AccelerateResult


def _fmt(x: float | None, spec: str = ",.1f") -> str:
    return "-" if x is None else format(x, spec)


def _print(result, all_rules: bool = False) -> None:  # noqa: ANN001 - AccelerateResult
    rules = Table(title=f"{result.model} {result.shape} — rules fired ({result.device}, "
                  f"inner {result.inner})", expand=False)  # fmt: skip
    for col in ("rule", "fired", "launched by", "where (first 3)", "lost to overlaps", "fell back"):
        rules.add_column(col, overflow="fold")
    idle, whys = 0, []
    for name, r in result.rules.items():
        if not (all_rules or r["count"] or r["skipped_overlaps"]):
            idle += 1
            continue
        where = ", ".join(w["module"] or "+".join(w["nodes"]) for w in r["where"][:3])
        where += f" (+{len(r['where']) - 3})" if len(r["where"]) > 3 else ""
        lost = ", ".join(f"{'+'.join(s['nodes'])} to {', '.join(s['held_by'])}"
                         for s in r["skipped_overlaps"][:3])  # fmt: skip
        lost += f" (+{len(r['skipped_overlaps']) - 3})" if len(r["skipped_overlaps"]) > 3 else ""
        back = f"{r['fallback_calls']} calls: {r['fallback_reason']}" if r["fallback_calls"] else ""
        launch = ", ".join(f"{k} {n}" for k, n in r.get("launch", {}).items())
        rules.add_row(escape(name), str(r["count"]), escape(launch),
                      escape(where or r["miss"][:160]), escape(lost), escape(back))  # fmt: skip
        if r.get("launch_why") and r.get("launch", {}).get("inductor") != r["count"]:
            whys.append(f"{name}: {r['launch_why']}")
    console.print(rules)
    fused = [f"{kind} {n_fused}/{n_found}" for kind, (n_found, n_fused) in result.sites.items()
             if n_found]  # fmt: skip
    if fused:
        console.print(f"sites fused (sites.py): {', '.join(fused)}")
    for why in whys[:5]:  # why a rule's kernels are not launched by Inductor itself
        console.print(f"[dim]opaque op: {escape(why[:300])}[/]", soft_wrap=True)
    if idle:
        console.print(f"[dim]{idle} more rule(s) matched nothing (--all-rules lists them "
                      "with their closest miss)[/]")  # fmt: skip
    for g in result.graphs:
        if g["note"]:
            console.print(f"[yellow]graph {g['graph']}:[/] {escape(g['note'])}", soft_wrap=True)
        if g.get("tune"):
            console.print(f"graph {g['graph']}: {escape(g['tune'])}", soft_wrap=True)
    checks = Table(title="outputs vs eager (SPEC tolerance levels)", expand=False)
    for col in ("side", "tightest t", "max abs diff", "max rel diff", "error"):
        checks.add_column(col, overflow="fold")
    for c in result.checks.values():
        checks.add_row(c.side, _fmt(c.tightest_t, "d"), _fmt(c.max_abs_diff, ".3g"),
                       _fmt(c.max_rel_diff, ".3g"), escape(c.error[:300]))  # fmt: skip
    console.print(checks)
    colour = "green" if result.correct else "red"
    console.print(f"[{colour}]{escape(result.verdict)}[/]", soft_wrap=True)
    if result.timing:
        times = Table(title="end-to-end latency (median of wall time per call)", expand=False)
        for col in ("side", "median µs", "IQR µs", "noisy"):
            times.add_column(col)
        for side, t in result.timing.items():
            w = t["wall"]
            times.add_row(side, _fmt(w["median_us"]), _fmt(w["iqr_us"]), str(w["noisy"]))
        console.print(times)
        console.print("  ".join(f"{k} = {v:.3f}x" for k, v in result.speedups.items()))
    console.print(f"[dim]{escape(result.timing_note)}[/]", soft_wrap=True)


# The command's two inputs; their help is long enough to crowd its signature.
ModelSpec = Annotated[
    str,
    typer.Argument(
        help="a zoo model (bert, torchvision/resnet18, ...) "
        "or path/to/module.py:factory returning (model, inputs)"
    ),
]
PassFolders = Annotated[
    list[Path],
    typer.Option(
        "--passes",
        help="pass folder, or a folder of them (examples/passes, a synth --out "
        "folder, an agent run); repeat for more; earlier folders win overlaps",
    ),
]


def accelerate_cmd(
    model: ModelSpec,
    passes: PassFolders,
    device: Annotated[str, typer.Option(help="cpu (Triton interpreter) or cuda[:N]")] = "cpu",
    batch: Annotated[
        int | None, typer.Option(min=1, help="batch size [the zoo's first shape]")
    ] = None,
    size: Annotated[
        int | None, typer.Option(min=1, help="sequence length / resolution / samples")
    ] = None,
    dtype: Annotated[str, typer.Option(help="float32, float16 or bfloat16")] = "float32",
    hidden: Annotated[
        int | None,
        typer.Option(min=2, help="a transformers zoo model's hidden size instead of its own (128)"),
    ] = None,
    inner: Annotated[
        str, typer.Option(help="what compiles the rest: inductor or eager")
    ] = "inductor",
    order: Annotated[
        str,
        typer.Option(
            help="conflict rule: folders (earlier folder, then a "
            "folder's own order) or larger (bigger pattern first)"
        ),
    ] = "folders",
    baselines: Annotated[
        bool | None,
        typer.Option(
            "--baselines/--no-baselines", help="also compile with Inductor alone [on CUDA]"
        ),
    ] = None,
    time_it: Annotated[
        bool | None,
        typer.Option(
            "--time/--no-time", help="time every side [on CUDA; on CPU the times mean nothing]"
        ),
    ] = None,
    warmup: Annotated[int, typer.Option(min=0, help="untimed calls per side")] = 20,
    trials: Annotated[int, typer.Option(min=1, help="timed calls per side")] = 100,
    rounds: Rounds = 4,
    strict_t: Annotated[int, typer.Option(help="tolerance level the outputs must pass")] = -4,
    json_out: JsonOut = None,
    all_rules: Annotated[
        bool,
        typer.Option(
            "--all-rules", help="list rules that matched nothing too, with their closest miss"
        ),
    ] = False,
    min_speedup: Annotated[
        float | None,
        typer.Option(
            help="leave out synthesised pass folders whose own task verification "
            "(their synth.json) measured them below this speedup over eager"
        ),  # fmt: skip
    ] = None,
    tune: Annotated[
        bool,
        typer.Option(
            "--tune",
            help="keep a rule at a site only where it makes the compiled graph faster (timed "
            "in place once, then read from PASSNET_TUNE_CACHE [~/.cache/passnet/tune.sqlite])",
        ),
    ] = False,
) -> None:
    """Compile MODEL with a pass library inside torch.compile, check it against eager, time it.

    Reports which rules fired where, checks the outputs against eager and times eager vs
    Inductor vs passnet (docs/accelerate.md). Exit 0 correct, 1 incorrect, 2 usage error.
    """
    _check_options(device, inner, order, json_out)
    if tune and inner != "inductor":
        _fail("--tune compares compiled graphs: it needs --inner inductor.")
    library, loaded = _load(model, passes, order, batch, size, device, dtype, min_speedup, hidden)
    for rule, why in library.unusable:
        console.print(f"[dim]left out {escape(rule)}: {escape(why)}[/]")
    for folder, speedup in library.skipped:
        console.print(f"[dim]left out {escape(str(folder))}: verified {speedup:.3f}x eager on "
                      f"its task, below --min-speedup {min_speedup}[/]")  # fmt: skip
    from passnet.accelerate.run import accelerate

    with console.status(f"compiling and checking {loaded.name} ..."):
        result = accelerate(loaded, library, device=device, dtype=dtype, inner=inner,
                            baselines=baselines, time_it=time_it, warmup=warmup, trials=trials,
                            rounds=rounds, strict_t=strict_t, tune=tune)  # fmt: skip
    if time_it and not device.startswith("cuda"):
        result.timing_note = "timed on CPU at your request: Triton's interpreter ran the passes, the times mean nothing"
    _print(result, all_rules)
    if json_out:
        _write_json(result, json_out)
    raise typer.Exit(code=0 if result.correct else 1)


def _check_options(device: str, inner: str, order: str, json_out: Path | None) -> None:
    """Exit 2 on an unusable option before the model loads. On CPU Triton's interpreter is
    switched on first: Triton reads TRITON_INTERPRET when it is imported, and torch._dynamo
    (imported by passnet.accelerate) imports it."""
    check_device(device)
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before anything imports Triton
    from passnet.accelerate.backend import INNERS
    from passnet.accelerate.library import ORDERS

    if inner not in INNERS:
        _fail(f"unknown --inner {inner!r}; use one of {', '.join(INNERS)}.")
    if order not in ORDERS:
        _fail(f"unknown --order {order!r}; use one of {', '.join(ORDERS)}.")
    check_out_file(json_out, "--json")


def _load(
    model: str,
    passes: list[Path],
    order: str,
    batch: int | None,
    size: int | None,
    device: str,
    dtype: str,
    min_speedup: float | None = None,
    hidden: int | None = None,
) -> tuple[PassLibrary, LoadedModel]:
    """The pass library and the model with its inputs, or exit 2 with what is wrong."""
    from passnet.accelerate.library import LibraryError, PassLibrary
    from passnet.accelerate.models import ModelError, load_model

    try:
        library = PassLibrary.load(passes, order=order, min_speedup=min_speedup)
        loaded = load_model(model, batch=batch, size=size, device=device, dtype=dtype,
                            hidden=hidden)  # fmt: skip
    except (LibraryError, ModelError) as e:
        _fail(str(e))
    return library, loaded


def _write_json(result: AccelerateResult, json_out: Path) -> None:
    """The whole result as JSON (the path was checked before the model loaded)."""
    json_out.write_text(
        json.dumps(result.to_json(), indent=2, default=str) + "\n", encoding="utf-8"
    )
    console.print(f"[dim]result written to {escape(str(json_out))}[/]")


def register(app: typer.Typer) -> None:
    app.command(
        "accelerate", epilog="Example: passnet accelerate bert --passes examples/synth_passes"
    )(accelerate_cmd)
