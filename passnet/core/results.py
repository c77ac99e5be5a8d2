"""Typed, versioned results of an evaluation (the JSON schema of ``passnet eval --json``).

Every field is documented in ``docs/result-schema.md``. Failures are values: a variant that
crashed, timed out or never matched has a ``status`` and an ``error`` instead of numbers.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, Field, model_validator

from passnet.core.tolerance import ErrorClass

SCHEMA_VERSION = 1
CALL_PATHS = ("direct", "dynamo", "cudagraph")
CALL_PATH_HELP = (
    "direct (no Dynamo guards), dynamo (through torch.compile), or cudagraph (each side "
    "captured once and timed by CUDA-graph replay; needs --device cuda)"
)


class Status(str, Enum):
    """Outcome of one variant (one graph) under one candidate."""

    OK = "ok"  # matched (for passes), ran, correct at t = 1 (loosest level)
    INCORRECT = "incorrect"  # ran, but allclose fails even at t = 1
    NO_MATCH = "no_match"  # a pass that changed nothing in this graph
    COMPILE_ERROR = "compile_error"  # pass failed to load/apply, or the compiler failed
    RUNTIME_ERROR = "runtime_error"  # exception, NaN/Inf, dtype or shape mismatch while running
    TIMEOUT = "timeout"  # the worker ran past its wall-clock limit and was killed
    CRASH = "crash"  # the worker died (segfault, OOM kill, ...)
    REJECTED = "rejected"  # the integrity policy refused the candidate
    SAMPLE_ERROR = "sample_error"  # the reference itself cannot be loaded or run


STATUS_ERROR_CLASS: dict[Status, ErrorClass | None] = {
    Status.OK: None,
    Status.INCORRECT: ErrorClass.ACCURACY,
    Status.NO_MATCH: ErrorClass.COMPILE,
    Status.COMPILE_ERROR: ErrorClass.COMPILE,
    Status.RUNTIME_ERROR: ErrorClass.RUNTIME,
    Status.TIMEOUT: ErrorClass.RUNTIME,
    Status.CRASH: ErrorClass.RUNTIME,
    Status.REJECTED: ErrorClass.COMPILE,
    Status.SAMPLE_ERROR: ErrorClass.RUNTIME,
}


class Timing(BaseModel):
    """Per-call times of one side (reference or candidate), every sample kept."""

    method: str = Field(description="'wall' (sync; t0; call; sync; t1) or 'cuda_event'")
    samples_us: list[float]
    median_us: float
    iqr_us: float
    ci_low_us: float | None = Field(
        default=None, description="95% distribution-free interval of the median: low end"
    )
    ci_high_us: float | None = Field(default=None, description="the same interval's high end")
    rounds: int = Field(description="interleaved measurement rounds the samples came from")
    noisy: bool = Field(description="IQR/median stayed above the noise limit after re-runs")


class SideTiming(BaseModel):
    wall: Timing
    cuda_event: Timing | None = None


class Comparison(BaseModel):
    """How the candidate's outputs compare with the reference's."""

    tightest_passing_t: int | None = Field(
        description="strictest tolerance level t (-10..0) at which every output passes allclose; "
        "None if none does"
    )
    max_abs_diff: float | None = None
    max_rel_diff: float | None = None
    detail: str = ""


class Finding(BaseModel):
    """One runtime integrity finding (the checks are listed in ``docs/integrity.md``)."""

    check: str = Field(description="name of the check that fired, e.g. 'torch-compute'")
    detail: str = Field(description="what was seen, located where possible")
    phase: str = Field(default="", description="'policy', 'load', 'correctness', 'ghost', 'timing'")
    fatal: bool = Field(default=True, description="a fatal finding fails the variant")


class Sandbox(BaseModel):
    """The isolation a worker actually ran under (what the platform allowed)."""

    network_isolated: bool | None = Field(
        default=None, description="worker in its own network namespace (no interfaces but lo)"
    )
    memory_limit_bytes: int | None = Field(
        default=None, description="RLIMIT_AS (CPU) or RLIMIT_DATA (CUDA) of the worker"
    )
    cuda_memory_fraction: float | None = None
    private_tmpdir: bool = True
    scrubbed_env: bool = True


class VariantResult(BaseModel):
    graph: str = Field(description="graph folder as listed in the task's graph_list.txt")
    dtype: str
    status: Status
    error_class: ErrorClass | None = None
    error: str | None = Field(default=None, description="human-readable reason of a failure")
    matches: dict[str, int] = Field(
        default_factory=dict, description="replacements made per pass rule in this graph"
    )
    comparison: Comparison | None = None
    reference: SideTiming | None = Field(default=None, description="eager reference timing")
    candidate: SideTiming | None = None
    speedup: float | None = Field(
        default=None, description="reference median / candidate median (wall clock)"
    )
    speedup_cuda_event: float | None = None
    speedup_vs_inductor: float | None = None
    inductor_median_us: float | None = None
    call_overhead_us: float | None = Field(
        default=None, description="per-call cost of the candidate call path on an empty graph"
    )
    timing_note: str = Field(default="", description="e.g. 'triton interpreter' on CPU")
    timing_rule: str = Field(
        default="", description="how an adaptive measurement chose its trial count ('': fixed)"
    )
    timing_meaningful: bool = Field(
        default=True,
        description="False when the candidate's times mean nothing (a pass on CPU: Triton's "
        "interpreter): timed minimally, speedup reported but scored as 1.0 when correct",
    )
    cpu_steal: float | None = Field(
        default=None,
        description="share of the host's CPU time the hypervisor gave other guests while this "
        "variant was evaluated, up to its timing's end (/proc/stat steal; None off Linux): "
        "a disturbed host",
    )
    worker_seconds: float | None = None
    phase_seconds: dict[str, float] = Field(
        default_factory=dict,
        description="where worker_seconds went: setup, build, first_call (a compiler "
        "compiles here), correctness, ghost, timing_prep, wait (for the device's timing lock, "
        "held by another worker's timing), timing (the lock held; timing_checks and timing_settle "
        "its checked calls and the held outputs' comparison), recheck; failed (last phase "
        "to the failure)",
    )
    triton: dict[str, float] = Field(
        default_factory=dict,
        description="the worker's Triton compiles (count, cache hits, seconds by compiler stage: "
        "ir, ttir, ttgir, llir, ptx, cubin, store) and kernel loads onto the device (count, "
        "seconds); empty when it compiled and loaded nothing (evaluation/compile_stats.py)",
    )
    integrity: list[Finding] = Field(
        default_factory=list, description="runtime integrity findings (fatal ones fail the variant)"
    )
    reference_flags: list[str] = Field(
        default_factory=list,
        description="degenerate reference: 'reference-near-zero', 'reference-input-independent'",
    )
    sandbox: Sandbox | None = None

    @model_validator(mode="before")
    @classmethod
    def _legacy_interpreter(cls, data: Any) -> Any:
        """Results written before ``timing_meaningful`` existed: the worker's note tells."""
        if isinstance(data, dict) and "timing_meaningful" not in data:
            if str(data.get("timing_note") or "").startswith(INTERPRETER_NOTE):
                data = {**data, "timing_meaningful": False}
        return data


INTERPRETER_NOTE = "CPU: Triton kernels run in Triton's interpreter"
"""How the worker's ``timing_note`` starts for a pass on CPU, in every version."""


class Environment(BaseModel):
    device: str
    device_name: str
    torch: str
    triton: str | None
    python: str
    platform: str
    cuda: str | None = None
    driver: str | None = None
    triton_interpret: bool = False


class Parameters(BaseModel):
    b: float = 0.1
    p: float = 0.0
    warmup: int = 25
    trials: int = 100
    rounds: int = 4
    noise_limit: float = 0.2
    max_reruns: int = 2
    ci_target: float | None = Field(
        default=None,
        description="adaptive trial counts: add calls until every speedup's 95% interval is "
        "within about +-ci_target (None: exactly `trials` calls a side)",
    )
    max_trials: int | None = Field(
        default=None, description="adaptive cap on timed calls a side (None: 4 x trials)"
    )
    timeout_s: float = 600.0
    seed: int | None = None
    call_path: str = "direct"
    policy: bool = Field(default=True, description="static policy on pass sources (layer A)")
    runtime_checks: bool = Field(default=True, description="runtime integrity checks (layer B)")
    audit_hook: bool = Field(
        default=True,
        description="refuse frame access, gc walks, native code, processes, "
        "files and dynamic code while pass code runs (passnet.integrity.audit)",
    )
    fresh_trials: int = Field(default=2, description="extra correctness trials on secret seeds")
    sampled_checks: int = Field(default=4, description="checked calls hidden among timed calls")
    cuda_memory_fraction: float | None = Field(
        default=0.5, description="per-process CUDA memory cap of a worker (None: no cap)"
    )
    cpu_threads: int = Field(
        default=1,
        description="intra-op threads of a CPU worker, both sides (0: torch's default). One "
        "by default: on a shared machine OpenMP barriers of a multi-threaded compiled graph "
        "stall for milliseconds and time the machine's load, not the code",
    )

    def for_interpreter(self) -> Parameters:
        """What a pass on CPU is timed with: at most ``INTERPRETER_TIMING``'s calls."""
        cap = INTERPRETER_TIMING
        return self.model_copy(
            update={
                "warmup": min(self.warmup, cap["warmup"]),
                "trials": min(self.trials, cap["trials"]),
                "rounds": cap["rounds"],
                "max_reruns": cap["max_reruns"],
                "ci_target": None,
            }
        )


INTERPRETER_TIMING = {"warmup": 1, "trials": 5, "rounds": 1, "max_reruns": 0}
"""Timing of a pass whose Triton kernels run in the interpreter (CPU): at most this. Its
times mean nothing (an emulated kernel call is orders of magnitude slower than a launch),
so it gets just the calls the timed-call integrity checks need: one checked call hidden among
the timed ones, the outputs of three others kept and re-checked, the timing inputs compared
before and after. Correctness trials and the ghost check are not reduced."""


CPU_TIMING = {"warmup": 10, "trials": 40}
"""Timing defaults on CPU (a pass there gets ``INTERPRETER_TIMING`` instead). Fewer calls than
SPEC's GPU 25/100, but enough that a compiled CPU graph is past its slow first calls (thread-pool
start, Inductor's compile workers settling; docs/results/cpu-2026-12-02.md)."""


def default_parameters(device: str, **overrides: object) -> Parameters:
    """SPEC section 7 on a GPU (25 warmups, 100 trials); ``CPU_TIMING`` on CPU. ``None``
    overrides are ignored, so CLI options can be passed through as they are."""
    base: dict[str, object] = {} if device.startswith("cuda") else dict(CPU_TIMING)
    base.update({k: v for k, v in overrides.items() if v is not None})
    return Parameters.model_validate(base)


class CandidateSpec(BaseModel):
    """How the candidate was built; enough to re-run it exactly."""

    kind: str = Field(
        description="'pass', 'eager', 'inductor', or 'synth' (passnet bench only: each task is "
        "evaluated as the pass folder synthesised for it)"
    )
    pass_dir: str | None = None
    options: dict[str, str] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        if self.kind == "pass":
            return f"passes:{self.pass_dir}"
        opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.kind}[{opts}]" if opts else self.kind


class Scores(BaseModel):
    AS: float
    ES: dict[int, float]
    S: dict[int, float]
    fast_p: float
    subgraph_correct_rate: float
    gmean_speedup_correct: float | None
    gmean_speedup_vs_inductor_correct: float | None = None
    neutral_speedups: int = Field(
        default=0,
        description="correct variants whose timings mean nothing (timing_meaningful false): "
        "speedup 1.0 in S_t, ES_t and AS, left out of fast_p's hits and the G-mean speedups",
    )


class TaskResult(BaseModel):
    schema_version: int = SCHEMA_VERSION
    task: str
    candidate: CandidateSpec
    parameters: Parameters
    environment: Environment
    scores: Scores
    task_correct: bool = Field(description="every variant correct at t = 1")
    variants: list[VariantResult]
    wall_seconds: float
