"""``bench``: every task of a suite for every candidate, resumable, baselines cached.

A run is planned as work items (candidate x variant) and keyed by a run id derived from
(suite content, candidates, device model, parameters). Items that already have a
measurement in the store are skipped; baseline items (``eager``, ``inductor``) whose
*context* (variant content, device model, software versions, timing parameters) was
measured before, by any run, are copied from the store instead of re-measured; the rest go
to an executor (a local pool or Ray), and each result is committed the moment it arrives.
A ``crash`` or ``timeout`` may be transient (a worker killed from outside, a busy host): such
an item is retried up to ``retries`` times, each failed attempt kept in the store, before its
result is final; ``rerun`` sets a run's final results of some statuses aside to measure them
again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from passnet.core.hashing import canonical_json, digest
from passnet.core.results import (
    CandidateSpec,
    Environment,
    Parameters,
    Status,
    VariantResult,
)
from passnet.dataset.suite import Suite, SuiteVariant, load_suite
from passnet.evaluation.candidates import parse_candidate
from passnet.evaluation.compile_stats import merge
from passnet.evaluation.sandbox import spare_workers
from passnet.runner.outliers import OUTLIER_RETRIES, Outliers
from passnet.runner.store import RETRY_STATUSES, Measurement, Store
from passnet.runner.suite import candidate_id, is_baseline

if TYPE_CHECKING:
    from passnet.synth.driver import SynthResult

TIMING_FIELDS = (
    "warmup",
    "trials",
    "rounds",
    "noise_limit",
    "max_reruns",
    "call_path",
    "cpu_threads",
)
"""Parameters that change what a measurement means (part of the baseline cache key)."""


def harness_version() -> str:
    try:
        from importlib.metadata import version

        return version("passnet")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return "0+unknown"


def context_key(content_hash: str, env: Environment, params: Parameters) -> str:
    """What a baseline measurement depends on: the variant's content, the device model,
    the software stack and the timing parameters (never the path, the run or the seed)."""
    return digest(
        canonical_json(
            {
                "variant": content_hash,
                "device": env.device.split(":")[0],
                "device_name": env.device_name,
                "torch": env.torch,
                "triton": env.triton,
                "cuda": env.cuda,
                "driver": env.driver,
                "interpret": env.triton_interpret,
                "timing": {f: getattr(params, f) for f in TIMING_FIELDS}
                | (  # adaptive counts only when used, so fixed-count keys stay as they were
                    {"ci_target": params.ci_target, "max_trials": params.max_trials}
                    if params.ci_target is not None
                    else {}
                ),
                "passnet": harness_version(),
            }
        ),
        n=24,
    )


@dataclass(frozen=True)
class Candidate:
    spec: CandidateSpec  # what the executor evaluates (synth: the task's pass folder)
    candidate_id: str
    content_hash: str
    name: str | None = None  # the label when ``spec`` stands in for another candidate

    @property
    def baseline(self) -> bool:
        return is_baseline(self.spec)

    @property
    def label(self) -> str:
        return self.name or self.spec.label


@dataclass(frozen=True)
class WorkItem:
    """One (candidate, variant) measurement of a run."""

    candidate: Candidate
    variant: SuiteVariant

    @property
    def key(self) -> tuple[str, str]:
        return (self.candidate.candidate_id, self.variant.variant_id)


@dataclass(frozen=True)
class Outcome:
    """What an executor returns for an item: a result and where it was measured, or a
    harness error (not stored: the item stays pending for the next run)."""

    item: WorkItem
    result: VariantResult | None
    environment: Environment | None
    error: str | None = None


class Executor(Protocol):
    name: str

    def environment(self) -> Environment:
        """The environment measurements will run in (for the baseline cache key)."""
        ...

    def run(self, items: list[WorkItem], params: Parameters) -> Iterator[Outcome]:
        """Measure every item, yielding outcomes as they complete (any order)."""
        ...


@dataclass(frozen=True)
class BenchConfig:
    suite: Path | str | None = None
    candidates: tuple[str, ...] = ("eager", "inductor")
    device: str = "cpu"
    parameters: Parameters = field(default_factory=Parameters)
    filters: tuple[str, ...] = ()
    limit: int | None = None
    dtypes: tuple[str, ...] = ()
    run: str | None = None
    use_cache: bool = True
    retries: int = 2  # per item and invocation, for RETRY_STATUSES; not part of the run id
    rerun: tuple[str, ...] = ()  # statuses whose results are set aside and measured again
    synth_dir: Path | str | None = None  # synth candidate's pass cache [store's folder/synth]
    synth_workers: int = 1  # tasks synthesised at once (not part of the run id)


@dataclass
class BenchSummary:
    run_id: str
    planned: int
    skipped: int = 0
    cached: int = 0
    measured: int = 0
    duplicates: int = 0
    retried: int = 0  # failed attempts that were retried (each kept in the store)
    rerun: int = 0  # earlier results set aside to be measured again
    errors: list[str] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    wall_seconds: float = 0.0
    interrupted: bool = False
    phase_seconds: dict[str, float] = field(default_factory=dict)  # summed over measured items
    triton: dict[str, float] = field(default_factory=dict)  # workers' compiles, summed likewise
    cpu_steal: list[float] = field(default_factory=list)  # per measured item that was timed
    timed: int = 0  # measured items with both sides timed
    noisy: int = 0  # of those, items whose wall timing stayed noisy on either side
    remeasured: int = 0  # timed items measured again: they disagreed with the run (outliers)
    # over the whole run's stored results, earlier invocations' included (runner.outliers):
    eager_timed: int = 0  # eager items timed against themselves
    eager_off: list[str] = field(default_factory=list)  # of those, outside 0.9-1.1x
    reference_off: list[str] = field(default_factory=list)  # reference off the variant's others

    @property
    def complete(self) -> bool:
        return self.skipped + self.cached + self.measured >= self.planned


@dataclass
class Plan:
    run_id: str
    suite: Suite
    candidates: list[Candidate]
    items: list[WorkItem]
    environment: Environment
    parameters: Parameters


def resolve_candidates(texts: Iterable[str]) -> list[Candidate]:
    """Parse candidate strings (``eager``, ``inductor[:MODE]``, ``passes:DIR``, ``synth``),
    deduplicated."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for text in texts:
        text = text.strip()
        if not text:
            continue
        spec = parse_candidate(text)
        cid, content = candidate_id(spec)
        if cid not in seen:
            seen.add(cid)
            out.append(Candidate(spec, cid, content))
    if not out:
        raise ValueError("no candidate given; e.g. --candidates eager,inductor,passes:DIR")
    return out


def run_config(suite: Suite, cands: list[Candidate], env: Environment, p: Parameters) -> dict:
    """What identifies a run: resuming needs all of it to match."""
    return {
        "suite": suite.name,
        "tasks": [t.task_id for t in suite.tasks],
        "candidates": [c.candidate_id for c in cands],
        "device": env.device.split(":")[0],
        "device_name": env.device_name,
        "parameters": p.model_dump(mode="json"),
    }


def plan_run(config: BenchConfig, store: Store, env: Environment) -> Plan:
    """Load the suite, register everything in the store and open (or reopen) the run."""
    suite = load_suite(config.suite, config.filters, config.limit, config.dtypes)
    cands = resolve_candidates(config.candidates)
    params = config.parameters
    cfg = run_config(suite, cands, env, params)
    run_id = config.run or f"{suite.name}-{digest(canonical_json(cfg), n=10)}"
    items = [
        WorkItem(c, v) for task in suite.tasks for v in task.variants for c in cands
    ]  # task by task, variant by variant: partial runs cover whole tasks first
    params_id = store.put_parameters(params)
    for c in cands:
        store.put_candidate(c.candidate_id, c.spec, c.content_hash)
    for task in suite.tasks:
        store.put_task(task)
    store.open_run(
        run_id,
        suite=str(suite.path),
        device=env.device.split(":")[0],
        params_id=params_id,
        config=cfg,
        candidates=[c.candidate_id for c in cands],
        items=[(i.candidate.candidate_id, i.variant.variant_id, i.variant.task_id) for i in items],
    )
    return Plan(run_id, suite, cands, items, env, params)


def _measurement(
    plan: Plan, item: WorkItem, result: VariantResult, env_id: str | None, key: str, device: str
) -> Measurement:
    return Measurement(
        run_id=plan.run_id,
        candidate_id=item.candidate.candidate_id,
        variant_id=item.variant.variant_id,
        task_id=item.variant.task_id,
        context_key=key,
        result=result,
        env_id=env_id,
        device=device,
    )


def _serve_from_cache(
    plan: Plan, store: Store, session: int, pending: list[WorkItem], summary: BenchSummary
) -> list[WorkItem]:
    """Copy cached baseline results into the run; return the items still to measure."""
    rest = []
    for item in pending:
        row = None
        if item.candidate.baseline:
            key = context_key(item.variant.content_hash, plan.environment, plan.parameters)
            row = store.cached_baseline(key, item.candidate.candidate_id)
        if row is None:
            rest.append(item)
            continue
        result = VariantResult.model_validate_json(row["result_json"])
        m = _measurement(plan, item, result, row["env_id"], key, row["device"])
        m = replace(m, source="cache", cached_from=row["measurement_id"])
        if store.add(m, session):
            summary.cached += 1
            summary.statuses[result.status.value] = summary.statuses.get(result.status.value, 0) + 1
        else:
            summary.duplicates += 1
    return rest


def check_rerun(statuses: Iterable[str]) -> tuple[str, ...]:
    """Validated ``rerun`` statuses (any result status but ``ok``)."""
    known = [s.value for s in Status if s != Status.OK]
    out = tuple(dict.fromkeys(s.strip() for s in statuses if s.strip()))
    for s in out:
        if s not in known:
            raise ValueError(f"cannot re-measure status {s!r}; known: {', '.join(known)}")
    return out


def _record(store: Store, m: Measurement, session: int, summary: BenchSummary) -> bool:
    """Store a final result and count it; False when the item already had one."""
    if not store.add(m, session):
        summary.duplicates += 1
        return False
    r = m.result
    summary.measured += 1
    summary.statuses[r.status.value] = summary.statuses.get(r.status.value, 0) + 1
    for name, sec in r.phase_seconds.items():
        summary.phase_seconds[name] = summary.phase_seconds.get(name, 0.0) + sec
    merge(summary.triton, r.triton)
    if r.cpu_steal is not None:
        summary.cpu_steal.append(r.cpu_steal)
    if r.reference is not None and r.candidate is not None and r.timing_meaningful:
        summary.timed += 1
        summary.noisy += r.reference.wall.noisy or r.candidate.wall.noisy
    return True


def _resolve_synth(
    plan: Plan,
    store: Store,
    config: BenchConfig,
    pending: list[WorkItem],
    on_synth: Callable[[str, SynthResult], None] | None,
) -> tuple[list[WorkItem], list[tuple[WorkItem, VariantResult]]]:
    """Synthesise (or reuse) the pass of each task with pending ``synth`` items, per synth
    candidate (each keep rule has its own cache)."""
    synth = [c for c in plan.candidates if c.spec.kind == "synth"]
    if not synth or not any(i.candidate.spec.kind == "synth" for i in pending):
        return pending, []
    from passnet.evaluation.candidates.synth import keep_rule
    from passnet.runner.synth_candidate import resolve_synth, synth_cache_dir

    root = Path(config.synth_dir) if config.synth_dir else Path(store.path).parent / "synth"
    tasks = {t.task_id: t for t in plan.suite.tasks}
    skipped: list[tuple[WorkItem, VariantResult]] = []
    for cand in synth:
        keep = keep_rule(cand.spec)
        cache = synth_cache_dir(root.resolve(), cand.content_hash, plan.environment, keep)
        pending, more = resolve_synth(
            pending,
            tasks,
            cache,
            config.device,
            plan.parameters,
            on_synth,
            candidate_id=cand.candidate_id,
            keep=keep,
            workers=config.synth_workers,
        )
        skipped += more
    return pending, skipped


def _resolve_library(
    plan: Plan, pending: list[WorkItem], skipped: list[tuple[WorkItem, VariantResult]]
) -> tuple[list[WorkItem], list[tuple[WorkItem, VariantResult]]]:
    """Each ``library:DIR`` candidate's items on their task's pass folder in DIR
    (:mod:`passnet.runner.library_candidate`); tasks without one join ``skipped``."""
    from passnet.runner.library_candidate import resolve_library

    tasks = {t.task_id: t for t in plan.suite.tasks}
    for cand in (c for c in plan.candidates if c.spec.kind == "library"):
        pending, more = resolve_library(pending, tasks, cand.candidate_id,
                                        Path(str(cand.spec.pass_dir)))  # fmt: skip
        skipped = skipped + more
    return pending, skipped


def bench(
    config: BenchConfig,
    store: Store,
    executor: Executor,
    *,
    on_start: Callable[[Plan, int], None] | None = None,
    on_result: Callable[[WorkItem, VariantResult | None], None] | None = None,
    on_retry: Callable[[WorkItem, VariantResult, int], None] | None = None,
    on_synth: Callable[[str, SynthResult], None] | None = None,
) -> BenchSummary:
    """Run (or continue) a benchmark run; returns what this invocation did. ``synth`` items
    are resolved first, task by task (:mod:`passnet.runner.synth_candidate`)."""
    t0 = time.perf_counter()
    rerun = check_rerun(config.rerun)
    if config.retries < 0:
        raise ValueError(f"--retries must be at least 0, got {config.retries}")
    plan = plan_run(config, store, executor.environment())
    session = store.start_session(plan.run_id, executor.name)
    n_rerun = store.reset_items(plan.run_id, rerun)  # after start_session: one driver only
    done = store.done_items(plan.run_id)
    pending = [i for i in plan.items if i.key not in done]
    summary = BenchSummary(plan.run_id, len(plan.items), skipped=len(plan.items) - len(pending))
    summary.rerun = n_rerun
    store.note_skipped(session, summary.skipped)
    status = "interrupted"
    try:
        if config.use_cache:
            pending = _serve_from_cache(plan, store, session, pending, summary)
        pending, skipped = _resolve_synth(plan, store, config, pending, on_synth)
        pending, skipped = _resolve_library(plan, pending, skipped)
        if on_start:
            on_start(plan, len(pending) + len(skipped))
        env_ids: dict[str, str] = {}
        if skipped:  # no pass to run: stored as they are, in the driver's environment
            env = plan.environment
            env_ids[env.model_dump_json()] = env_id = store.put_environment(env)
            for item, r in skipped:
                key = context_key(item.variant.content_hash, env, plan.parameters)
                _record(store, _measurement(plan, item, r, env_id, key, env.device), session,
                        summary)  # fmt: skip
                if on_result:
                    on_result(item, r)
        tries: dict[tuple[str, str], int] = {}
        odd: dict[tuple[str, str], int] = {}  # items measured again as outliers
        outliers = Outliers.of_run(store, plan.run_id)  # the run's references so far
        # spare workers: each local worker process starts while the previous one measures
        with spare_workers():
            while pending:  # a round of items, then one of the items to retry
                again: list[WorkItem] = []
                for out in executor.run(pending, plan.parameters):
                    if out.result is None or out.environment is None:
                        summary.errors.append(f"{out.item.variant.variant.graph}: {out.error}")
                        if on_result:
                            on_result(out.item, None)
                        continue
                    env = out.environment
                    env_text = env.model_dump_json()
                    if env_text not in env_ids:
                        env_ids[env_text] = store.put_environment(env)
                    key = context_key(out.item.variant.content_hash, env, plan.parameters)
                    r = out.result
                    m = _measurement(plan, out.item, r, env_ids[env_text], key, env.device)
                    n = tries.get(out.item.key, 0)
                    variant, kind = out.item.variant.variant_id, out.item.candidate.spec.kind
                    if (
                        outliers.why(variant, kind, r)
                        and odd.get(out.item.key, 0) < OUTLIER_RETRIES
                    ):  # disturbed, not slow: once more
                        odd[out.item.key] = odd.get(out.item.key, 0) + 1
                        store.add_attempt(m, session)
                        summary.remeasured += 1
                        again.append(out.item)
                        continue
                    if r.status.value in RETRY_STATUSES and n < config.retries:
                        tries[out.item.key] = n + 1
                        store.add_attempt(m, session)
                        summary.retried += 1
                        again.append(out.item)
                        if on_retry:
                            on_retry(out.item, r, n + 1)
                        continue
                    if _record(store, m, session, summary):
                        outliers.keep(variant, kind, r)
                    if on_result:
                        on_result(out.item, r)
                pending = again
        status = "complete" if summary.complete else "partial"
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        summary.wall_seconds = time.perf_counter() - t0
        store.finish_session(session, status)
    run = Outliers.of_run(store, plan.run_id)  # the closing lines: the whole run, every call
    summary.eager_timed, summary.eager_off = run.eager_timed, run.eager_off
    summary.reference_off = run.reference_off
    return summary
