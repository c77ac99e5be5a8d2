"""Where a candidate's timed calls spend their time: one task evaluated under several harness
settings side by side, each variant's reference and candidate medians (wall and, on a GPU,
CUDA-event time) printed per setting.

The integrity layers add work around every timed call; this shows which of them, if any, a
candidate pays inside the timed window. Settings: ``default`` (every layer), ``no-audit``
(``Parameters(audit_hook=False)``), ``no-runtime`` (runtime checks and the audit hook off),
``no-checks`` (no secret checked calls among the timed ones, ``Parameters(sampled_checks=0)``;
the held outputs' comparison and the launch count stay on); each at every ``--prepare-ahead``
asked for. Run from a harness's checkout (or with another
revision's ``passnet`` first on ``sys.path``, where a setting it lacks is skipped)::

    python scripts/harness_probe.py examples/suite/fusible_add_layer_norm_1f059508 \\
        --pass-dir examples/synth_passes/fusible_add_layer_norm_1f059508/pass --device cuda
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

SETTINGS = {
    "default": {},
    "no-audit": {"audit_hook": False},
    "no-runtime": {"runtime_checks": False, "audit_hook": False},
    "no-checks": {"sampled_checks": 0},
}


def _median(side: object, method: str) -> float | None:
    stats = getattr(side, method, None)
    return getattr(stats, "median_us", None)


def main() -> None:
    from passnet.core.results import CandidateSpec, Parameters
    from passnet.evaluation.evaluator import evaluate_task

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("task", type=Path)
    ap.add_argument("--pass-dir", type=Path, required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--settings", default=",".join(SETTINGS), help="comma-separated")
    ap.add_argument("--prepare-ahead", default="1", help="comma-separated worker counts")
    ap.add_argument("--label", default="", help="a name for this harness in the output")
    args = ap.parse_args()
    spec = CandidateSpec(kind="pass", pass_dir=str(args.pass_dir.resolve()))
    for name in args.settings.split(","):
        unknown = [k for k in SETTINGS[name] if k not in Parameters.model_fields]
        if unknown:  # an older harness without the layer (pydantic would drop the field)
            print(f"{args.label} {name}: skipped (no {', '.join(unknown)} in this harness)")
            continue
        params = Parameters(**SETTINGS[name])
        for ahead in (int(n) for n in args.prepare_ahead.split(",")):
            t0 = time.perf_counter()
            r = evaluate_task(args.task.resolve(), spec, device=args.device, parameters=params,
                              prepare_ahead=ahead)  # fmt: skip
            rows = [(v.graph, v.status.value, _median(v.reference, "wall"),
                     _median(v.candidate, "wall"), _median(v.reference, "cuda_event"),
                     _median(v.candidate, "cuda_event")) for v in r.variants
                    if v.reference and v.candidate]  # fmt: skip
            ratios = [ref / cand for _, _, ref, cand, _, _ in rows if ref and cand]
            g = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
            print(f"{args.label} {name} ahead={ahead}: {time.perf_counter() - t0:.1f} s, "
                  f"G-mean speedup (wall) {g:.3f}", flush=True)  # fmt: skip
            for graph, status, rw, cw, re_, ce in rows:
                ev = f", event {re_:.1f} / {ce:.1f}" if re_ and ce else ""
                print(f"  {graph}: {status}, wall {rw:.1f} / {cw:.1f} us{ev}")


if __name__ == "__main__":
    main()
