"""What the driver sends a worker: what it is started as (``WorkerSpec``) and what it is
asked (``WorkerRequest``: one variant, one candidate, the parameters and the limits).

Its own module so the driver side (sandbox, evaluator) names them without importing the
worker's evaluation code. Both cross the process boundary as JSON validated on arrival; the
answer is a ``VariantResult`` (``passnet.evaluation.channel``).
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
    timing_cpus: list[int] | None = None  # cores kept for timing (passnet.evaluation.cpus)


class WorkerSpec(BaseModel):
    """What a worker process is started with, before any request: the sandbox it applies to
    itself (``worker.become_worker``). Sent to a zygote on its control socket, or given to a
    worker started on its own as one argument (JSON either way)."""

    device: str  # the device kind, ``cpu`` or ``cuda``
    role: str  # ``eager``, ``inductor`` (baselines: no pass code) or ``pass``
    tmpdir: str  # its private TMPDIR and working directory
    memory_limit: int | None = None  # bytes (RLIMIT_AS on CPU, RLIMIT_DATA on CUDA)
    isolate_network: bool = True  # its own network namespace, where the platform allows
    cpus: frozenset[int] | None = None  # the CPU affinity of the driver thread that asked
    warm: bool = False  # a spare: make its device's context before its request
    lock_dir: str = ""  # the device locks' folder, held shared while ``warm`` makes a context
    driver: int  # the driver's pid: the worker dies with it (``lifetime.Guardian``)
    parent: int | None = None  # the process that forks it, when not the driver (a zygote)
