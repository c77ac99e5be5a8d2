"""passnet.train end to end on CPU with a tiny random model: a real trajectory (``passnet synth``
on a one-graph task cut from the bundled suite) exported to a chat dataset, one SFT step that
changes the weights and checkpoints (and resumes), the checkpoint driving ``passnet agent run
--backend hf``, the Gymnasium environment and the GRPO reward function scoring a known-correct
and a known-wrong pass through the real evaluator, and the leak check refusing a suite task.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("trl")

from passnet.agent.trajectory import read_trajectories  # noqa: E402
from passnet.core.results import default_parameters  # noqa: E402
from passnet.dataset.task import load_task, write_task  # noqa: E402
from passnet.graph.sample import load_sample  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "examples" / "suite"
TASK = "fusible_mul_add_445849cd"
PARAMS = default_parameters("cpu", warmup=1, trials=3)


def _cli(*args: str) -> str:
    from passnet.cli import app

    res = CliRunner().invoke(app, [str(a) for a in args], terminal_width=200)
    assert res.exit_code == 0, res.output
    return res.output


def _fails(*args: str) -> str:
    from passnet.cli import app

    res = CliRunner().invoke(app, [str(a) for a in args], terminal_width=200)
    assert res.exit_code == 2, res.output
    return res.output


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Synth trajectory -> dataset -> tiny model -> one SFT step."""
    root = tmp_path_factory.mktemp("train")
    task = load_task(SUITE / TASK)
    fp32 = [v for v in task.variants if v.dtype == "float32"]
    small = min(fp32, key=lambda v: sum(math.prod(m.shape) for m in load_sample(v.path).metas))
    task_dir = write_task(root / "suite" / TASK, [small.path], name=TASK).path
    _cli("synth", task_dir, "--out", root / "synth", "--trials", "3")
    _cli("train", "export", root / "synth", "--out", root / "ds",
         "--exclude-suite", REPO / "examples" / "heldout")  # fmt: skip
    _cli("train", "tiny-model", root / "tiny", "--dataset", root / "ds")
    out = _cli("train", "sft", root / "ds", "--model", root / "tiny", "--out", root / "ckpt",
               "--max-steps", "1", "--batch-size", "1", "--save-steps", "1",
               "--learning-rate", "0.01", "--no-gradient-checkpointing")  # fmt: skip
    record = read_trajectories(root / "synth" / "trajectories.jsonl")[0]
    return {"root": root, "task": load_task(task_dir), "record": record, "sft": out}


def test_export_writes_chat_rows_that_templates_read(chain: dict) -> None:
    from transformers import AutoTokenizer

    from passnet.train.export import load_chat_dataset

    root = chain["root"]
    data = load_chat_dataset(root / "ds")
    assert len(data) == 1
    row = data[0]
    roles = [m["role"] for m in row["messages"]]
    assert roles[:3] == ["system", "user", "assistant"] and roles[-1] == "assistant"
    writes = [c["function"] for m in row["messages"] for c in m.get("tool_calls") or []
              if c["function"]["name"] == "file_editor"]  # fmt: skip
    assert writes and all(isinstance(f["arguments"], dict) for f in writes)
    assert set(writes[0]["arguments"]) == {"command", "path", "file_text"}  # no null keys
    assert row["messages"][3] == {**row["messages"][3], "role": "tool", "name": "view_task"}
    assert [t["function"]["name"] for t in row["tools"]][-1] == "finish"
    assert row["task"] == TASK and row["final_correct"] and row["final_AS"] > 0.1
    jsonl = [json.loads(x) for x in (root / "ds" / "train.jsonl").read_text().splitlines()]
    assert jsonl == [row]
    manifest = json.loads((root / "ds" / "manifest.json").read_text())
    assert manifest["tasks"]["train"] == [TASK] and manifest["filters"]["min_AS"] == 0.1
    tok = AutoTokenizer.from_pretrained(root / "tiny")
    enc = tok.apply_chat_template(row["messages"], tools=row["tools"], tokenize=True,
                                  return_dict=True, return_assistant_tokens_mask=True)  # fmt: skip
    mask = enc["assistant_masks"]
    assert 0 < sum(mask) < len(mask)  # loss on assistant turns only
    stats = json.loads(_cli("train", "stats", root / "ds", "--tokenizer", root / "tiny"))
    assert stats["rows"] == 1 and stats["tokens"]["max"] == len(enc["input_ids"])


def test_export_dedups_and_filters(chain: dict, tmp_path: Path) -> None:
    root = chain["root"]
    traj = root / "synth" / "trajectories.jsonl"
    out = _cli("train", "export", traj, traj, "--out", tmp_path / "d")
    assert "kept 1 train" in out and "1 duplicate conversation" in out
    assert "no record left to train on (1 final_AS <= 1.0)" in _fails(
        "train", "export", traj, "--out", tmp_path / "e", "--min-as", "1.0"
    )


def test_leak_check_refuses_a_task_of_the_evaluation_suite(chain: dict, tmp_path: Path) -> None:
    from passnet.train.leak import find_leaks, suite_fingerprint

    traj = chain["root"] / "synth" / "trajectories.jsonl"
    msg = _fails("train", "export", traj, "--out", tmp_path / "d", "--exclude-suite", SUITE)
    assert "evaluation suite" in msg and f"{TASK} is suite/{TASK}" in msg and "--drop-leaks" in msg
    assert not (tmp_path / "d").exists()
    # renamed and moved: still caught, by the graph shown in the conversation
    renamed = chain["record"].model_copy(update={"task_name": "other", "sample_dir": "/nowhere"})
    leaks = find_leaks([renamed], [suite_fingerprint(SUITE)])
    assert [leak.how.split()[0] for leak in leaks[0]] == ["graph"]
    assert leaks[0][0].suite_task == TASK
    assert "1 task of an evaluation suite" in _fails(
        "train", "export", traj, "--out", tmp_path / "e", "--exclude-suite", SUITE, "--drop-leaks"
    )


def test_sft_step_changes_weights_checkpoints_and_resumes(chain: dict) -> None:
    from safetensors.torch import load_file

    root = chain["root"]
    assert "1 step(s) over 1 conversation(s)" in chain["sft"]
    before = load_file(root / "tiny" / "model.safetensors")
    after = load_file(root / "ckpt" / "model.safetensors")
    assert before.keys() == after.keys()
    assert all(not (before[k] == after[k]).all() for k in before)  # every tensor moved
    assert (root / "ckpt" / "checkpoints" / "checkpoint-1").is_dir()
    metrics = json.loads((root / "ckpt" / "train_metrics.json").read_text())
    assert metrics["num_tokens"] > 0 and metrics["tokens_per_second"] > 0
    assert metrics["peak_memory_gib"] is None  # no GPU here
    out = _cli("train", "sft", root / "ds", "--model", root / "tiny", "--out", root / "ckpt",
               "--max-steps", "2", "--batch-size", "1", "--save-steps", "1", "--resume",
               "--no-gradient-checkpointing")  # fmt: skip
    assert "2 step(s)" in out and (root / "ckpt" / "checkpoints" / "checkpoint-2").is_dir()
    assert "no checkpoint" in _fails("train", "sft", root / "ds", "--model", root / "tiny",
                                     "--out", root / "fresh", "--resume")  # fmt: skip


def test_checkpoint_drives_the_agent_with_the_hf_backend(chain: dict) -> None:
    root = chain["root"]
    run = root / "agent"
    _cli("agent", "run", root / "suite", "--backend", "hf", "--model", root / "ckpt",
         "--max-steps", "1", "--max-tokens", "8", "--out", run, "--warmup", "1",
         "--trials", "3")  # fmt: skip
    record = read_trajectories(run / "trajectories.jsonl")[0]
    assert record.backend == "hf" and len(record.steps) == 1
    assert record.steps[0].usage.completion_tokens and record.stop_reason == "max_steps"
    assert record.messages[2]["role"] == "assistant"


def _wrong(files: dict[str, str]) -> dict[str, str]:
    """The synthesised pass with its add turned into a subtraction: runs, and is wrong."""
    out = {}
    for name, text in files.items():  # the kernel's first sum of two values: the add
        out[name] = re.sub(r"(\bt\d+ = t\d+) \+ (t\d+\n)", r"\1 - \2", text, count=1)
    assert out != files
    return out


def test_environment_returns_the_evaluators_score(chain: dict) -> None:
    from passnet.train.env import PassBenchEnv

    record, task = chain["record"], chain["task"]
    env = PassBenchEnv([task], parameters=PARAMS, max_steps=4)
    for files, correct in ((record.final_files, True), (_wrong(record.final_files), False)):
        obs, info = env.reset(options={"task": TASK})
        assert f"# Task `{TASK}`" in obs and info["tools"][-1]["function"]["name"] == "finish"
        writes = [{"name": "file_editor", "arguments": {"command": "create", "path": p,
                   "file_text": t}} for p, t in files.items()]  # fmt: skip
        obs, reward, done, cut, _ = env.step(writes)
        assert (reward, done, cut) == (0.0, False, False) and "created" in obs
        obs, reward, done, cut, _ = env.step('<tool_call>{"name": "pass_evaluator", '
                                             '"arguments": {}}</tool_call>')  # fmt: skip
        assert obs.startswith("AS = ") and reward == 0.0
        obs, reward, done, cut, info = env.step({"name": "finish", "arguments": {}})
        assert done and not cut and info["score"]["correct"] is correct
        assert reward == pytest.approx(env.tool_env.best_record.AS)
        assert info["score"]["AS"] == env.tool_env.best_record.AS
        assert (reward == 1.0) is correct  # correct on CPU: speedup counted as 1.0
    env.reset(options={"task": TASK})
    for _ in range(3):
        assert env.step("thinking, no tool call")[2:4] == (False, False)
    _, reward, done, cut, info = env.step("still nothing")
    assert cut and not done and info["score"]["AS"] is not None  # empty folder evaluated
    env.close()


def test_reward_function_scores_completions_concurrently(chain: dict) -> None:
    from passnet.train.reward import PassReward

    record, task = chain["record"], chain["task"]

    def completion(files: dict[str, str]) -> str:
        return "".join(
            '<tool_call>{"name": "file_editor", "arguments": '
            + json.dumps({"command": "create", "path": p, "file_text": t})
            + "}</tool_call>"
            for p, t in files.items()
        )

    reward = PassReward([task], parameters=PARAMS, concurrency=2)
    good, bad = completion(record.final_files), completion(_wrong(record.final_files))
    rewards = reward(prompts=["p", "p", "p"], completions=[good, [{"role": "assistant",
                     "content": bad}], "no tool call"], task=[str(task.path)] * 3)  # fmt: skip
    assert rewards[0] == 1.0 and 0 < rewards[1] < 1.0 and rewards[2] == 0.0
    assert [d["correct"] for d in reward.last] == [True, False, False]
    assert reward.__name__ == "passnet_AS"


def test_verl_and_openrlhf_reward_files_score_like_the_reward_function(
    chain: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """passnet/train/adapters.py loaded by file path, as verl and OpenRLHF load a reward file:
    a correct pass scores 1.0, a wrong one its AS below 1, nothing written 0."""
    import importlib.util

    import passnet.train.adapters as installed

    monkeypatch.setenv("PASSNET_REWARD_DEVICE", "cpu")
    monkeypatch.setenv("PASSNET_REWARD_TRIALS", "3")
    monkeypatch.setenv("PASSNET_REWARD_CONCURRENCY", "2")
    spec = importlib.util.spec_from_file_location("reward_file", installed.__file__)
    adapters = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(adapters)  # type: ignore[union-attr]
    record, task = chain["record"], chain["task"]

    def completion(files: dict[str, str]) -> str:
        return "".join('<tool_call>{"name": "file_editor", "arguments": '
                       + json.dumps({"command": "create", "path": p, "file_text": t})
                       + "}</tool_call>" for p, t in files.items())  # fmt: skip

    good, bad = completion(record.final_files), completion(_wrong(record.final_files))
    row = adapters.verl_rows([task], device="cpu")[0]
    truth = row["reward_model"]["ground_truth"]
    assert row["data_source"] == adapters.DATA_SOURCE and truth == str(task.path)
    assert row["prompt"][0]["role"] == "system" and row["extra_info"]["task"] == TASK
    one = adapters.compute_score(row["data_source"], good, truth, row["extra_info"])
    assert one["score"] == 1.0 and one["correct"] is True
    batch = adapters.compute_score_batch(["passbench"] * 2, [bad, "no call"], [truth] * 2)
    assert 0 < batch[0]["score"] < 1.0 and not batch[0]["correct"] and batch[1]["score"] == 0.0
    prompt = "<|im_start|>user\nwrite the pass<|im_end|>\n<|im_start|>assistant\n"
    out = adapters.reward_func([prompt + good, prompt + bad], [prompt, prompt], [truth, truth])
    assert out["rewards"].tolist()[0] == 1.0 and 0 < out["rewards"].tolist()[1] < 1.0
    assert out["extra_logs"]["passnet_correct"].tolist() == [1.0, 0.0]
    assert adapters.openrlhf_rows([task], device="cpu")[0]["task"] == truth


def test_train_commands_are_left_out_without_trl(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util
    import sys

    import typer

    import passnet.cli as cli

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "trl" else real(n, *a)
    )
    monkeypatch.delitem(sys.modules, "passnet.cli.train", raising=False)
    fresh = typer.Typer()
    monkeypatch.setattr(cli, "app", fresh)
    cli._register_subcommands()
    groups = {g.name for g in fresh.registered_groups}
    assert "agent" in groups and "train" not in groups


def test_one_grpo_step_against_the_reward(chain: dict) -> None:
    """``passnet train grpo``: one GRPOTrainer step with the evaluator's reward, each logged
    step's rewards in rewards.jsonl, the trained model saved."""
    root, task = chain["root"], chain["task"]
    out = _cli("train", "grpo", task.path, "--model", root / "ckpt", "--out", root / "grpo",
               "--steps", "1", "--generations", "2", "--batch-size", "2",
               "--max-completion-length", "8", "--trials", "3")  # fmt: skip
    assert "1 step(s) on 1 task(s)" in out and "mean reward 0.0000" in out, out
    logged = [json.loads(x) for x in (root / "grpo" / "rewards.jsonl").read_text().splitlines()]
    assert logged[0]["rewards/passnet_AS/mean"] == 0.0  # a random model writes no pass
    metrics = json.loads((root / "grpo" / "grpo_metrics.json").read_text())
    assert metrics["global_step"] == 1 and metrics["rewards"] == [0.0]
    assert (root / "grpo" / "config.json").is_file()
    assert "is not a multiple of 3 generations" in _fails(
        "train", "grpo", task.path, "--model", root / "ckpt", "--out", root / "g2",
        "--generations", "3", "--batch-size", "4")  # fmt: skip
