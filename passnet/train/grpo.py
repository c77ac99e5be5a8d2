"""GRPO on PassBench tasks with TRL's GRPOTrainer and the evaluator's reward.

One prompt per task (``reward.grpo_rows``: the agent's system prompt and task statement);
each of ``generations`` completions per prompt is one assistant turn whose ``file_editor``
calls write a pass folder, scored by ``reward.PassReward`` (AS less the integrity penalty,
sandboxed workers, ``reward_concurrency`` at once). Every logged step's rewards, loss and
timing go to ``OUT/rewards.jsonl``; the run's summary (steps, seconds a step, mean reward,
peak GPU memory) to ``OUT/grpo_metrics.json``. Several GPUs for the policy: ``accelerate
launch -m passnet.cli train grpo ...``; the reward's evaluations use ``reward_device``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from passnet.core.results import Parameters
from passnet.dataset.task import Task


class GRPOError(Exception):
    """A run that cannot start (no tasks, a model that does not load); says what to fix."""


@dataclass
class GRPORecipe:
    """Hyperparameters of a GRPO run (TRL's defaults where not stated)."""

    max_steps: int = 10
    generations: int = 8  # completions per prompt (the group)
    batch_size: int = 8  # completions per device and step; a multiple of generations
    max_completion_length: int = 2048
    learning_rate: float = 1e-6
    temperature: float = 1.0
    reward_device: str = "cpu"
    reward_concurrency: int = 4
    integrity_penalty: float = 1.0
    b: float = 0.1
    bf16: bool | None = None  # None: on when a GPU supports it
    seed: int = 0


def grpo_config(recipe: GRPORecipe, out: Path, use_bf16: bool, use_cpu: bool) -> Any:
    from trl import GRPOConfig

    if recipe.batch_size % recipe.generations:
        raise GRPOError(
            f"batch size {recipe.batch_size} is not a multiple of {recipe.generations} generations"
        )
    return GRPOConfig(
        output_dir=str(out / "checkpoints"),
        per_device_train_batch_size=recipe.batch_size,
        num_generations=recipe.generations,
        max_completion_length=recipe.max_completion_length,
        learning_rate=recipe.learning_rate,
        temperature=recipe.temperature,
        max_steps=recipe.max_steps,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        bf16=use_bf16,
        use_cpu=use_cpu,
        seed=recipe.seed,
    )


def run_grpo(
    tasks: list[Task],
    model: str,
    out: Path,
    recipe: GRPORecipe | None = None,
    parameters: Parameters | None = None,
) -> dict[str, Any]:
    """Train ``model`` (a checkpoint folder) with GRPO against the tasks' evaluator reward;
    the final model goes to ``out``. Returns the summary written to ``grpo_metrics.json``."""
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOTrainer

    from passnet.train.reward import PassReward, grpo_rows
    from passnet.train.sft import peak_memory_gib

    recipe = recipe or GRPORecipe()
    if not tasks:
        raise GRPOError("no tasks to train on")
    try:
        tokenizer = AutoTokenizer.from_pretrained(model)
        net = AutoModelForCausalLM.from_pretrained(model, dtype="auto")
    except (OSError, ValueError) as exc:
        raise GRPOError(f"cannot load {model!r}: {exc}") from exc
    cuda = torch.cuda.is_available()
    use_bf16 = recipe.bf16 if recipe.bf16 is not None else cuda and torch.cuda.is_bf16_supported()
    reward = PassReward(tasks, device=recipe.reward_device, parameters=parameters,
                        concurrency=recipe.reward_concurrency,
                        penalty=recipe.integrity_penalty)  # fmt: skip
    base = grpo_rows(tasks, recipe.reward_device, recipe.b)
    rows = list(base)
    while len(rows) < max(2, recipe.batch_size // recipe.generations):  # prompts in one step
        rows += base
    trainer = GRPOTrainer(
        model=net,
        reward_funcs=reward,
        args=grpo_config(recipe, out, use_bf16, use_cpu=not cuda),
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
    )
    result = trainer.train()
    out.mkdir(parents=True, exist_ok=True)
    log = [e for e in trainer.state.log_history if "loss" in e or "reward" in e]
    with open(out / "rewards.jsonl", "w", encoding="utf-8") as f:
        for entry in log:
            f.write(json.dumps(entry) + "\n")
    if trainer.accelerator.is_main_process:
        trainer.model.save_pretrained(str(out))
        tokenizer.save_pretrained(str(out))
    rewards = [e["reward"] for e in log if "reward" in e]
    runtime = result.metrics.get("train_runtime")
    summary = {
        "global_step": result.global_step,
        "train_runtime": runtime,
        "seconds_per_step": round(runtime / result.global_step, 3) if runtime else None,
        "mean_reward": sum(rewards) / len(rewards) if rewards else None,
        "rewards": rewards,
        "tasks": len(tasks),
        "peak_memory_gib": peak_memory_gib(),
    }
    (out / "grpo_metrics.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary
