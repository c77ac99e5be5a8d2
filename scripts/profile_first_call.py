"""Where the first call of a pass goes, in a fresh process: cProfile's top functions.

The harness records a ``first_call`` phase per evaluation (the candidate's first call on the
device); this script repeats that call outside the harness, with each step before it timed
(imports, CUDA initialisation, loading the pass, matching), and prints the functions that the
first call spent its time in, so a fixed cost per worker can be found and moved out of it.
Usage: python scripts/profile_first_call.py TASK --pass-dir DIR [--device cuda] [--top 25]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

T0 = time.perf_counter()
import torch  # noqa: E402

from passnet.dataset.task import load_task  # noqa: E402
from passnet.graph.sample import load_module, load_sample, materialize  # noqa: E402
from passnet.passes.loader import load_pass_dir  # noqa: E402
from passnet.passes.matcher import apply_passes, to_fx  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("task", type=Path)
    ap.add_argument("--pass-dir", type=Path, required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    steps = {"imports": time.perf_counter() - T0}

    def step(name: str, t: float) -> float:
        now = time.perf_counter()
        steps[name] = now - t
        return now

    t = time.perf_counter()
    dev = torch.device(args.device)
    if dev.type == "cuda":
        torch.cuda.init()
        torch.empty(1, device=dev)
    t = step("device init", t)
    task = load_task(args.task)
    variant = task.variants[0]
    sample = load_sample(variant.path)
    inputs = materialize(sample, device=str(dev), seed=0)
    gm = to_fx(load_module(sample, dev))
    t = step("sample", t)
    matches = apply_passes(gm, load_pass_dir(args.pass_dir)).total
    t = step("load and match", t)
    prof = cProfile.Profile()
    prof.enable()
    with torch.no_grad():
        gm(*inputs)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    prof.disable()
    t = step("first call", t)
    with torch.no_grad():
        gm(*inputs)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    step("second call", t)
    print(f"{task.name} ({variant.graph}), {matches} matches")
    print("  ".join(f"{k} {v:.3f} s" for k, v in steps.items()))
    pstats.Stats(prof).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
