"""A synthesis as an agent trajectory: view the task, write the pass, evaluate it, finish.

The record is made by the agent's own loop (``passnet.agent.loop.run_attempt``) fed scripted
assistant turns through the replay backend: the real tools write the files, take the snapshot
and format the evaluator's feedback, so the record is an ``AttemptRecord`` like any agent's,
replays with ``passnet agent replay`` and is filtered for fine-tuning by ``training_records``
(correct on every variant). The evaluator answers with the synthesizer's own verification
result (the same files, checked by content hash), so nothing is measured twice.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from passnet.core.results import Parameters, TaskResult
from passnet.dataset.task import Task
from passnet.passes.loader import RULES_FILE

BACKEND = "passnet-synth"
TRAJECTORIES = "trajectories.jsonl"


def collect_trajectories(out: Path) -> Path:
    """``out/trajectories.jsonl``: every ``out/<task>/trajectory.json``, one line each, the
    file the agent's tools read (``read_trajectories``, ``training_records``)."""
    lines = [p.read_text(encoding="utf-8").strip() for p in sorted(out.glob("*/trajectory.json"))]
    target = out / TRAJECTORIES
    target.write_text("".join(f"{line}\n" for line in lines if line), encoding="utf-8")
    return target


def _call(i: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"call_{i}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}  # fmt: skip


def _turn(content: str, *calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


def _write_order(files: dict[str, str]) -> list[tuple[str, str]]:
    """Rule modules first, then the rule list that names them (as a person writes a pass)."""
    return sorted(files.items(), key=lambda kv: (kv[0] == RULES_FILE, kv[0]))


def synthesis_turns(files: dict[str, str], rules: list[dict[str, Any]],
                    reason: str | None) -> list[dict[str, Any]]:  # fmt: skip
    """The assistant turns of a synthesis: what it saw, what it wrote and why, the verdict."""
    plan = "\n".join(
        f"- {r['name']}: {len(r['ops'])} ops ({', '.join(r['ops'])}), {r['outputs']} output(s), "
        f"matching {len(r['variants'])} graph(s)"
        for r in rules
    )
    writes = [_call(i, "file_editor", {"command": "create", "path": path, "file_text": text})
              for i, (path, text) in enumerate(_write_order(files), start=1)]  # fmt: skip
    verdict = ("The pass is correct on every graph at the strict tolerance; keeping it."
               if reason is None else f"Not keeping this pass: {reason}")  # fmt: skip
    return [
        _turn("Look at every graph of the task first.", _call(0, "view_task", {})),
        _turn(
            "Fuse the largest run of supported ops into one Triton kernel per distinct "
            "pattern (the group's calls written back as the model makes them, loads and "
            f"stores following each tensor's strides):\n{plan}",
            *writes,
        ),
        _turn("Evaluate it on every graph.", _call(len(writes) + 1, "pass_evaluator", {})),
        _turn(verdict, _call(len(writes) + 2, "finish", {"summary": verdict})),
    ]


def write_trajectory(path: Path, task: Task, pass_dir: Path, rules: list[dict[str, Any]],
                     result: TaskResult, reason: str | None, parameters: Parameters,
                     device: str) -> Path:  # fmt: skip
    """Record the synthesis of ``pass_dir`` (evaluated as ``result``) at ``path``: one
    ``AttemptRecord`` as one JSON line, so it is a JSON file and a one-line trajectories.jsonl."""
    from passnet.agent.llm import GenerateConfig
    from passnet.agent.loop import AgentConfig, AttemptSpec, run_attempt
    from passnet.agent.replay_backend import ReplayBackend
    from passnet.agent.trajectory import folder_files, folder_hash

    files = folder_files(pass_dir)
    expected = folder_hash(pass_dir)

    def evaluate(_task: Task, snapshot: Path) -> TaskResult:
        if folder_hash(snapshot) != expected:
            raise RuntimeError("the recorded files differ from the verified pass folder")
        return result

    config = AgentConfig(
        backend=BACKEND,
        generate=GenerateConfig(model=BACKEND, api_key_env=None, max_tokens=None),
        parameters=parameters,
        device=device,
        run_id="synth",
    )
    backend = ReplayBackend(synthesis_turns(files, rules, reason))
    with tempfile.TemporaryDirectory(prefix="passnet-synth-traj-") as tmp:
        spec = AttemptSpec(task=task, task_name=task.name, attempt=0, work_dir=Path(tmp) / "a")
        record = run_attempt(spec, config, backend, evaluate)
    if record.stop_reason != "finish" or not record.evaluations:
        raise RuntimeError(f"the scripted attempt stopped with {record.stop_reason!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = path.with_name(f".{path.name}.tmp")
    tmp_path.write_text(record.model_dump_json() + "\n", encoding="utf-8")
    tmp_path.replace(path)
    return path
