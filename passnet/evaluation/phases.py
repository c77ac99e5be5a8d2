"""The phases of one variant's evaluation inside a worker, each a short method of ``VariantRun``.

setup (static policy, load the sample, materialise inputs), build (load and apply the
candidate under the runtime guards), correctness (fresh inputs per trial, candidate first,
reference second), ghost (a replay with every Triton launch disabled), timing (interleaved
rounds with checked calls at secret positions, under the device's timing lock; on
``--call-path cudagraph`` each side is replayed from a captured graph: ``timed_phase``'s
``TimingPhase``, built from what the other phases left). A phase that ends the evaluation
raises ``Failed``; ``VariantRun.run`` turns it into the result in one place.

Imported only inside a worker (``passnet.evaluation.variant.run_variant``): it pulls in torch,
the integrity layers and the candidates.
"""

from __future__ import annotations

import os
import secrets
import time
from typing import Any

import torch

from passnet.core.results import (
    STATUS_ERROR_CLASS,
    Finding,
    Sandbox,
    Status,
    VariantResult,
)
from passnet.evaluation.candidates import (
    CandidateError,
    NoMatchError,
    build_candidate,
    kind_of,
)
from passnet.evaluation.compile_cache import compile_cache_dir
from passnet.evaluation.compile_stats import TritonStats
from passnet.evaluation.device_lock import DeviceLock
from passnet.evaluation.phase_clock import DeviceHolds, PhaseClock
from passnet.evaluation.request import WorkerRequest
from passnet.evaluation.timed_phase import Failed, TimingPhase, add_note, worst
from passnet.evaluation.timing import cpu_steal_jiffies
from passnet.evaluation.variant import error_site, sandbox_facts, short_error
from passnet.graph.sample import SampleError, load_module, load_sample, materialize
from passnet.integrity import audit, checks
from passnet.integrity.policy import PolicyError, enforce
from passnet.integrity.runtime import Runtime
from passnet.passes.matcher import to_fx
from passnet.passes.plans import PlanWriteError
from passnet.scores.compare import StructureError, compare_outputs


class VariantRun:
    """One variant under one candidate, phase by phase; ``run()`` returns its result."""

    def __init__(self, req: WorkerRequest) -> None:
        started = time.perf_counter()  # the first phase boundary (result.phase_seconds)
        self.steal_before = cpu_steal_jiffies()  # /proc/stat ticks at 100 Hz: whole evaluation
        self.req = req
        self.params, self.spec = req.parameters, req.candidate  # validated with the request
        device = torch.device(req.device)
        if device.type == "cuda" and device.index is None:
            # APIs such as set_per_process_memory_fraction and mem_get_info need an index.
            device = torch.device("cuda", torch.cuda.current_device())
        self.device = device
        if device.type == "cpu" and self.params.cpu_threads:
            torch.set_num_threads(self.params.cpu_threads)  # before any compile: Inductor reads it
        self.result = VariantResult(graph=req.graph, dtype=req.dtype, status=Status.OK)
        self.clock = PhaseClock(self.result, started)
        self.fraction = self.params.cuda_memory_fraction if device.type == "cuda" else None
        self.result.sandbox = Sandbox(**sandbox_facts(req, self.fraction))
        self.kind = kind_of(self.spec)
        if device.type == "cpu" and self.kind.runs_pass_code:
            self._interpreter_timing()
        self.rt: Runtime | None = None
        self.own: list[Finding] = []  # findings of the worker itself (policy, null kernel)
        self.refused: list[Finding] = []  # the audit hook's refusals (all fatal)
        # Opened before any pass code runs: held shared while preparing, exclusive to time.
        lock = DeviceLock(req.lock_dir, device) if req.lock_dir else None
        self.holds = DeviceHolds(lock, self.clock, req.timing_cpus)
        self.checker: checks.CandidateChecker | None = None
        self.trials: list[checks.Trial] = []
        self.ref_mutates = False  # does the reference itself write into its inputs (x += y)?

    def _interpreter_timing(self) -> None:
        """Interpreted kernels: times mean nothing. Check in full, time just enough for the
        timed-call checks (with the CPU defaults a large variant outran its time limit)."""
        self.params = self.params.for_interpreter()
        self.result.timing_meaningful = False
        p = self.params
        self.result.timing_note = (
            "CPU: Triton kernels run in Triton's interpreter: correctness checked in full, "
            f"timed minimally ({p.warmup} warmup, {p.trials} calls a side); the "
            "speedup means nothing and a correct variant scores as speedup 1.0"
        )

    # -- bookkeeping -----------------------------------------------------------------------

    def phase(self, name: str) -> None:
        """Charge the time since the last phase ended to ``name`` (result.phase_seconds)."""
        self.clock.phase(name)

    def note(self, text: str) -> None:
        add_note(self.result, text)

    def integrity_error(self, exc: BaseException) -> None:
        """A failure that is evidence of an exploit (a write into a frozen launch plan: a
        memo kept across calls) becomes a fatal finding."""
        if isinstance(exc, PlanWriteError):
            self.own.append(
                Finding(
                    check="plan-write",
                    detail=f"{exc}{error_site(exc)}",
                    phase=self.rt.phase if self.rt is not None else "load",
                )
            )

    def check_rejected(self) -> None:
        if self.fatal():
            raise Failed(Status.REJECTED)

    def fatal(self) -> list[Finding]:
        own = [f for f in self.own if f.fatal and not f.check.startswith("policy:")]
        return [*self.refused, *(self.rt.fatal() if self.rt is not None else []), *own]

    def findings(self) -> list[Finding]:
        return [*self.refused, *(self.rt.findings if self.rt is not None else []), *self.own]

    def fail(self, status: Status, message: str) -> VariantResult:
        """The result of a failed variant; evidence of an exploit overrides the status."""
        if self.clock.lock_wait >= 0.01 and "wait" not in self.result.phase_seconds:
            self.clock.record_wait()  # a real wait, not the syscall
        self.phase("failed")
        self.result.integrity = self.findings()
        fatal = self.fatal()
        if fatal and status is not Status.SAMPLE_ERROR:
            status = Status.REJECTED
            message = "integrity: " + "; ".join(f"{f.check}: {f.detail}" for f in fatal[:4])
        self.result.status = status
        self.result.error_class = STATUS_ERROR_CLASS[status]
        self.result.error = message
        return self.result

    def run(self) -> VariantResult:
        stats = self.triton = TritonStats()
        stats.install()  # before any pass code: the integrity snapshot sees the hook as given
        stopped: Failed | None = None
        try:
            self.setup()
            self.build()  # loading and matching: host work
            self.correctness()
            with self.holds.preparing():
                self.ghost()
            self.timing()
        except Failed as stop:
            stopped = stop
        finally:
            stats.uninstall()
        self.result.triton = stats.summary()
        if stopped is not None:
            return self.fail(stopped.status, stopped.message)
        self.result.integrity = self.findings()
        return self.result

    # -- setup and build -------------------------------------------------------------------

    def setup(self) -> None:
        """Layer A (the static policy, before any pass code is imported), then the sample."""
        req, spec = self.req, self.spec
        if self.kind.runs_pass_code and self.params.policy:
            try:
                enforce(spec.pass_dir or "")
            except PolicyError as exc:
                self.own.extend(
                    Finding(check=f"policy:{v.rule}", detail=str(v), phase="policy")
                    for v in exc.violations
                )
                raise Failed(Status.REJECTED, str(exc)) from exc
        # The device's lock is held shared around device work only: a timer waits for every
        # shared hold to end, so host work inside one (Triton's driver module, reading and
        # tracing the sample) would keep the device idle.
        if self.fraction:
            with self.holds.preparing():  # a worker without a context yet makes it here
                torch.cuda.set_per_process_memory_fraction(self.fraction, self.device)
        if self.kind.runs_pass_code and self.device.type == "cuda":
            self.triton.warm_driver(compile_cache_dir())
        try:
            self.sample = load_sample(req.path)
            with self.holds.preparing():  # modules and inputs onto the device
                self.ref_module = load_module(self.sample, self.device)
                self.cand_module = load_module(self.sample, self.device)
                self.ref_inputs = self.fresh(req.seed)
                self.cand_inputs = checks.clone_tree(self.ref_inputs)  # same draw, own memory
                original = load_module(self.sample, self.device)
            self.original = to_fx(original)
        except SampleError as exc:
            raise Failed(Status.SAMPLE_ERROR, str(exc)) from exc
        self.phase("setup")

    def fresh(self, seed: int, *, secret: bool = False) -> list:
        """Inputs drawn from ``seed``; a ``secret`` seed's are drawn on the device itself
        (``materialize``'s ``draw_on_device``): no one reproduces them, and a timed check
        then costs the host no drawing while every other worker waits for the device."""
        return materialize(self.sample, device=self.req.device, seed=seed, draw_on_device=secret)

    def build(self) -> None:
        """Load and apply the candidate; under the runtime guards for a pass."""
        params, spec = self.params, self.spec
        if params.runtime_checks and self.kind.runs_pass_code:
            self.rt = Runtime(self.device, watch_dynamo=params.call_path != "dynamo")
            self.rt.snapshot()
            loading = self.rt.probe()
        if params.audit_hook and self.kind.runs_pass_code and spec.pass_dir:
            hook = self.install_audit(spec.pass_dir)
            if self.rt is not None:
                self.rt.watch_code_swaps(hook.code_swaps)
        try:
            self.built = build_candidate(spec, self.cand_module, self.cand_inputs, params.call_path)
        except NoMatchError as exc:
            raise Failed(Status.NO_MATCH, str(exc)) from exc
        except CandidateError as exc:
            raise Failed(Status.COMPILE_ERROR, str(exc)) from exc
        self.result.matches = self.built.matches
        if self.built.note:
            self.note(self.built.note)
        if self.rt is not None:
            rt = self.rt
            rt.verify()
            rt.after_load(loading)
            self.check_rejected()
            direct = params.call_path in ("direct", "cudagraph")
            guarded = rt.guard_graph(self.built.fn, self.original) if direct else None
            if guarded is None:
                self.note(
                    "runtime guard not applied on this call path (no replacement nodes to wrap)"
                )
            self.checker = checks.CandidateChecker(
                rt, guarded or self.built.fn, self.ref_module.forward, self.device
            )
            rt.watch_instances(self, self.checker, self.clock, self.holds)
        self.phase("build")

    def install_audit(self, pass_dir: str) -> audit.AuditHook:
        """The audit hook, for the rest of this worker's life (``passnet.integrity.audit``):
        refusals are fatal findings of the phase they happen in."""
        import tempfile

        def report(kind: str, detail: str) -> None:
            if len(self.refused) < 20:
                phase = self.rt.phase if self.rt is not None else "load"
                self.refused.append(Finding(check=f"audit:{kind}", detail=detail, phase=phase))

        writable = [tempfile.gettempdir(), os.environ.get("TRITON_CACHE_DIR", "")]
        return audit.install(pass_dir, writable, report)

    # -- correctness and ghost -------------------------------------------------------------

    def call_candidate(self, inputs: list, defer: bool = False) -> tuple[Any, list, set[int]]:
        """(outputs, the inputs as they were before the call, indices of mutated inputs);
        ``defer``: the guarded call's late-write check waits for ``settle_trials``."""
        if self.checker is not None:
            return self.checker.call(inputs, defer=defer)
        pristine = checks.clone_tree(inputs)
        out = self.built.fn(*inputs)
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        return out, pristine, set()

    def correctness(self) -> None:
        """Fresh inputs for every trial; secret seeds are drawn only now, so nothing the pass
        saw earlier predicts them. Candidate first, reference second: a kernel that never
        writes its output must not inherit the reference's freed memory."""
        if self.rt is not None:
            self.rt.phase = "correctness"
        req = self.req
        try:
            for k in range(2 + max(0, self.params.fresh_trials)):
                seed = (req.seed, req.recheck_seed)[k] if k < 2 else secrets.randbits(31)
                if k == 0:  # the first call compiles (Triton, Inductor): the lock after it
                    self.trial(k, self.cand_inputs)
                    continue
                with self.holds.preparing():
                    self.trial(k, self.fresh(seed, secret=k >= 2))
        finally:  # a failed trial's late writes are evidence too
            self.settle_trials()
        self.check_rejected()
        self.phase("correctness")

    def settle_trials(self) -> None:
        """The late-write checks of the trials after the first, deferred: their wait for late
        writes (``SETTLE_S``) sat inside the device's shared hold, which keeps every timer
        waiting; it is spent here, outside it, once."""
        if self.checker is None:
            return
        self.checker.wait_deferred()
        with self.holds.preparing():
            self.checker.settle_late()

    def trial(self, k: int, inputs: list) -> None:
        """One correctness trial: run both sides, judge, compare, keep the outputs."""
        where = "" if k == 0 else f" on fresh inputs (trial {k + 1})"
        dynamo = self.params.call_path == "dynamo"
        try:
            with torch.no_grad():
                out, pristine, mutated = self.call_candidate(inputs, defer=k > 0)
        except Exception as exc:  # noqa: BLE001 - any failure of the candidate is classified
            self.integrity_error(exc)
            status = Status.COMPILE_ERROR if dynamo and k == 0 else Status.RUNTIME_ERROR
            raise Failed(status, f"{short_error(exc)}{error_site(exc)}{where}") from exc
        if k == 0:  # the candidate's first call: Triton's or a compiler's compile happens here
            self.phase("first_call")
        with self.holds.preparing():  # after a compile: device work (trials k > 0 hold it)
            self.check_trial(k, where, out, pristine, mutated, inputs)

    def check_trial(self, k: int, where: str, out: Any, pristine: list, mutated: set[int],
                    inputs: list) -> None:  # fmt: skip
        """A trial's candidate outputs judged against the reference's, run on ``pristine``
        (``where``: the trial, for messages)."""
        if k == 0 and self.params.call_path == "dynamo":
            self.result.matches = self.built.matches
            if self.kind.runs_pass_code and sum(self.built.matches.values()) == 0:
                raise Failed(Status.NO_MATCH, "no pass matched the Dynamo graph")
        try:
            r_inputs = checks.clone_tree(pristine)
            with torch.no_grad():
                ref_out = self.ref_module.forward(*r_inputs)
        except Exception as exc:  # noqa: BLE001
            raise Failed(Status.SAMPLE_ERROR, f"reference failed: {short_error(exc)}") from exc
        ref_mut = checks.changed(pristine, r_inputs)
        self.ref_mutates = self.ref_mutates or bool(ref_mut)
        if self.checker is not None:
            self.checker.judge(out, inputs, mutated, ref_out, r_inputs, ref_mut)
        try:
            comparison = compare_outputs(out, ref_out)
        except StructureError as exc:
            raise Failed(Status.RUNTIME_ERROR, f"{exc}{where}") from exc
        trials, rt = self.trials, self.rt
        if rt is not None and trials and checks.same(out, trials[-1].output):
            if not checks.same(ref_out, trials[-1].reference):
                rt.add("stale-output", f"trial {k + 1} returned the previous trial's outputs "
                       "for new inputs (a cached result)")  # fmt: skip
        trials.append(checks.Trial(checks.clone_tree(out), ref_out, comparison))
        if len(trials) <= 2:  # flag a degenerate reference even if the candidate fails below
            self.result.reference_flags = checks.reference_flags(
                trials[0].reference, trials[-1].reference if k else None
            )
        self.check_rejected()
        self.judge_trial(comparison, ref_out, where)

    def judge_trial(self, comparison: Any, ref_out: Any, where: str) -> None:
        """Fail a trial that is wrong, or no closer to the reference than all-zero outputs."""
        result = self.result
        if comparison.tightest_passing_t is None:
            result.comparison = comparison
            raise Failed(Status.INCORRECT, (comparison.detail or "outputs wrong") + where)
        zero = checks.null_level(ref_out)
        if zero is not None and zero > -10 and comparison.tightest_passing_t >= zero:
            result.comparison = comparison
            self.own.append(Finding(
                check="null-kernel", phase="correctness", fatal=False,
                detail=f"outputs pass only from t = {comparison.tightest_passing_t}, where "
                f"all-zero outputs pass too (from t = {zero})"))  # fmt: skip
            raise Failed(Status.INCORRECT, "no closer to the reference than all-zero outputs"
                         + where)  # fmt: skip
        result.comparison = worst(result.comparison, comparison)  # as correct as its worst

    def timing(self) -> None:
        """The timing phase, built from what the phases before it left (``TimingPhase``)."""
        timer = TimingPhase(
            device=self.device, spec=self.spec, params=self.params,
            runs_pass_code=self.kind.runs_pass_code, with_inductor=self.req.with_inductor,
            seed=self.req.seed, sample=self.sample, ref_module=self.ref_module,
            ref_inputs=self.ref_inputs, cand_inputs=self.cand_inputs, built=self.built,
            first_output=self.trials[0].output, ref_mutates=self.ref_mutates,
            checker=self.checker, rt=self.rt, result=self.result, clock=self.clock,
            holds=self.holds, fresh=self.fresh, check_rejected=self.check_rejected,
            integrity_error=self.integrity_error, steal_before=self.steal_before,
        )  # fmt: skip
        if self.rt is not None:  # its methods, like ours, must not be shadowed by a pass
            self.rt.watch_instances(self, self.checker, self.clock, self.holds, timer)
        timer.timing()

    def ghost(self) -> None:
        if self.checker is None or self.rt is None:
            return
        self.rt.phase = "ghost"
        with torch.no_grad():
            inputs = self.fresh(self.req.seed)

            def written() -> list:  # what the graph writes into its inputs is output too
                after = checks.clone_tree(inputs)
                self.ref_module.forward(*after)
                return after

            self.checker.ghost(inputs, self.trials[0].output, written)
        self.check_rejected()
        self.phase("ghost")
