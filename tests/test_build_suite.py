"""scripts/build_suite.py's pool run: resumable on one device model, never mixed across two."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from passnet.core.results import Parameters
from passnet.runner.store import Store

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_suite", ROOT / "scripts" / "build_suite.py")
assert _spec is not None and _spec.loader is not None
build_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_suite)


def test_a_pool_run_resumes_on_its_model_and_starts_beside_it_on_another(
    tmp_path: Path,
) -> None:
    """The pool's run id names the pool and the device kind, so a budget-stopped measurement
    resumes under the same id; a store carried to another GPU model (measured on an H100,
    continued on an H200) gets a run of that model beside the first, since the bench refuses
    to resume a run whose configuration (the device's name) differs."""
    store, pool = tmp_path / "suite.db", ["task_a", "task_b"]
    asked: list[str] = []

    def name(model: str):
        return lambda device: asked.append(device) or model

    first = build_suite.pool_run(store, pool, "cuda", name("GPU A"))
    assert first.startswith("curation-cuda-") and asked == []  # no store yet: nothing to ask
    with Store(store) as st:
        pid = st.put_parameters(Parameters())
        st.open_run(first, suite="pool", device="cuda", params_id=pid,
                    config={"device_name": "GPU A"}, candidates=["c"],
                    items=[("c", "v0", "task_a")])  # fmt: skip
    assert build_suite.pool_run(store, pool, "cuda", name("GPU A")) == first
    other = build_suite.pool_run(store, pool, "cuda", name("GPU B"))
    assert other.startswith(first + "-") and other != first
    assert build_suite.pool_run(store, pool, "cuda", name("GPU B")) == other  # stable
    assert asked == ["cuda"] * 3
    assert build_suite.pool_run(store, ["task_a"], "cuda", name("GPU B")) != first  # new pool
