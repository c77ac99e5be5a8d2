"""Which devices evaluations run on, and a pool that hands each evaluation a free one.

Two users, one rule (a measurement never shares a device with another timing): the bench's
executor (``passnet.runner.pool``) measures single work items, one driver thread per slot from
``device_slots``; the agent, its replay and the training environment evaluate whole tasks
through ``DevicePool``, which routes each call to a device no other call is using.
"""

from __future__ import annotations

import queue
import tempfile
import threading
from pathlib import Path

from passnet.core.results import Parameters, TaskResult
from passnet.dataset.task import Task
from passnet.evaluation import forkserver
from passnet.evaluation.candidates import parse_candidate
from passnet.evaluation.evaluator import evaluate_task
from passnet.evaluation.isolation import worker_env


class ExecutorError(Exception):
    """Devices that cannot be used as asked (user-fixable: no GPU, bad --jobs, no Ray)."""


def device_slots(device: str, jobs: int | None = None) -> list[str]:
    """The devices measurements run on, one entry per concurrent measurement."""
    if jobs is not None and jobs < 1:
        raise ExecutorError(f"--jobs must be at least 1, got {jobs}")
    if device == "cpu":
        return ["cpu"] * (jobs or 1)
    if device == "cuda" or device.startswith("cuda:"):
        import torch

        count = torch.cuda.device_count()
        if count == 0:
            raise ExecutorError("--device cuda asked for, but PyTorch sees no CUDA GPU")
        if device == "cuda":
            ids = list(range(count))
        else:
            try:
                ids = [int(device.split(":", 1)[1])]
            except ValueError:
                raise ExecutorError(f"unknown device {device!r}; use cpu, cuda or cuda:N") from None
            if ids[0] >= count:
                raise ExecutorError(f"{device}: only {count} GPU(s) visible")
        if jobs is not None and jobs > len(ids):
            raise ExecutorError(
                f"--jobs {jobs} > {len(ids)} GPU(s): a measurement never shares a GPU"
            )
        return [f"cuda:{i}" for i in ids[: jobs or len(ids)]]
    raise ExecutorError(f"unknown device {device!r}; use cpu, cuda or cuda:N")


class DevicePool:
    """An evaluator of (task, pass folder) routing each call to a free device; one task's
    evaluation per device at a time (its variants ``prepare_ahead`` at once)."""

    def __init__(self, devices: list[str], parameters: Parameters,
                 prepare_ahead: int | None = None, *, prewarm: bool = True) -> None:  # fmt: skip
        self.parameters, self.prepare_ahead = parameters, prepare_ahead
        self._free: queue.Queue[str] = queue.Queue()
        for device in devices:
            self._free.put(device)
        self.prewarmed = prewarm_pass_zygotes(devices) if prewarm else None

    def __call__(self, task: Task, pass_dir: Path) -> TaskResult:
        device = self._free.get()
        try:
            candidate = parse_candidate(f"passes:{pass_dir}")
            return evaluate_task(
                task,
                candidate,
                device=device,
                parameters=self.parameters,
                prepare_ahead=self.prepare_ahead,
            )
        finally:
            self._free.put(device)


def prewarm_pass_zygotes(devices: list[str]) -> threading.Thread | None:
    """Start the zygotes that pass workers on ``devices`` fork from, in the background
    (``forkserver.prewarm``): made with the evaluator, they are ready by its first call."""
    kinds = sorted({"cpu" if d.startswith("cpu") else "cuda" for d in devices})
    return forkserver.prewarm(kinds, ["pass"], _pass_env)


def _pass_env(kind: str, role: str) -> dict[str, str]:
    """The environment of a pass worker on ``kind`` (its TMPDIR aside, which zygotes ignore)."""
    return worker_env(kind, tempfile.gettempdir(), trusted=role != "pass")
