"""Where a worker's phases go: each variant evaluated as a worker would (``run_variant``),
under cProfile; its phase seconds and the functions that took the time.

Like the fork server, this process preloads what a zygote of the candidate's kind preloads
(``worker.preload``) and forks one child per variant, so each variant pays what a fresh
worker pays (CUDA context, first kernels, imports inside a phase) and a phase that grew (an
eager baseline's correctness phase, a pass's timing phase under the device lock) can be
traced to a call. No sandbox and no device lock: for diagnosis, never for reported timings.
Usage: python scripts/profile_worker.py TASK [--candidate eager|inductor|pass --pass-dir DIR]
                                        [--device cuda] [--variants 3] [--top 30] [--json OUT]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

from passnet.core.results import CandidateSpec, Parameters
from passnet.dataset.task import load_task
from passnet.evaluation.request import WorkerRequest
from passnet.evaluation.variant import run_variant
from passnet.evaluation.worker import preload


def profile_variant(req: WorkerRequest, top: int) -> dict:
    """One variant under cProfile: wall, status, phase seconds and the top functions."""
    before = set(sys.modules)
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    try:
        result = run_variant(req)
    finally:
        prof.disable()
    wall = time.perf_counter() - start
    out = result.model_dump(mode="json")
    new = sorted(set(sys.modules) - before)
    roots = sorted({m.split(".")[0] for m in new})
    text = io.StringIO()
    stats = pstats.Stats(prof, stream=text).sort_stats("cumulative")
    stats.print_stats(top)
    rows = text.getvalue().split("\n")
    start_row = next((i for i, r in enumerate(rows) if r.strip().startswith("ncalls")), 0)
    return {
        "graph": req.graph,
        "status": out["status"],
        "error": out.get("error"),
        "wall_s": round(wall, 4),
        "phase_seconds": {k: round(v, 4) for k, v in out["phase_seconds"].items()},
        "imported": {"modules": len(new), "packages": roots},
        "profile": [r for r in rows[start_row:] if r.strip()],
    }


def in_child(req: WorkerRequest, top: int) -> dict:
    """``profile_variant`` in a forked child (this process never touches the device)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: profile, send the result, leave without cleanup
        os.close(read)
        try:
            data = json.dumps(profile_variant(req, top)).encode()
        except BaseException as exc:  # noqa: BLE001 - reported by the parent
            data = json.dumps(
                {
                    "graph": req.graph,
                    "status": "crash",
                    "error": repr(exc),
                    "wall_s": 0.0,
                    "phase_seconds": {},
                    "profile": [],
                }
            ).encode()
        with os.fdopen(write, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("task")
    ap.add_argument("--candidate", default="eager", choices=["eager", "inductor", "pass"])
    ap.add_argument("--pass-dir")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--variants", type=int, default=3)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    if (args.candidate == "pass") != bool(args.pass_dir):
        ap.error("--pass-dir goes with --candidate pass, and only with it")
    if args.device.startswith("cpu"):  # as a worker's environment has it (isolation.worker_env)
        os.environ["TRITON_INTERPRET"] = "1"
    task = load_task(args.task)
    preload(inductor=args.candidate == "inductor",
            launch=args.candidate == "pass" and args.device.startswith("cuda"))  # fmt: skip
    spec = CandidateSpec(
        kind=args.candidate,
        pass_dir=str(Path(args.pass_dir).resolve()) if args.pass_dir else None,
    )
    results = []
    for variant in task.variants[: args.variants]:
        req = WorkerRequest(
            graph=variant.graph, path=str(variant.path), dtype=variant.dtype,
            device=args.device, seed=0, recheck_seed=1, candidate=spec,
            parameters=Parameters(),
        )  # fmt: skip
        r = in_child(req, args.top)
        results.append(r)
        print(f"{r['graph']}: {r['status']} in {r['wall_s']:.3f} s {r['phase_seconds']}")
        if r.get("imported", {}).get("modules"):
            print(
                f"  imported during the variant: {r['imported']['modules']} modules of "
                f"{', '.join(r['imported']['packages'])}"
            )
        if r["error"]:
            print(f"  {r['error'][:300]}")
        print("\n".join(r["profile"]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"task": str(task.path), "variants": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
