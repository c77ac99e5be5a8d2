"""Wall time of evaluating one pass on one task, repeated in one process (issue 14's P2).

An agent or an RL loop calls the evaluator many times from one process: the first call pays
for starting the fork server's zygote (torch's import, the launch path's warm-up), every later
call only for its workers. This prints the wall time of each of ``--repeat`` evaluations of the
same pass, with the workers' phase seconds summed, so both figures can be quoted.
``--think S`` starts the pass zygote in the background first and waits S seconds, as the
agent's evaluator does (``DevicePool`` prewarms while the model writes its first turn).
Usage: python scripts/bench_eval_latency.py TASK --pass-dir DIR [--device cuda]
                                            [--prepare-ahead N] [--repeat 3] [--think S]
                                            [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

T0 = time.perf_counter()
import passnet  # noqa: E402
from passnet.core.results import CandidateSpec  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("task", type=Path)
    ap.add_argument("--pass-dir", type=Path, required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--prepare-ahead", type=int, default=0, help="0: one worker per variant")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="prewarm the zygote, then wait this long before the first call",
    )
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    task = passnet.load_task(args.task)
    ahead = args.prepare_ahead or len(task.variants)
    spec = CandidateSpec(kind="pass", pass_dir=str(args.pass_dir))
    if args.think > 0:
        from passnet.evaluation.devices import prewarm_pass_zygotes

        prewarm_pass_zygotes([args.device])
        time.sleep(args.think)
    rows = []
    for k in range(args.repeat):
        t = time.perf_counter()
        result = passnet.evaluate(task, spec, device=args.device, prepare_ahead=ahead)
        wall = time.perf_counter() - t
        phases: Counter[str] = Counter()
        for v in result.variants:
            phases.update(v.phase_seconds)
        statuses = Counter(v.status.value for v in result.variants)
        rows.append({"call": k + 1, "wall_s": round(wall, 3), "AS": result.scores.AS,
                     "statuses": dict(statuses),
                     "worker_phase_s": {p: round(s, 2) for p, s in phases.items()}})  # fmt: skip
        print(
            f"call {k + 1}: {wall:.2f} s wall, AS {result.scores.AS:.3f}, {dict(statuses)}, "
            f"worker seconds " + " ".join(f"{p} {s:.1f}" for p, s in phases.items())
        )
    report = {"task": task.name, "variants": len(task.variants), "prepare_ahead": ahead,
              "device": args.device, "think_s": args.think,
              "import_s": round(time.perf_counter() - T0 - args.think - sum(
                  r["wall_s"] for r in rows), 3), "calls": rows}  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
