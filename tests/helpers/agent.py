"""The bundled task's small graphs, the correct and buggy passes and the model settings the
agent test modules share (tests/test_agent.py, test_agent_reliability.py)."""

from __future__ import annotations

from pathlib import Path

from agent_server import MODEL

from passnet.agent.llm import GenerateConfig
from passnet.core.results import Parameters
from passnet.dataset.task import Task, load_task, write_task

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_TASK = ROOT / "examples" / "tasks" / "bert_add_layer_norm"
CORRECT = (ROOT / "examples" / "passes" / "add_layer_norm" / "FuseAddLayerNorm.py").read_text()
FAST = Parameters(warmup=1, trials=3, rounds=1, max_reruns=0, timeout_s=300)
KEY_ENV = "PASSNET_TEST_LLM_KEY"

GOOD_LITERAL = "layer_norm(added, (128,), weight, bias, 1e-12)"
BAD_LITERAL = "layer_norm(added, (128,), weight, bias, 1e-05)"
GOOD_KERNEL = "y = d * inv[:, None] * w + b\n"
BAD_KERNEL = "y = d * inv[:, None] * w + b + 5.0\n"
BUGGY = CORRECT.replace(GOOD_LITERAL, BAD_LITERAL).replace(GOOD_KERNEL, BAD_KERNEL)
assert BUGGY.count("1e-05") == 1 and BUGGY.count("+ 5.0") == 1


def small_task(
    dest: Path,
    dtypes: tuple[str, ...] = ("float32", "float16", "bfloat16"),
    name: str = "bert_small",
) -> Task:
    """The 1x12 graphs of the bundled task (fast under the Triton interpreter)."""
    src = load_task(EXAMPLE_TASK)
    paths = [v.path for v in src.variants if "1x12" in v.graph and v.dtype in dtypes]
    return write_task(dest, paths, name=name)


def gen_config(url: str, **kw: object) -> GenerateConfig:
    options = {
        "model": MODEL,
        "base_url": url,
        "api_key_env": KEY_ENV,
        "timeout_s": 30.0,
        "backoff_s": 0.01,
        "max_retries": 3,
    }
    return GenerateConfig(**(options | kw))
