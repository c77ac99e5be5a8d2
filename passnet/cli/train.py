"""CLI: ``passnet train export|stats|sft|tiny-model`` (docs/training.md).

Needs the ``train`` extra (TRL, PEFT, datasets, accelerate, gymnasium); without TRL the whole
group is left out of ``passnet`` (the registration loop skips this module), so a partial
install still starts. Everything heavy is imported inside the commands.
"""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path
from typing import Annotated

import typer

from passnet.cli.common import console
from passnet.cli.common import fail as _fail
from passnet.core.bundled import missing_hint

if find_spec("trl") is None:  # skipped by passnet.cli's registration loop
    raise ModuleNotFoundError("passnet train needs: pip install 'passnet[train]'", name="trl")

train_app = typer.Typer(
    help="Fine-tune on trajectories: export a chat dataset, SFT, GRPO, tiny models.",
    epilog="Example: passnet train sft runs/sft-data --model Qwen/Qwen2.5-0.5B --out runs/sft",
)


def _quiet_datasets() -> None:
    from datasets.utils.logging import disable_progress_bar

    disable_progress_bar()


@train_app.command(
    "export",
    epilog="Example: passnet train export runs/agent --out runs/sft-data --exclude-suite examples/heldout",
)
def export_cmd(
    trajectories: Annotated[
        list[Path],
        typer.Argument(help="trajectories.jsonl files, trajectory.json files, or run folders"),
    ],
    out: Annotated[Path, typer.Option(help="dataset folder to write")],
    min_as: Annotated[float, typer.Option(help="keep final_AS > this (upstream: 0.1)")] = 0.1,
    correct_only: Annotated[
        bool,
        typer.Option(
            "--correct-only/--any-correctness",
            help="also require the best snapshot correct on every graph (docs/agent.md)",
        ),
    ] = True,
    exclude_suite: Annotated[
        list[Path] | None,
        typer.Option(help="evaluation suite whose tasks must not be trained on (repeatable)"),
    ] = None,
    drop_leaks: Annotated[
        bool,
        typer.Option("--drop-leaks", help="leave leaking records out instead of refusing"),
    ] = False,
    val_fraction: Annotated[
        float, typer.Option(min=0.0, max=0.9, help="share of tasks held out as validation")
    ] = 0.0,
    seed: Annotated[int, typer.Option(help="seed of the validation split")] = 0,
) -> None:
    """Export trajectories as a chat fine-tuning dataset (datasets folder + JSONL).

    Refuses tasks of the excluded suites (--exclude-suite).
    """
    from passnet.train.export import ExportError, export_dataset
    from passnet.train.leak import LeakError

    _quiet_datasets()
    try:
        report = export_dataset(trajectories, out, min_as, correct_only, exclude_suite or [],
                                drop_leaks, val_fraction, seed)  # fmt: skip
    except (ExportError, LeakError) as exc:
        _fail(str(exc))
    dropped = ", ".join(f"{n} {why}" for why, n in sorted(report.dropped.items())) or "none"
    console.print(
        f"{report.records} record(s) read; kept {report.kept.get('train', 0)} train, "
        f"{report.kept.get('validation', 0)} validation row(s) over "
        f"{sum(len(t) for t in report.tasks.values())} task(s); dropped: {dropped}"
    )
    for leak in report.leaks:
        console.print(f"[yellow]left out (evaluation task):[/] {leak}")
    console.print(f"dataset in {out} (datasets.load_from_disk, or the .jsonl files)")


@train_app.command("stats", epilog="Example: passnet train stats runs/sft-data")
def stats_cmd(
    dataset: Annotated[Path, typer.Argument(help="an exported folder or a .jsonl of rows")],
    tokenizer: Annotated[
        str | None, typer.Option(help="count tokens with this tokenizer's chat template")
    ] = None,
    split: Annotated[str, typer.Option(help="split of a dataset folder")] = "train",
) -> None:
    """Print counts, turns, token lengths and score spread of a dataset."""
    from passnet.train.export import ExportError, load_chat_dataset
    from passnet.train.stats import dataset_stats

    _quiet_datasets()
    try:
        data = load_chat_dataset(dataset, split)
    except ExportError as exc:
        _fail(str(exc))
    tok = None
    if tokenizer:
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(tokenizer)
    console.print_json(json.dumps(dataset_stats(list(data), tok)))


@train_app.command(
    "sft",
    epilog="Example: passnet train sft runs/sft-data --model Qwen/Qwen2.5-0.5B --out runs/sft",
)
def sft_cmd(
    dataset: Annotated[Path, typer.Argument(help="an exported folder or a .jsonl of rows")],
    model: Annotated[str, typer.Option(help="base model: checkpoint folder or hub id")],
    out: Annotated[Path, typer.Option(help="where the fine-tuned checkpoint goes")],
    learning_rate: Annotated[float, typer.Option(help="peak learning rate")] = 2e-5,
    min_learning_rate: Annotated[float, typer.Option(help="cosine floor")] = 2e-6,
    epochs: Annotated[float, typer.Option(help="passes over the data")] = 5.0,
    batch_size: Annotated[int, typer.Option(help="global batch (conversations)")] = 8,
    micro_batch_size: Annotated[int, typer.Option(help="per device and step")] = 1,
    max_length: Annotated[
        int, typer.Option(help="tokens per conversation (cut at the end)")
    ] = 32768,
    max_steps: Annotated[int, typer.Option(help="stop after N optimizer steps (-1: epochs)")] = -1,
    warmup_ratio: Annotated[float, typer.Option(help="share of steps warming up")] = 0.0,
    save_steps: Annotated[int, typer.Option(help="checkpoint every N steps")] = 200,
    lora: Annotated[bool, typer.Option("--lora", help="train a LoRA adapter (PEFT)")] = False,
    lora_r: Annotated[int, typer.Option(help="LoRA rank")] = 16,
    lora_alpha: Annotated[int, typer.Option(help="LoRA alpha")] = 32,
    all_tokens: Annotated[
        bool, typer.Option("--all-tokens", help="loss on every token, not only assistant turns")
    ] = False,
    gradient_checkpointing: Annotated[
        bool, typer.Option("--gradient-checkpointing/--no-gradient-checkpointing")
    ] = True,
    resume: Annotated[
        bool, typer.Option("--resume", help="continue from the last checkpoint in OUT")
    ] = False,
    seed: Annotated[int, typer.Option(help="training seed")] = 0,
) -> None:
    """Fine-tune MODEL on DATASET with TRL's SFTTrainer (upstream's recipe by default)."""
    from passnet.train.export import ExportError
    from passnet.train.sft import SFTError, SFTRecipe, run_sft

    _quiet_datasets()
    recipe = SFTRecipe(
        learning_rate=learning_rate,
        min_learning_rate=min_learning_rate,
        epochs=epochs,
        batch_size=batch_size,
        micro_batch_size=micro_batch_size,
        max_length=max_length,
        max_steps=max_steps,
        warmup_ratio=warmup_ratio,
        save_steps=save_steps,
        lora=lora,
        lora_r=lora_r,
        lora_alpha=lora_alpha,
        assistant_only_loss=not all_tokens,
        gradient_checkpointing=gradient_checkpointing,
        seed=seed,
    )
    try:
        metrics = run_sft(dataset, model, out, recipe, resume=resume)
    except (SFTError, ExportError) as exc:
        _fail(str(exc))
    console.print(
        f"{metrics['global_step']} step(s) over {metrics['rows']} conversation(s), train loss "
        f"{metrics.get('train_loss', float('nan')):.4f}; checkpoint in {out}"
    )
    tps, peak = metrics.get("tokens_per_second"), metrics.get("peak_memory_gib")
    if tps or peak:
        console.print(f"{metrics.get('num_tokens') or 0:.0f} tokens, {tps or '-'} tokens/s, "
                      f"peak GPU memory {peak if peak is not None else '-'} GiB "
                      f"({out / 'train_metrics.json'})")  # fmt: skip
    console.print(f"run it: passnet agent run SUITE --backend hf --model {out}")


@train_app.command(
    "grpo", epilog="Example: passnet train grpo examples/suite --model runs/sft --out runs/grpo"
)
def grpo_cmd(
    tasks: Annotated[Path, typer.Argument(help="a task folder or a suite of task folders")],
    model: Annotated[str, typer.Option(help="policy: a checkpoint folder (after SFT)")],
    out: Annotated[Path, typer.Option(help="where the trained model and logs go")],
    steps: Annotated[int, typer.Option(min=1, help="optimizer steps")] = 10,
    generations: Annotated[int, typer.Option(min=2, help="completions per prompt")] = 8,
    batch_size: Annotated[
        int, typer.Option(min=2, help="completions per device and step (x generations)")
    ] = 8,
    max_completion_length: Annotated[int, typer.Option(help="tokens per completion")] = 2048,
    learning_rate: Annotated[float, typer.Option(help="learning rate")] = 1e-6,
    reward_device: Annotated[
        str, typer.Option(help="where passes are evaluated: cpu, cuda[:N][,cuda:M]")
    ] = "cpu",
    reward_concurrency: Annotated[int, typer.Option(help="evaluations at once")] = 4,
    trials: Annotated[int | None, typer.Option(help="timed calls a side per evaluation")] = None,
    seed: Annotated[int, typer.Option(help="training seed")] = 0,
) -> None:
    """Train a policy with GRPO (TRL) against the evaluator's reward (AS less integrity penalties)."""
    from passnet.core.results import default_parameters
    from passnet.dataset.task import TaskError, load_task
    from passnet.synth.driver import task_folders
    from passnet.train.grpo import GRPOError, GRPORecipe, run_grpo

    _quiet_datasets()
    if not tasks.is_dir():
        _fail(f"{tasks} is not a task or suite folder{missing_hint(tasks)}.")
    try:
        loaded = [load_task(p) for p in task_folders(tasks)]
    except TaskError as exc:
        _fail(str(exc))
    recipe = GRPORecipe(max_steps=steps, generations=generations, batch_size=batch_size,
                        max_completion_length=max_completion_length, learning_rate=learning_rate,
                        reward_device=reward_device, reward_concurrency=reward_concurrency,
                        seed=seed)  # fmt: skip
    params = default_parameters(reward_device.split(",")[0], trials=trials)
    try:
        summary = run_grpo(loaded, model, out, recipe, params)
    except GRPOError as exc:
        _fail(str(exc))
    mean = summary["mean_reward"]
    console.print(
        f"{summary['global_step']} step(s) on {summary['tasks']} task(s), "
        f"{summary['seconds_per_step']} s a step, mean reward "
        f"{'-' if mean is None else f'{mean:.4f}'}; rewards per step in {out / 'rewards.jsonl'}"
    )


@train_app.command(
    "tiny-model", epilog="Example: passnet train tiny-model runs/tiny --dataset runs/sft-data"
)
def tiny_cmd(
    out: Annotated[Path, typer.Argument(help="checkpoint folder to write")],
    dataset: Annotated[
        Path | None, typer.Option(help="train the tokenizer on this dataset's texts")
    ] = None,
    hidden: Annotated[int, typer.Option(help="hidden size")] = 32,
    layers: Annotated[int, typer.Option(help="decoder layers")] = 2,
    heads: Annotated[int, typer.Option(help="attention heads")] = 4,
    vocab_size: Annotated[int, typer.Option(help="BPE vocabulary")] = 4000,
    seed: Annotated[int, typer.Option(help="initialisation seed")] = 0,
) -> None:
    """Build a randomly initialised Llama chat model and BPE tokenizer here (no hub)."""
    from passnet.train.tiny import build_tiny_model, dataset_texts

    texts: list[str] = []
    if dataset is not None:
        from passnet.train.export import ExportError, load_chat_dataset

        _quiet_datasets()
        try:
            texts = dataset_texts(load_chat_dataset(dataset))
        except ExportError as exc:
            _fail(str(exc))
    build_tiny_model(out, texts, hidden, layers, heads, vocab_size, seed=seed)
    console.print(f"random model ({hidden} hidden, {layers} layers) and tokenizer in {out}")


def register(app: typer.Typer) -> None:
    app.add_typer(train_app, name="train")
