"""The CPU-curated suite, fast parameters, one-rule pass folders and one-input graph variants
the synthesizer's test modules (and the accelerate tests that synthesise a pass) share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from passnet.core.results import Parameters
from passnet.graph.meta import TensorMeta
from passnet.graph.sample import write_sample
from passnet.integrity.policy import check_pass_dir

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "data" / "suite-cpu"
FAST = Parameters(warmup=1, trials=3, rounds=1, max_reruns=0, timeout_s=300)


def one_rule_pass(tmp_path: Path, source: str, rule: str = "synth_test_0") -> Path:
    """``source`` (a generated rule module) as an upstream-format pass folder of that one
    rule, checked by the static policy like any submitted pass."""
    pass_dir = tmp_path / "pass"
    pass_dir.mkdir()
    (pass_dir / f"{rule}.py").write_text(source)
    (pass_dir / "sorted_output_pass_rule_names.json").write_text(json.dumps([rule]))
    assert check_pass_dir(pass_dir) == []
    return pass_dir


def forward_variant(
    dest: Path, body: str, dtype: str, shape: tuple[int, ...] = (2, 4, 9, 11)
) -> Path:
    """A graph variant whose ``forward(self, l_x_)`` is ``body`` (as Dynamo writes it), its
    one input ``l_x_`` of ``shape`` and ``dtype`` (``"float32"``)."""
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    code = ("import torch\n\n\nclass GraphModule(torch.nn.Module):\n"
            f"    def forward(self, l_x_):\n{lines}\n")  # fmt: skip
    meta = TensorMeta(name="l_x_", shape=list(shape), dtype=f"torch.{dtype}", mean=0.0, std=1.0)
    return write_sample(dest, code, [meta], {"model_name": dest.name}).path


def fused(tmp_path: Path, module: torch.nn.Module, args: list) -> tuple[list[str], Any, Any]:
    """The ops of the group the synthesizer chooses in ``module`` (then ``"->"`` and its
    outputs' count), and the outputs of its graph rewritten by that one rule (which must fire
    once) and of eager, on ``args``."""
    from passnet.passes.loader import load_pass_dir
    from passnet.passes.matcher import apply_passes, to_fx
    from passnet.synth.emit import module_source
    from passnet.synth.graph import Group, analyse, select, trace_graph

    group = select(trace_graph(module, args))
    assert isinstance(group, Group), group
    source = module_source("t", "synth_t_0", analyse([group]), group.source, len(group.inputs))
    gm = to_fx(module)
    assert apply_passes(gm, load_pass_dir(one_rule_pass(tmp_path, source, "synth_t_0"))).total == 1
    with torch.no_grad():
        ops = [op.name for op in group.ops.values()] + ["->", str(len(group.outputs))]
        return ops, gm(*args), module(*args)
