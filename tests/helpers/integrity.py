"""Variants built at test time, concurrent evaluation and the assertions the integrity test
modules share (tests/test_integrity_runtime.py, test_integrity_attacks.py, test_isolation.py,
test_forkserver.py, test_worker_lifetime.py)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

from passnet.core.results import CandidateSpec, Parameters, Status, VariantResult
from passnet.dataset.task import Variant
from passnet.evaluation.evaluator import evaluate_variant
from passnet.graph.sample import TensorMeta, load_sample, with_dtype, write_sample

ROOT = Path(__file__).resolve().parents[2]
EXPLOITS = ROOT / "tests" / "exploits" / "runtime"
LEGIT = ROOT / "tests" / "legit"
EXAMPLE_PASS = ROOT / "examples" / "passes" / "add_layer_norm"
BERT_1X12 = (
    ROOT / "examples" / "tasks" / "bert_add_layer_norm" / "graphs" / "float32" / "0_cut_1x12"
)
FAST = Parameters(
    warmup=2,
    trials=6,
    rounds=2,
    max_reruns=0,
    timeout_s=300,
    fresh_trials=1,
    policy=False,
    audit_hook=False,
)
HAS_CUDA = torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1"


def bert_variant(dest: Path, rows: int = 12, dtype: str = "float32", tiny: bool = False) -> Variant:
    """The bundled BERT add + LayerNorm graph with ``rows`` tokens; ``tiny``: LayerNorm weight
    and bias near 1e-7, so the reference output is near zero."""
    sample = load_sample(BERT_1X12)
    metas = []
    for m in sample.metas:
        if len(m.shape) == 3:
            m = m.model_copy(update={"shape": [1, rows, 128]})
        elif tiny:  # metas keep 3 decimals of mean/std: bound the values instead
            m = m.model_copy(update={"mean": 0.0, "std": 0.0, "min_val": -1e-7, "max_val": 1e-7})
        metas.append(m)
    s = write_sample(dest, sample.code, metas, dict(sample.graph_net))
    if dtype != "float32":
        s = with_dtype(s, dtype, dest.parent / f"{dest.name}_{dtype}")
    return Variant(graph=s.path.name, path=s.path, dtype=s.dtype)


def graph_variant(dest: Path, body: str, shapes: dict[str, list[int]]) -> Variant:
    """A hand-written GraphNet sample: ``body`` is forward's code over the named inputs.

    Inputs are drawn as N(0, 1) (``std`` 5: GraphNet scales the recorded std by 0.2), so no
    output is small enough that all-zeros pass a loose level on some unlucky seed."""
    args = ", ".join(shapes)
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    code = f"import torch\n\n\nclass GraphModule(torch.nn.Module):\n    def forward(self, {args}):\n{lines}\n"
    metas = [
        TensorMeta(name=n, shape=s, dtype="torch.float32", mean=1.0 if n == "weight" else 0.0,
                   std=5.0)
        for n, s in shapes.items()
    ]  # fmt: skip
    s = write_sample(dest, code, metas, {"model_name": dest.name})
    return Variant(graph=dest.name, path=s.path, dtype=s.dtype)


def evaluate_jobs(jobs: dict, device: str, params: Parameters = FAST) -> dict[str, VariantResult]:
    """Evaluate (pass folder or spec, variant) jobs concurrently, one worker each."""

    def one(job: tuple) -> VariantResult:
        folder, variant = job
        spec = (
            folder
            if isinstance(folder, CandidateSpec)
            else CandidateSpec(kind="pass", pass_dir=str(folder))
        )
        return evaluate_variant(variant, spec, device=device, parameters=params)

    with ThreadPoolExecutor(max_workers=2 if device == "cpu" else 4) as pool:
        return dict(zip(jobs, pool.map(one, jobs.values()), strict=True))


def checks_of(v: VariantResult) -> set[str]:
    return {f.check for f in v.integrity}


def assert_caught(name: str, v: VariantResult, status: Status, checks: set[str]) -> None:
    found = ", ".join(f"{f.check}@{f.phase}" for f in v.integrity)
    assert v.status == status, f"{name}: {v.status.value}: {v.error} [{found}]"
    assert checks <= checks_of(v), f"{name}: expected {checks}, found [{found}]; {v.error}"
    if status == Status.REJECTED and checks:
        assert any(c in (v.error or "") for c in checks), v.error
    if name == "call_counter":  # honest in every correctness call: caught while timed
        assert {f.phase for f in v.integrity if f.check in checks} == {"timing"}
    if name == "patch_compare":  # patched at import: caught before the first call
        assert {f.phase for f in v.integrity if f.check == "harness-tamper"} == {"load"}
    if name == "forge_stdout":
        assert "without a result" in (v.error or "") and "exited with code 0" in (v.error or "")
    if name == "dtype_downcast":
        assert "dtype torch.float16 != reference torch.float32" in (v.error or "")
    if name == "precision_downcast":  # correct only at loose levels: no strict-level credit
        assert v.comparison is not None and v.comparison.tightest_passing_t >= -4
