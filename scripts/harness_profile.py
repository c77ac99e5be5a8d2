"""Where the harness spends a variant's evaluation: one variant evaluated in this process (as a
worker would, without the sandbox) under ``cProfile``, its phase seconds, the harness's
functions by cumulative time and the callees of the checked calls and the held outputs' check.

The timing lock is held through ``timing``, ``timing_checks`` and ``timing_settle``: this says
which harness functions those phases are made of on the device it runs on. ``--timers``
times the parts of the checked calls and the held outputs' check with plain clocks instead
(each part's calls, total and mean; a part's time includes the parts it calls): cProfile
charges every builtin call it sees, which inflates loops over many small calls (the harness
watch's several thousand entries) several times over::

    python scripts/harness_profile.py \\
        examples/suite/fusible_add_layer_norm_1f059508/graphs/float32/6_roberta_b2_0924141a \\
        --pass-dir examples/synth_passes/fusible_add_layer_norm_1f059508/pass --device cuda
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from pathlib import Path

HARNESS = r"passnet/(integrity|evaluation|scores|core)/"
FOCUS = (r"timed_phase.py:\d+\(timed_check\)", r"timed_phase.py:\d+\(check_held\)",
         r"checks.py:\d+\(call\)", r"runtime.py:\d+\(after_call\)")  # fmt: skip


def main() -> None:
    from passnet.core.results import CandidateSpec, Parameters
    from passnet.evaluation.phases import VariantRun
    from passnet.evaluation.request import WorkerRequest
    from passnet.graph.sample import load_sample

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph", type=Path, help="a variant's folder (model.py, meta)")
    ap.add_argument("--pass-dir", type=Path, required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--top", type=int, default=40, help="harness functions listed")
    ap.add_argument("--out", type=Path, help="also write the raw profile (pstats) here")
    ap.add_argument(
        "--timers",
        action="store_true",
        help="plain clocks around the checked calls' parts, no profiler",
    )
    args = ap.parse_args()
    sample = load_sample(args.graph)
    spec = CandidateSpec(kind="pass", pass_dir=str(args.pass_dir.resolve()))
    params = Parameters(trials=args.trials)
    req = WorkerRequest(graph=args.graph.name, path=str(args.graph.resolve()),
                        dtype=sample.dtype or "float32", device=args.device, seed=1,
                        recheck_seed=2, candidate=spec.model_dump(),
                        parameters=params.model_dump())  # fmt: skip
    run = VariantRun(req)
    if args.timers:
        timed(run)
        return
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    result = run.run()
    prof.disable()
    wall = time.perf_counter() - t0
    phases = ", ".join(f"{k} {v:.3f}" for k, v in (result.phase_seconds or {}).items() if v)
    print(f"{result.status.value} in {wall:.2f} s; phases (s): {phases}")
    if args.out:
        prof.dump_stats(str(args.out))
    text = io.StringIO()
    stats = pstats.Stats(prof, stream=text).sort_stats("cumulative")
    stats.print_stats(HARNESS, args.top)
    for focus in FOCUS:
        stats.print_callees(focus)
    print("\n".join(line for line in text.getvalue().splitlines() if line.strip()))


# (module, attribute) of the parts --timers clocks: a checked call and what it is made of
PARTS = (
    ("passnet.evaluation.timed_phase", "TimingPhase.timed_check"),
    ("passnet.integrity.checks", "CandidateChecker.call"),
    ("passnet.integrity.checks", "CandidateChecker.judge"),
    ("passnet.integrity.checks", "CandidateChecker.judge_known"),
    ("passnet.integrity.checks", "CandidateChecker.late_writes"),
    ("passnet.integrity.checks", "changed"),
    ("passnet.integrity.checks", "clone_tree"),
    ("passnet.integrity.runtime", "Runtime.probe"),
    ("passnet.integrity.runtime", "Runtime.after_call"),
    ("passnet.integrity.runtime", "Runtime.verify"),
    ("passnet.integrity.runtime", "Runtime.nan_fill_device"),
    ("passnet.integrity.harness_watch", "HarnessWatch.changed"),
    ("passnet.evaluation.timed_phase", "TimingPhase.check_held"),
    ("passnet.integrity.timed_values", "matches_many"),
)


def timed(run: object) -> None:
    """Run the variant with every part of ``PARTS`` wrapped in a wall clock; print the table."""
    import functools
    import importlib

    totals: dict[str, list[float]] = {}

    def clock(name: str, fn: object) -> object:
        @functools.wraps(fn)  # type: ignore[arg-type]
        def wrapper(*a: object, **k: object) -> object:
            t = time.perf_counter()
            try:
                return fn(*a, **k)  # type: ignore[operator]
            finally:
                entry = totals.setdefault(name, [0, 0.0])
                entry[0] += 1
                entry[1] += time.perf_counter() - t

        return wrapper

    patched = []
    for module, attr in PARTS:
        mod = importlib.import_module(module)
        owner, name = (getattr(mod, attr.split(".")[0]), attr.split(".")[1]) if "." in attr \
            else (mod, attr)  # fmt: skip
        original = getattr(owner, name)
        patched.append((owner, name, original))
        setattr(owner, name, clock(attr, original))
        for other in ("passnet.evaluation.timed_phase", "passnet.integrity.checks"):
            where = importlib.import_module(other)  # names imported into other modules
            if "." not in attr and getattr(where, attr, None) is original:
                patched.append((where, attr, original))
                setattr(where, attr, clock(attr, original))
    try:
        t0 = time.perf_counter()
        result = run.run()  # type: ignore[attr-defined]
        wall = time.perf_counter() - t0
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)
    phases = ", ".join(f"{k} {v:.3f}" for k, v in (result.phase_seconds or {}).items() if v)
    print(f"{result.status.value} in {wall:.2f} s; phases (s): {phases}")
    print(f"{'part':42s} {'calls':>6s} {'total ms':>10s} {'mean us':>10s}")
    for _, attr in PARTS:
        calls, seconds = totals.get(attr, [0, 0.0])
        mean = seconds / calls * 1e6 if calls else 0.0
        print(f"{attr:42s} {calls:6d} {seconds * 1e3:10.2f} {mean:10.1f}")


if __name__ == "__main__":
    main()
