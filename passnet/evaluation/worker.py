"""Evaluate one variant of a task inside a sandboxed worker process.

Run as ``python -m passnet.evaluation.worker --result-fd N``: the request (JSON) arrives on
stdin, the VariantResult (JSON) leaves through file descriptor N, a private channel, so
nothing a candidate prints can be mistaken for a result. The parent owns timeouts and kills.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from typing import Any

from pydantic import BaseModel


class WorkerRequest(BaseModel):
    graph: str
    path: str
    dtype: str
    device: str
    seed: int
    recheck_seed: int
    candidate: dict
    parameters: dict
    with_inductor: bool = False


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 2000 else text[:2000] + " ..."


def _where(exc: BaseException) -> str:
    """The innermost frame of a traceback, so a pass author sees the failing line."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f" (at {os.path.basename(f.filename)}:{f.lineno})"


def run_variant(req: WorkerRequest) -> dict[str, Any]:
    import torch

    from passnet.evaluation.candidates import (
        CandidateError,
        NoMatchError,
        build_candidate,
        call_path_probe,
    )
    from passnet.evaluation.compare import StructureError, compare_outputs
    from passnet.evaluation.results import (
        STATUS_ERROR_CLASS,
        CandidateSpec,
        Parameters,
        Status,
        VariantResult,
    )
    from passnet.evaluation.timing import Side, measure
    from passnet.graph.sample import SampleError, load_module, load_sample, materialize

    params = Parameters(**req.parameters)
    spec = CandidateSpec(**req.candidate)
    device = torch.device(req.device)
    result = VariantResult(graph=req.graph, dtype=req.dtype, status=Status.OK)
    if device.type == "cpu" and spec.kind == "pass":
        result.timing_note = "CPU: Triton kernels run in Triton's interpreter (interpreter timings)"

    def fail(status: Status, message: str) -> dict[str, Any]:
        result.status = status
        result.error_class = STATUS_ERROR_CLASS[status]
        result.error = message
        return result.model_dump(mode="json")

    try:
        sample = load_sample(req.path)
        ref_module = load_module(sample).to(device)
        cand_module = load_module(sample).to(device)
        ref_inputs = materialize(sample, device=req.device, seed=req.seed)
        cand_inputs = materialize(sample, device=req.device, seed=req.seed)
    except SampleError as exc:
        return fail(Status.SAMPLE_ERROR, str(exc))

    try:
        built = build_candidate(spec, cand_module, cand_inputs, params.call_path)
    except NoMatchError as exc:
        return fail(Status.NO_MATCH, str(exc))
    except CandidateError as exc:
        return fail(Status.COMPILE_ERROR, str(exc))
    result.matches = built.matches
    if built.note:
        result.timing_note = "; ".join(x for x in (result.timing_note, built.note) if x)

    # Candidate first, reference second: a kernel that never writes its output must not
    # inherit the reference's freed memory (SPEC section 8, layer C).
    try:
        with torch.no_grad():
            cand_out = built.fn(*cand_inputs)
            if device.type == "cuda":
                torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 - any failure of the candidate is classified
        status = Status.COMPILE_ERROR if params.call_path == "dynamo" else Status.RUNTIME_ERROR
        return fail(status, _short(exc) + _where(exc))
    if params.call_path == "dynamo":
        result.matches = built.matches
        if spec.kind == "pass" and sum(built.matches.values()) == 0:
            return fail(Status.NO_MATCH, "no pass matched the Dynamo graph")
    try:
        with torch.no_grad():
            ref_out = ref_module.forward(*ref_inputs)
    except Exception as exc:  # noqa: BLE001
        return fail(Status.SAMPLE_ERROR, f"reference failed: {_short(exc)}")

    try:
        result.comparison = compare_outputs(cand_out, ref_out)
    except StructureError as exc:
        return fail(Status.RUNTIME_ERROR, str(exc))
    if result.comparison.tightest_passing_t is None:
        return fail(Status.INCORRECT, result.comparison.detail)

    # Re-check on fresh inputs from a second seed: a pass that caches results or hard-codes
    # the first inputs fails here.
    try:
        fresh_c = materialize(sample, device=req.device, seed=req.recheck_seed)
        fresh_r = materialize(sample, device=req.device, seed=req.recheck_seed)
        with torch.no_grad():
            again = compare_outputs(built.fn(*fresh_c), ref_module.forward(*fresh_r))
    except StructureError as exc:
        return fail(Status.RUNTIME_ERROR, f"on fresh inputs: {exc}")
    except Exception as exc:  # noqa: BLE001
        return fail(Status.RUNTIME_ERROR, f"on fresh inputs: {_short(exc)}{_where(exc)}")
    if again.tightest_passing_t is None:
        return fail(Status.INCORRECT, "outputs wrong on fresh inputs (second seed)")
    # The variant is as correct as its worse check.
    if again.tightest_passing_t > result.comparison.tightest_passing_t:
        result.comparison = again

    sides = [
        Side("reference", ref_module.forward, ref_inputs),
        Side("candidate", built.fn, cand_inputs),
    ]
    if req.with_inductor and spec.kind != "inductor":
        try:
            ind = build_candidate(
                CandidateSpec(kind="inductor"),
                load_module(sample).to(device),
                materialize(sample, device=req.device, seed=req.seed),
                params.call_path,
            )
            ind_inputs = materialize(sample, device=req.device, seed=req.seed)
            with torch.no_grad():
                ind.fn(*ind_inputs)
            sides.append(Side("inductor", ind.fn, ind_inputs))
        except Exception as exc:  # noqa: BLE001 - the baseline failing is reported, not fatal
            result.timing_note = "; ".join(
                x for x in (result.timing_note, f"Inductor baseline failed: {_short(exc)}") if x
            )
    try:
        with torch.no_grad():
            timings = measure(
                sides,
                device,
                warmup=params.warmup,
                trials=params.trials,
                rounds=params.rounds,
                noise_limit=params.noise_limit,
                max_reruns=params.max_reruns,
            )
            probe = call_path_probe(spec, device, params.call_path)
            overhead = measure(
                [Side("probe", probe, ())],
                device,
                warmup=params.warmup,
                trials=params.trials,
                rounds=1,
                noise_limit=params.noise_limit,
                max_reruns=0,
            )
    except Exception as exc:  # noqa: BLE001 - a candidate failing on a later call
        return fail(Status.RUNTIME_ERROR, f"during timing: {_short(exc)}{_where(exc)}")
    result.reference = timings["reference"]
    result.candidate = timings["candidate"]
    result.speedup = result.reference.wall.median_us / result.candidate.wall.median_us
    if result.reference.cuda_event and result.candidate.cuda_event:
        result.speedup_cuda_event = (
            result.reference.cuda_event.median_us / result.candidate.cuda_event.median_us
        )
    if "inductor" in timings:
        result.inductor_median_us = timings["inductor"].wall.median_us
        result.speedup_vs_inductor = result.inductor_median_us / result.candidate.wall.median_us
    result.call_overhead_us = overhead["probe"].wall.median_us
    return result.model_dump(mode="json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--result-fd", type=int, required=True)
    args = parser.parse_args(argv)
    channel = os.fdopen(args.result_fd, "w")
    req = WorkerRequest.model_validate_json(sys.stdin.read())
    t0 = time.perf_counter()
    try:
        out = run_variant(req)
    except BaseException as exc:  # noqa: BLE001 - report, then die; the parent classifies
        out = {
            "graph": req.graph,
            "dtype": req.dtype,
            "status": "runtime_error",
            "error_class": "runtime",
            "error": f"worker error: {_short(exc)}{_where(exc)}",
        }
    out["worker_seconds"] = time.perf_counter() - t0
    channel.write(json.dumps(out))
    channel.flush()
    channel.close()
    # Skip interpreter teardown: a candidate's atexit hooks or threads must not hang us.
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
