"""PassBench rewards in the shapes verl and OpenRLHF load from a Python file.

Both frameworks import a reward function by file path and call it with text: this module is
that file. Each call scores completions with :class:`passnet.train.reward.PassReward` (the
evaluator's AS less the integrity penalty, evaluated concurrently in sandboxed workers), so
a reward here equals the reward TRL's GRPOTrainer gets for the same completion.

- **verl** (``custom_reward_function.path=<this file>``): ``compute_score(data_source,
  solution_str, ground_truth, extra_info)`` for its default reward manager, and
  ``compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos)`` for its
  batch manager (``custom_reward_function.name=compute_score_batch``). ``ground_truth`` is the
  task folder: :func:`verl_rows` writes it into ``reward_model.ground_truth``.
- **OpenRLHF** (``--remote_rm_url <this file> --label_key task``): ``reward_func(queries,
  prompts, labels)``; a query is the prompt followed by the response, ``labels`` are the task
  folders (:func:`openrlhf_rows`).

The evaluator is configured from the environment, since neither framework passes options to
the function: ``PASSNET_REWARD_DEVICE`` (default ``cuda`` when a GPU is visible, else
``cpu``; comma-separated for several GPUs), ``PASSNET_REWARD_CONCURRENCY`` (4),
``PASSNET_REWARD_PENALTY`` (1.0) and ``PASSNET_REWARD_TRIALS`` (the device's default).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from passnet.dataset.task import Task

DATA_SOURCE = "passbench"
"""The ``data_source`` of PassBench rows (verl routes rewards by it)."""

_LOCK = threading.Lock()
_REWARD: Any = None


def reward_from_env() -> Any:
    """The process's :class:`PassReward`, built once from ``PASSNET_REWARD_*``."""
    global _REWARD
    with _LOCK:
        if _REWARD is None:
            import torch

            from passnet.core.results import default_parameters
            from passnet.train.reward import PassReward

            device = os.environ.get("PASSNET_REWARD_DEVICE") or (
                "cuda" if torch.cuda.is_available() else "cpu"
            )
            trials = os.environ.get("PASSNET_REWARD_TRIALS")
            params = default_parameters(
                device.split(",")[0], trials=int(trials) if trials else None
            )
            _REWARD = PassReward(
                device=device,
                parameters=params,
                concurrency=int(os.environ.get("PASSNET_REWARD_CONCURRENCY", "4")),
                penalty=float(os.environ.get("PASSNET_REWARD_PENALTY", "1.0")),
            )
        return _REWARD


def _scores(texts: list[str], tasks: list[Any]) -> tuple[list[float], list[dict[str, Any]]]:
    reward = reward_from_env()
    values = reward(prompts=None, completions=list(texts), task=[str(t) for t in tasks])
    return values, list(reward.last)


def _verl_entry(value: float, detail: dict[str, Any]) -> dict[str, Any]:
    """verl logs every key of a dict score; ``score`` is the reward."""
    return {"score": value, "AS": detail.get("AS"), "correct": bool(detail.get("correct")),
            "findings": detail.get("findings", 0)}  # fmt: skip


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: dict[str, Any] | None = None,
    **_: Any,
) -> dict[str, Any]:
    """verl's per-sample reward: the completion ``solution_str`` on the task folder
    ``ground_truth``."""
    values, details = _scores([solution_str], [ground_truth])
    return _verl_entry(values[0], details[0])


def compute_score_batch(
    data_sources: list[str],
    solution_strs: list[str],
    ground_truths: list[str],
    extra_infos: list[dict[str, Any]] | None = None,
    **_: Any,
) -> list[dict[str, Any]]:
    """verl's batch reward manager: every completion of the batch evaluated concurrently."""
    values, details = _scores(list(solution_strs), list(ground_truths))
    return [_verl_entry(v, d) for v, d in zip(values, details, strict=True)]


def reward_func(queries: list[str], prompts: list[str], labels: list[str], **_: Any) -> dict:
    """OpenRLHF's custom reward: responses are the queries less their prompts."""
    import torch

    responses = [
        q[len(p) :] if q.startswith(p) else q for q, p in zip(queries, prompts, strict=True)
    ]
    values, details = _scores(responses, list(labels))
    rewards = torch.tensor(values, dtype=torch.float32)
    correct = torch.tensor([float(bool(d.get("correct"))) for d in details])
    return {"rewards": rewards, "scores": rewards.clamp(0.0, 1.0),
            "extra_logs": {"passnet_correct": correct}}  # fmt: skip


def verl_rows(tasks: list[Task], device: str = "cuda", b: float = 0.1) -> list[dict[str, Any]]:
    """verl's RL data rows (write them to parquet): chat prompt, task folder as ground truth."""
    from passnet.train.reward import grpo_rows

    return [
        {
            "data_source": DATA_SOURCE,
            "prompt": row["prompt"],
            "ability": "compiler-pass",
            "reward_model": {"style": "rule", "ground_truth": row["task"]},
            "extra_info": {"index": i, "task": t.name},
        }
        for i, (row, t) in enumerate(zip(grpo_rows(tasks, device, b), tasks, strict=True))
    ]


def openrlhf_rows(tasks: list[Task], device: str = "cuda", b: float = 0.1) -> list[dict]:
    """OpenRLHF's prompt rows (``--input_key prompt --label_key task --apply_chat_template``)."""
    from passnet.train.reward import grpo_rows

    return [{"prompt": row["prompt"], "task": row["task"]} for row in grpo_rows(tasks, device, b)]
