"""The Ray executor: the same work items as Ray tasks, for users who outgrow one machine.

One Ray task per work item, with ``num_gpus=1`` on GPU (Ray pins it to one GPU through
``CUDA_VISIBLE_DEVICES``, so measurements never share a GPU) or ``num_cpus=1`` on CPU. Each
task calls ``evaluate_variant``, which spawns the same sandboxed worker process as locally.
The graph's files and the pass folder travel with the task (no shared filesystem needed);
nodes need the same passnet, torch and triton installed. Results come back to the driver,
which writes them to the store as they complete. Ray does the scheduling.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from passnet.core.results import Environment, Parameters, VariantResult
from passnet.dataset.suite import folder_files
from passnet.evaluation.devices import ExecutorError
from passnet.runner.bench import Outcome, WorkItem


def _write_files(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def evaluate_shipped(
    graph: str,
    dtype: str,
    graph_files: dict[str, bytes],
    spec_json: str,
    pass_files: dict[str, bytes] | None,
    device: str,
    params_json: str,
) -> tuple[str, str]:
    """Body of a Ray task: rebuild the variant (and pass folder) in a private temporary
    folder on the node, evaluate it, return (VariantResult JSON, Environment JSON)."""
    from passnet.core.results import CandidateSpec
    from passnet.dataset.task import Variant
    from passnet.evaluation.evaluator import environment, evaluate_variant

    with tempfile.TemporaryDirectory(prefix="passnet-ray-") as tmp:
        gdir = _write_files(Path(tmp) / "graph", graph_files)
        spec = CandidateSpec.model_validate_json(spec_json)
        if pass_files is not None:
            pdir = _write_files(Path(tmp) / "pass", pass_files)
            spec = spec.model_copy(update={"pass_dir": str(pdir)})
        result = evaluate_variant(
            Variant(graph=graph, path=gdir, dtype=dtype),
            spec,
            device=device,
            parameters=Parameters.model_validate_json(params_json),
        )
        return result.model_dump_json(), environment(device).model_dump_json()


def _probe(device: str) -> str:
    from passnet.evaluation.evaluator import environment

    return environment(device).model_dump_json()


@functools.cache
def _remote() -> tuple[Any, Any]:
    import ray

    return ray.remote(max_retries=1)(evaluate_shipped), ray.remote(max_retries=1)(_probe)


def _graph_files(folder: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir()) if f.is_file()}


class RayExecutor:
    """Measure work items as Ray tasks on a local or remote Ray cluster."""

    name = "ray"

    def __init__(self, device: str = "cpu", address: str | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise ExecutorError(
                "--executor ray needs Ray: pip install 'passnet[ray]' (or 'ray>=2.9')"
            ) from None
        if not ray.is_initialized():
            ray.init(address=address, log_to_driver=False, ignore_reinit_error=True)
        self._ray = ray
        self.gpu = device.startswith("cuda")
        if device not in ("cpu", "cuda"):
            raise ExecutorError(
                f"--executor ray takes --device cpu or cuda (Ray picks the GPU), not {device!r}"
            )
        # Inside a task Ray exposes exactly one GPU, which torch sees as cuda:0.
        self.device = "cuda:0" if self.gpu else "cpu"
        self.options = {"num_gpus": 1, "num_cpus": 1} if self.gpu else {"num_cpus": 1}
        if self.gpu and ray.cluster_resources().get("GPU", 0) < 1:
            raise ExecutorError("--device cuda with Ray, but the Ray cluster has no GPU")
        self._env: Environment | None = None

    def environment(self) -> Environment:
        if self._env is None:
            _, probe = _remote()
            text = self._ray.get(probe.options(**self.options).remote(self.device))
            self._env = Environment.model_validate_json(text)
        return self._env

    def run(self, items: list[WorkItem], params: Parameters) -> Iterator[Outcome]:
        ray = self._ray
        evaluate, _ = _remote()
        params_json = params.model_dump_json()
        pass_refs: dict[str, Any] = {}
        refs: dict[Any, WorkItem] = {}
        for item in items:
            spec = item.candidate.spec
            pass_files = None
            if spec.kind == "pass":  # by folder: synth items of one candidate differ per task
                folder = str(spec.pass_dir)
                if folder not in pass_refs:
                    pass_refs[folder] = ray.put(folder_files(Path(folder)))
                pass_files = pass_refs[folder]
            v = item.variant.variant
            ref = evaluate.options(**self.options).remote(
                v.graph,
                v.dtype,
                _graph_files(v.path),
                spec.model_dump_json(),
                pass_files,
                self.device,
                params_json,
            )
            refs[ref] = item
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1, timeout=1.0)
                for ref in done:
                    yield self._outcome(refs.pop(ref), ref)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def _outcome(self, item: WorkItem, ref: Any) -> Outcome:
        ray = self._ray
        try:
            result_json, env_json = ray.get(ref)
        except ray.exceptions.RayError as exc:
            # The Ray side failed (node lost, worker died around the sandbox): not the
            # candidate's fault, so nothing is stored and the item stays pending.
            return Outcome(item, None, None, error=f"Ray task failed: {exc}")
        return Outcome(
            item,
            VariantResult.model_validate_json(result_json),
            Environment.model_validate_json(env_json),
        )
