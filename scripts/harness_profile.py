"""Where the harness spends a variant's evaluation: one variant evaluated in this process (as a
worker would, without the sandbox) under ``cProfile``, its phase seconds, the harness's
functions by cumulative time and the callees of the checked calls and the held outputs' check.

The timing lock is held through ``timing``, ``timing_checks`` and ``timing_settle``: this says
which harness functions those phases are made of on the device it runs on::

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
    args = ap.parse_args()
    sample = load_sample(args.graph)
    spec = CandidateSpec(kind="pass", pass_dir=str(args.pass_dir.resolve()))
    params = Parameters(trials=args.trials)
    req = WorkerRequest(graph=args.graph.name, path=str(args.graph.resolve()),
                        dtype=sample.dtype or "float32", device=args.device, seed=1,
                        recheck_seed=2, candidate=spec.model_dump(),
                        parameters=params.model_dump())  # fmt: skip
    run = VariantRun(req)
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


if __name__ == "__main__":
    main()
