"""Supervised fine-tuning on an exported dataset with TRL's SFTTrainer (upstream's recipe).

Upstream (SPEC section 1) fine-tuned Qwen3-30B-A3B on 3,899 trajectories: learning rate 2e-5
with cosine decay to 2e-6, global batch 8, 5 epochs; those are the defaults. The loss is on
the assistant turns only (TRL's ``assistant_only_loss``: the chat template's
``{% generation %}`` markers, or TRL's patched training template for the model families it
knows). Checkpoints go to ``OUT/checkpoints`` every ``save_steps``; ``resume`` continues from
the last one. With LoRA the adapter is saved under ``OUT/adapter`` and merged into the full
model at ``OUT``, so ``--backend hf`` and vLLM load ``OUT`` like any checkpoint. Several GPUs:
``accelerate launch -m passnet.cli train sft ...`` (the global batch stays ``batch_size``).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from passnet.train.export import load_chat_dataset


class SFTError(Exception):
    """A run that cannot start (bad model folder, no checkpoint to resume); says what to fix."""


@dataclass
class SFTRecipe:
    """Hyperparameters; defaults are upstream's recipe."""

    learning_rate: float = 2e-5
    min_learning_rate: float = 2e-6
    epochs: float = 5.0
    batch_size: int = 8  # global: micro batch x accumulation x processes
    micro_batch_size: int = 1
    max_length: int | None = 32768  # tokens per conversation; longer ones are cut at the end
    warmup_ratio: float = 0.0  # upstream states none
    weight_decay: float = 0.0
    max_steps: int = -1  # > 0 overrides epochs (smoke runs)
    save_steps: int = 200
    save_total_limit: int = 3
    logging_steps: int = 10
    gradient_checkpointing: bool = True
    assistant_only_loss: bool = True
    bf16: bool | None = None  # None: on when a GPU supports it
    lora: bool = False
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    lora_target: list[str] = field(default_factory=lambda: ["all-linear"])
    seed: int = 0


def _world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


def accumulation_steps(recipe: SFTRecipe, world_size: int) -> int:
    """Gradient accumulation that makes the global batch ``batch_size``."""
    per_step = recipe.micro_batch_size * world_size
    if recipe.batch_size % per_step:
        raise SFTError(
            f"batch size {recipe.batch_size} is not a multiple of micro batch "
            f"{recipe.micro_batch_size} x {world_size} process(es)"
        )
    return recipe.batch_size // per_step


def sft_config(recipe: SFTRecipe, out: Path, use_bf16: bool) -> Any:
    """TRL's ``SFTConfig`` for the recipe."""
    from trl import SFTConfig

    extra: dict[str, Any] = {}
    if not recipe.gradient_checkpointing:  # TRL's default is on (the name is deprecated)
        extra["gradient_checkpointing"] = False
    return SFTConfig(
        output_dir=str(out / "checkpoints"),
        learning_rate=recipe.learning_rate,
        lr_scheduler_type="cosine_with_min_lr",
        lr_scheduler_kwargs={"min_lr": recipe.min_learning_rate},
        warmup_steps=recipe.warmup_ratio,
        num_train_epochs=recipe.epochs,
        max_steps=recipe.max_steps,
        per_device_train_batch_size=recipe.micro_batch_size,
        gradient_accumulation_steps=accumulation_steps(recipe, _world_size()),
        weight_decay=recipe.weight_decay,
        max_length=recipe.max_length,
        assistant_only_loss=recipe.assistant_only_loss,
        bf16=use_bf16,
        save_strategy="steps",
        save_steps=recipe.save_steps,
        save_total_limit=recipe.save_total_limit,
        logging_steps=recipe.logging_steps,
        report_to="none",
        seed=recipe.seed,
        dataset_num_proc=None,
        include_num_input_tokens_seen="non_padding",  # tokens/s in train_metrics.json
        **extra,
    )


def _lora_config(recipe: SFTRecipe) -> Any:
    from peft import LoraConfig

    target = recipe.lora_target[0] if recipe.lora_target == ["all-linear"] else recipe.lora_target
    return LoraConfig(
        r=recipe.lora_r,
        lora_alpha=recipe.lora_alpha,
        lora_dropout=recipe.lora_dropout,
        target_modules=target,
        task_type="CAUSAL_LM",
    )


def last_checkpoint(out: Path) -> Path | None:
    """The newest ``checkpoint-N`` folder of a run, or None."""
    folder = out / "checkpoints"
    found = [p for p in folder.glob("checkpoint-*") if p.name.split("-")[-1].isdigit()]
    return max(found, key=lambda p: int(p.name.split("-")[-1]), default=None)


def run_sft(
    dataset: Path, model: str, out: Path, recipe: SFTRecipe | None = None, resume: bool = False
) -> dict[str, Any]:
    """Fine-tune ``model`` (a checkpoint folder or hub id) on ``dataset``; the final model and
    tokenizer go to ``out``. Returns the trainer's metrics plus steps and tokens seen."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTTrainer

    recipe = recipe or SFTRecipe()
    train = load_chat_dataset(dataset, "train")
    if len(train) == 0:
        raise SFTError(f"{dataset}: the train split is empty")
    resume_from = None
    if resume:
        resume_from = last_checkpoint(out)
        if resume_from is None:
            raise SFTError(f"--resume: no checkpoint in {out / 'checkpoints'}; start without it")
    try:
        tokenizer = AutoTokenizer.from_pretrained(model)
        net = AutoModelForCausalLM.from_pretrained(model, dtype="auto")
    except (OSError, ValueError) as exc:
        raise SFTError(f"cannot load {model!r}: {exc}") from exc
    if tokenizer.chat_template is None:
        raise SFTError(f"{model!r} has no chat template; fine-tune a chat/instruct model")
    use_bf16 = recipe.bf16
    if use_bf16 is None:
        use_bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    trainer = SFTTrainer(
        model=net,
        args=sft_config(recipe, out, use_bf16),
        train_dataset=train,
        processing_class=tokenizer,
        peft_config=_lora_config(recipe) if recipe.lora else None,
    )
    result = trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
    trained = trainer.model
    if recipe.lora:
        trained.save_pretrained(str(out / "adapter"))
        trained = trained.merge_and_unload()
    if trainer.accelerator.is_main_process:
        trained.save_pretrained(str(out))
        tokenizer.save_pretrained(str(out))
    metrics = dict(result.metrics)
    metrics["global_step"] = result.global_step
    metrics["rows"] = len(train)
    metrics["steps_per_epoch"] = math.ceil(len(train) / recipe.batch_size)
    metrics.update(throughput(trainer.state.num_input_tokens_seen, metrics.get("train_runtime")))
    if trainer.accelerator.is_main_process:
        (out / "train_metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics


def peak_memory_gib() -> float | None:
    """The peak GPU memory this process allocated (GiB); None without a GPU."""
    import torch

    if not torch.cuda.is_available():
        return None
    return round(torch.cuda.max_memory_allocated() / 2**30, 3)


def throughput(tokens: float | None, runtime: float | None) -> dict[str, Any]:
    """Tokens trained on (non-padding input tokens the trainer counted), tokens per second
    over the run, and the process's peak GPU memory."""
    rate = round(tokens / runtime, 1) if tokens and runtime else None
    return {"num_tokens": tokens, "tokens_per_second": rate, "peak_memory_gib": peak_memory_gib()}
