"""Evaluate one variant under one candidate: the body of a worker process.

Phases, each charged to ``result.phase_seconds``: setup (load the sample, materialise inputs),
build (static policy, then load and apply the candidate under the runtime guards),
correctness (fresh inputs per trial, candidate first, reference second), ghost (a replay with
every Triton launch disabled), timing (interleaved rounds with checked calls at secret
positions; on ``--call-path cudagraph`` each side is replayed from a captured graph).
"""

from __future__ import annotations

import os
import resource
import secrets
import time
import traceback
from typing import Any

from passnet.evaluation.request import WorkerRequest


def short_error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 2000 else text[:2000] + " ..."


def error_site(exc: BaseException) -> str:
    """The innermost frame of a traceback, so a pass author sees the failing line."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f" (at {os.path.basename(f.filename)}:{f.lineno})"


def _netns() -> str:
    try:
        return os.readlink("/proc/self/ns/net")
    except OSError:
        return ""


def _sandbox(req: WorkerRequest, fraction: float | None) -> dict[str, Any]:
    own = _netns()
    limit = None
    for kind in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
        soft, _ = resource.getrlimit(kind)
        if soft != resource.RLIM_INFINITY:
            limit = soft
            break
    return {
        "network_isolated": own != req.parent_netns if own and req.parent_netns else None,
        "memory_limit_bytes": limit,
        "cuda_memory_fraction": fraction,
    }


def run_variant(req: WorkerRequest) -> dict[str, Any]:
    clock = [time.perf_counter()]  # phase boundaries (result.phase_seconds)
    import torch

    from passnet.core.results import (
        STATUS_ERROR_CLASS,
        CandidateSpec,
        Finding,
        Parameters,
        Sandbox,
        Status,
        VariantResult,
    )
    from passnet.evaluation import graphed
    from passnet.evaluation.candidates import (
        CandidateError,
        NoMatchError,
        build_candidate,
        call_path_probe,
    )
    from passnet.evaluation.device_lock import DeviceLock
    from passnet.evaluation.timing import (
        Side,
        cpu_steal_jiffies,
        exclude_sampled,
        measure,
        steal_share,
        timed_cap,
        timing_rule,
    )
    from passnet.graph.sample import SampleError, load_module, load_sample, materialize
    from passnet.integrity import checks
    from passnet.integrity.policy import PolicyError, enforce
    from passnet.integrity.runtime import Runtime
    from passnet.passes.matcher import to_fx
    from passnet.scores.compare import StructureError, compare_outputs

    steal_before = cpu_steal_jiffies()  # over the whole evaluation: /proc/stat ticks at 100 Hz
    params = Parameters(**req.parameters)
    spec = CandidateSpec(**req.candidate)
    device = torch.device(req.device)
    if device.type == "cuda" and device.index is None:
        # APIs such as set_per_process_memory_fraction and mem_get_info need an explicit index.
        device = torch.device("cuda", torch.cuda.current_device())
    if device.type == "cpu" and params.cpu_threads:
        torch.set_num_threads(params.cpu_threads)  # before any compile: Inductor reads it
    result = VariantResult(graph=req.graph, dtype=req.dtype, status=Status.OK)
    fraction = params.cuda_memory_fraction if device.type == "cuda" else None
    result.sandbox = Sandbox(**_sandbox(req, fraction))
    if device.type == "cpu" and spec.kind == "pass":
        # Interpreted kernels: times mean nothing. Check in full, time just enough for the
        # timed-call checks (a [8, 128, 256] variant ran > 600 s with the CPU defaults).
        params = params.for_interpreter()
        result.timing_meaningful = False
        result.timing_note = (
            "CPU: Triton kernels run in Triton's interpreter: correctness checked in full, "
            f"timed minimally ({params.warmup} warmup, {params.trials} calls a side); the "
            "speedup means nothing and a correct variant scores as speedup 1.0"
        )
    rt: Runtime | None = None
    own: list[Finding] = []  # findings of the worker itself (policy, null kernel)
    # Opened before any pass code runs; held only around the timed phase (device_lock).
    timing_lock = DeviceLock(req.lock_dir, device) if req.lock_dir else None

    def phase(name: str) -> None:
        """Charge the time since the last phase ended to ``name`` (result.phase_seconds)."""
        now = time.perf_counter()
        result.phase_seconds[name] = result.phase_seconds.get(name, 0.0) + now - clock[0]
        clock[0] = now

    def note(text: str) -> None:
        result.timing_note = "; ".join(x for x in (result.timing_note, text) if x)

    def fail(status: Status, message: str) -> dict[str, Any]:
        phase("failed")
        result.integrity = [*(rt.findings if rt is not None else []), *own]
        if rt is not None:
            fatal = rt.fatal()
            if fatal and status is not Status.SAMPLE_ERROR:  # evidence of an exploit wins
                status = Status.REJECTED
                message = "integrity: " + "; ".join(f"{f.check}: {f.detail}" for f in fatal[:4])
        result.status = status
        result.error_class = STATUS_ERROR_CLASS[status]
        result.error = message
        return result.model_dump(mode="json")

    def rejected() -> dict[str, Any] | None:
        return fail(Status.REJECTED, "") if rt is not None and rt.fatal() else None

    # Layer A: the static policy, before any pass code is imported.
    if spec.kind == "pass" and params.policy:
        try:
            enforce(spec.pass_dir or "")
        except PolicyError as exc:
            own.extend(
                Finding(check=f"policy:{v.rule}", detail=str(v), phase="policy")
                for v in exc.violations
            )
            return fail(Status.REJECTED, str(exc))
    if fraction:
        torch.cuda.set_per_process_memory_fraction(fraction, device)

    try:
        sample = load_sample(req.path)
        ref_module = load_module(sample).to(device)
        cand_module = load_module(sample).to(device)
        ref_inputs = materialize(sample, device=req.device, seed=req.seed)
        cand_inputs = materialize(sample, device=req.device, seed=req.seed)
        original = to_fx(load_module(sample).to(device))
    except SampleError as exc:
        return fail(Status.SAMPLE_ERROR, str(exc))
    phase("setup")

    if params.runtime_checks and spec.kind == "pass":
        rt = Runtime(device, watch_dynamo=params.call_path != "dynamo")
        rt.snapshot()
        loading = rt.probe()
    try:
        built = build_candidate(spec, cand_module, cand_inputs, params.call_path)
    except NoMatchError as exc:
        return fail(Status.NO_MATCH, str(exc))
    except CandidateError as exc:
        return fail(Status.COMPILE_ERROR, str(exc))
    result.matches = built.matches
    if built.note:
        note(built.note)
    checked_fn = built.fn
    if rt is not None:
        rt.verify()
        rt.after_load(loading)
        if stop := rejected():
            return stop
        direct = params.call_path in ("direct", "cudagraph")
        guarded = rt.guard_graph(built.fn, original) if direct else None
        if guarded is None:
            note("runtime guard not applied on this call path (no replacement nodes to wrap)")
        checked_fn = guarded or built.fn
    checker = checks.CandidateChecker(rt, checked_fn, ref_module.forward, device) if rt else None
    phase("build")

    def run_candidate(inputs: list) -> tuple[Any, list, set[int]]:
        if checker is not None:
            return checker.call(inputs)
        pristine = checks.clone_tree(inputs)
        out = built.fn(*inputs)
        if device.type == "cuda":
            torch.cuda.synchronize()
        return out, pristine, set()

    # Correctness: fresh inputs for every trial. Candidate first, reference second: a kernel
    # that never writes its output must not inherit the reference's freed memory.
    if rt is not None:
        rt.phase = "correctness"
    trials: list[checks.Trial] = []
    ref_mutates = False  # does the reference itself write into its inputs (x += y)?
    n_trials = 2 + max(0, params.fresh_trials)
    for k in range(n_trials):
        # secret seeds are drawn only now, so nothing the pass saw earlier predicts them
        seed = (req.seed, req.recheck_seed)[k] if k < 2 else secrets.randbits(31)
        inputs = cand_inputs if k == 0 else materialize(sample, device=req.device, seed=seed)
        where = "" if k == 0 else f" on fresh inputs (trial {k + 1})"
        try:
            with torch.no_grad():
                out, pristine, mutated = run_candidate(inputs)
        except Exception as exc:  # noqa: BLE001 - any failure of the candidate is classified
            dynamo = params.call_path == "dynamo" and k == 0
            status = Status.COMPILE_ERROR if dynamo else Status.RUNTIME_ERROR
            return fail(status, f"{short_error(exc)}{error_site(exc)}{where}")
        if k == 0 and params.call_path == "dynamo":
            result.matches = built.matches
            if spec.kind == "pass" and sum(built.matches.values()) == 0:
                return fail(Status.NO_MATCH, "no pass matched the Dynamo graph")
        try:
            r_inputs = checks.clone_tree(pristine)
            with torch.no_grad():
                ref_out = ref_module.forward(*r_inputs)
        except Exception as exc:  # noqa: BLE001
            return fail(Status.SAMPLE_ERROR, f"reference failed: {short_error(exc)}")
        ref_mut = checks.changed(pristine, r_inputs)
        ref_mutates = ref_mutates or bool(ref_mut)
        if checker is not None:
            checker.judge(out, inputs, mutated, ref_out, r_inputs, ref_mut)
        try:
            comparison = compare_outputs(out, ref_out)
        except StructureError as exc:
            return fail(Status.RUNTIME_ERROR, f"{exc}{where}")
        if rt is not None and trials and checks.same(out, trials[-1].output):
            if not checks.same(ref_out, trials[-1].reference):
                rt.add("stale-output", f"trial {k + 1} returned the previous trial's outputs "
                       "for new inputs (a cached result)")  # fmt: skip
        trials.append(checks.Trial(checks.clone_tree(out), ref_out, comparison))
        if len(trials) <= 2:  # flag a degenerate reference even if the candidate fails below
            result.reference_flags = checks.reference_flags(
                trials[0].reference, trials[-1].reference if k else None
            )
        if stop := rejected():
            return stop
        if comparison.tightest_passing_t is None:
            result.comparison = comparison
            return fail(Status.INCORRECT, (comparison.detail or "outputs wrong") + where)
        zero = checks.null_level(ref_out)
        if zero is not None and zero > -10 and comparison.tightest_passing_t >= zero:
            result.comparison = comparison
            own.append(Finding(
                check="null-kernel", phase="correctness", fatal=False,
                detail=f"outputs pass only from t = {comparison.tightest_passing_t}, where "
                f"all-zero outputs pass too (from t = {zero})"))  # fmt: skip
            return fail(Status.INCORRECT, "no closer to the reference than all-zero outputs"
                        + where)  # fmt: skip
        result.comparison = _worst(result.comparison, comparison)  # as correct as its worst
    phase("correctness")

    if checker is not None and rt is not None:
        rt.phase = "ghost"
        first = materialize(sample, device=req.device, seed=req.seed)
        with torch.no_grad():
            checker.ghost(first, trials[0].output)
        if stop := rejected():
            return stop
        phase("ghost")

    # Timing, with checked calls hidden at secret positions among the timed calls.
    per_run = params.warmup + max(1, params.trials // max(1, params.rounds)) * params.rounds
    positions, keep = frozenset(), frozenset()
    timed: list = []
    expected = timed_check = None
    if checker is not None and rt is not None:
        n_check = min(params.sampled_checks, max(1, params.trials // 8))
        longest = params.warmup + timed_cap(
            params.trials, params.rounds, params.ci_target, params.max_trials
        )
        positions, keep = checks.secret_positions(params.warmup, per_run, n_check, 3, longest)
        if not ref_mutates:
            with torch.no_grad():
                expected = ref_module.forward(*checks.clone_tree(cand_inputs))

        def timed_check(args: tuple) -> Any:
            rt.phase = "timing"
            inputs, saved = list(args), checks.clone_tree(list(args))
            checks.copy_values(inputs, materialize(sample, req.device, secrets.randbits(31)))
            out, pristine, mutated = checker.call(inputs)
            r_in = checks.clone_tree(pristine)
            ref = ref_module.forward(*r_in)
            checker.judge(out, inputs, mutated, ref, r_in, checks.changed(pristine, r_in))
            judge_timed(out, ref)
            checks.copy_values(inputs, saved)
            return out

        def judge_timed(out: Any, ref: Any) -> None:
            try:
                cmp = compare_outputs(out, ref)
            except StructureError as exc:
                rt.add("timed-output", f"a timed call's outputs: {exc}")
            else:
                if cmp.tightest_passing_t is None:
                    stale = expected is not None and _close(out, expected)
                    rt.add("stale-output" if stale else "timed-output", "a timed call returned "
                           + ("the outputs of the timing inputs for fresh values written into "
                              "the same tensors" if stale else "wrong outputs"))  # fmt: skip
                timed.append(cmp)

        def replay_check(graph: Any, inputs: list) -> Any:
            rt.phase = "timing"
            return graphed.checked_replay(
                graph, inputs, lambda: materialize(sample, req.device, secrets.randbits(31)),
                lambda out, r_in: judge_timed(out, ref_module.forward(*r_in)))  # fmt: skip

    cand_side = checks.TimedSampler(built.fn, per_run, positions, keep, timed_check)
    sides = [
        Side("reference", checks.TimedSampler(ref_module.forward, per_run), ref_inputs),
        Side("candidate", cand_side, cand_inputs),
    ]
    before_timing = checks.clone_tree(cand_inputs)
    if req.with_inductor and spec.kind != "inductor":
        if rt is not None:  # Inductor patches torch as it loads: check, then re-baseline
            rt.verify()
            if stop := rejected():
                return stop
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
            sides.append(Side("inductor", checks.TimedSampler(ind.fn, per_run), ind_inputs))
        except Exception as exc:  # noqa: BLE001 - the baseline failing is reported, not fatal
            note(f"Inductor baseline failed: {short_error(exc)}")
        if rt is not None:
            rt.rebase()
    if params.call_path == "cudagraph":
        try:
            calls = 1 if ref_mutates else graphed.GRAPH_CALLS  # in-place graphs: one call
            sides, cand_side, dropped = graphed.graph_sides(
                sides, device, per_run, positions, replay_check if timed_check else None, calls
            )
        except graphed.CaptureError as exc:
            ref_failed = str(exc).startswith("reference")
            return fail(Status.SAMPLE_ERROR if ref_failed else Status.RUNTIME_ERROR, str(exc))
        note(f"CUDA-graph regime: each side captured once ({calls} calls in a row), timed by "
             f"replay, per-call times = replay / {calls}" + dropped)  # fmt: skip
    if timing_lock is not None:  # no other timing on this device from here to release
        waited = timing_lock.acquire()
        result.phase_seconds["wait"] = waited
        clock[0] += waited  # not charged to timing
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
                ci_target=params.ci_target,
                max_trials=params.max_trials,
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
        return fail(Status.RUNTIME_ERROR, f"during timing: {short_error(exc)}{error_site(exc)}")
    finally:
        if timing_lock is not None:
            timing_lock.release()
    if checker is not None and rt is not None:
        rt.phase = "timing"
        rt.verify()
        _after_timing(rt, cand_side, expected, cand_inputs, before_timing, ref_mutates)
        if stop := rejected():
            return stop
        for cmp in timed:  # timed calls count like correctness trials
            if cmp.tightest_passing_t is not None:
                result.comparison = _worst(result.comparison, cmp)
        if positions and cand_side.aligned:
            timings["candidate"] = exclude_sampled(
                timings["candidate"], positions, params.warmup, params.noise_limit
            )
        elif positions:
            note("checked timed calls could not be told apart; kept in the statistics")
    if params.call_path == "cudagraph":
        timings = {k: graphed.per_call(v, calls) for k, v in timings.items()}
    result.timing_rule = timing_rule(
        timings,
        params.ci_target,
        timed_cap(params.trials, params.rounds, params.ci_target, params.max_trials),
    )
    result.reference = timings["reference"]
    result.candidate = timings["candidate"]
    result.speedup = result.reference.wall.median_us / result.candidate.wall.median_us
    ref_ev, cand_ev = result.reference.cuda_event, result.candidate.cuda_event
    if ref_ev and cand_ev:
        result.speedup_cuda_event = ref_ev.median_us / cand_ev.median_us
        gap = (result.candidate.wall.median_us - cand_ev.median_us) - (
            result.reference.wall.median_us - ref_ev.median_us
        )
        if rt is not None and gap > max(50.0, 0.5 * result.candidate.wall.median_us):
            # A warning, not a verdict: on the H200 a legit multi-output pass showed a 212 us
            # gap once. The device-busy check after each checked call is the fatal defence.
            rt.add(
                "side-stream-gap",
                f"end-to-end time exceeds event time by {gap:.0f} us more than the "
                "reference's: work may escape the timed stream",
                fatal=False,
            )
    if "inductor" in timings:
        result.inductor_median_us = timings["inductor"].wall.median_us
        result.speedup_vs_inductor = result.inductor_median_us / result.candidate.wall.median_us
    result.call_overhead_us = overhead["probe"].wall.median_us
    result.cpu_steal = steal_share(steal_before, cpu_steal_jiffies())
    phase("timing")
    result.integrity = [*(rt.findings if rt is not None else []), *own]
    return result.model_dump(mode="json")


def _worst(a: Any, b: Any) -> Any:
    """The comparison with the looser tightest passing level (None counts as passing none)."""
    if a is None or a.tightest_passing_t is None:
        return a if a is not None else b
    return b if b.tightest_passing_t is None or b.tightest_passing_t > a.tightest_passing_t else a


def _close(a: Any, b: Any) -> bool:
    from passnet.scores.compare import compare_outputs

    try:
        return compare_outputs(a, b).tightest_passing_t is not None
    except Exception:  # noqa: BLE001
        return False


def _after_timing(rt, side, expected, inputs, before, ref_mutates) -> None:  # noqa: ANN001
    """Outputs kept from unchecked timed calls, and the timing inputs, re-checked."""
    from passnet.integrity import checks

    own = {checks.storage_key(t) for t in inputs} | {None}
    # one set per call: outputs of one call may share a storage (ViT's ``ln[:, 0]`` is a
    # view of ``ln``, in eager too); only a storage seen in two calls is a stale result
    per_call = [{checks.storage_key(t) for t in checks.leaves(o)} - own for o in side.kept]
    if sum(map(len, per_call)) != len(set().union(*per_call)):
        rt.add("output-reused", "timed calls returned the same output storage more than once")
    if expected is not None:
        for o in side.kept:
            if not _close(o, expected):
                rt.add("timed-output", "the outputs of an unchecked timed call are wrong")
    if not ref_mutates and checks.changed(before, inputs):
        rt.add("input-mutated", "the timing inputs changed during the timed calls")
