"""Red team II: passes that cheat from inside the worker's Python, each caught by every layer
that can see it, on its own (docs/integrity.md, "Threat model").

The exploits in ``tests/exploits/runtime/`` named below keep state across calls, walk the
interpreter's frames, rewrite the timing loop's samples, work at import time or launder host
reads through Triton's own code; each scored as correct and unflagged before these layers
existed (on an H100 one reached AS 133,046). Every one runs twice through the real evaluator
with the static policy off: once with the audit hook (which refuses the frame walk itself), and
once without it, where fresh values in every timed call, every timed output checked, frozen
plans and the parent's timing witness must still catch it. The policy refuses each folder
before any worker starts (``test_the_policy_refuses_every_attack``).
"""

from __future__ import annotations

import pytest
from helpers.integrity import (
    EXPLOITS,
    FAST,
    HAS_CUDA,
    assert_caught,
    bert_variant,
    evaluate_jobs,
)

from passnet.core.results import Status, VariantResult
from passnet.integrity.policy import check_pass_dir

REJECTED = Status.REJECTED
# exploit -> (the checks it is caught by with the audit hook, and without it)
ATTACKS: dict[str, tuple[set[str], set[str]]] = {
    "timing_rewrite": ({"audit:frame"}, {"timing-forged"}),
    "frame_checked_gate": ({"audit:frame"}, {"timed-output"}),
    "import_precompute": ({"audit:frame"}, {"timed-output"}),
    "memo_plan_value": ({"plan-write"}, {"plan-write"}),
    "memo_module_alias": ({"stale-output"}, {"stale-output"}),
    "memo_default_module": ({"stale-output"}, {"stale-output"}),
    "memo_kernel_attrs": ({"stale-output"}, {"stale-output"}),
    "laundered_host_read": ({"host-compute"}, {"host-compute"}),
}
GPU_ATTACKS = {"launcher_internals": ({"launch-count"}, {"launch-count"})}
LAYERS = {"audit": FAST.model_copy(update={"audit_hook": True}), "no-audit": FAST}


def _attacks(tmp, device: str) -> dict[str, VariantResult]:  # noqa: ANN001
    variant = bert_variant(tmp / "rows12")
    table = ATTACKS | (GPU_ATTACKS if device == "cuda" else {})
    out: dict[str, VariantResult] = {}
    for layer, params in LAYERS.items():
        jobs = {name: (EXPLOITS / name, variant) for name in table}
        out |= {f"{name}@{layer}": r for name, r in evaluate_jobs(jobs, device, params).items()}
    return out


@pytest.fixture(scope="module")
def cpu_attacks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VariantResult]:
    return _attacks(tmp_path_factory.mktemp("attacks"), "cpu")


@pytest.fixture(scope="module")
def gpu_attacks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VariantResult]:
    if not HAS_CUDA:
        pytest.skip("needs a CUDA GPU (and TRITON_INTERPRET unset)")
    return _attacks(tmp_path_factory.mktemp("gattacks"), "cuda")


def _cases(table: dict) -> list:
    return [pytest.param(name, layer, checks[i], id=f"{name}@{layer}")
            for name, checks in table.items() for i, layer in enumerate(LAYERS)]  # fmt: skip


@pytest.mark.parametrize("name, layer, checks", _cases(ATTACKS))
def test_attack_is_caught_cpu(cpu_attacks, name: str, layer: str, checks: set[str]) -> None:
    assert_caught(name, cpu_attacks[f"{name}@{layer}"], REJECTED, checks)


@pytest.mark.gpu
@pytest.mark.parametrize("name, layer, checks", _cases(ATTACKS | GPU_ATTACKS))
def test_attack_is_caught_gpu(gpu_attacks, name: str, layer: str, checks: set[str]) -> None:
    assert_caught(name, gpu_attacks[f"{name}@{layer}"], REJECTED, checks)


@pytest.mark.parametrize("name", sorted(ATTACKS | GPU_ATTACKS))
def test_the_policy_refuses_every_attack(name: str) -> None:
    assert check_pass_dir(EXPLOITS / name), f"{name} passes the static policy"
