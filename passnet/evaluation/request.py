"""What the driver sends a worker: one variant, one candidate, the parameters and the limits.

Its own module so the driver side (sandbox, evaluator) names it without importing the
worker's evaluation code.
"""

from __future__ import annotations

from pydantic import BaseModel

from passnet.core.results import CandidateSpec, Parameters


class WorkerRequest(BaseModel):
    """One request on the worker's stdin (JSON); the nonce authenticates its reply."""

    graph: str
    path: str
    dtype: str
    device: str
    seed: int
    recheck_seed: int
    candidate: CandidateSpec
    parameters: Parameters
    with_inductor: bool = False
    nonce: str = ""
    parent_netns: str = ""
    timeout_s: float = 0.0  # the driver's wall-clock limit, kept by the worker too (0: none)
    lock_dir: str = ""  # folder of the per-device timing locks (passnet.evaluation.device_lock)
    pass_cache_dir: str = ""  # this pass's own Triton cache (compile_cache.pass_cache_dir)
