"""Where a pass's time goes on each variant of a task, eager beside it: host and device.

For each variant (or those matching ``--graph``), in one process, eager (the sample's module
through ``to_fx``, as the harness times it) and the pass-rewritten graph, side by side:

- ``sync_us``: median and IQR of ``sync; call; sync`` (the harness's ``measure``, interleaved);
- ``host_issue_us``: host time per call issued back to back, one sync per ``--issue`` calls
  (what the calls cost the host when the device is not the bottleneck);
- ``device_us`` and ``kernels``: device time per call summed over its kernels, and kernels per
  call, from ``torch.profiler`` (CUDA only);
- the kernels by name with their device time per call.

So a pass that loses can be told apart: more host time (wrapper, allocation, launch) or more
device time (the kernel itself). On CPU the numbers mean nothing for speed (Triton's
interpreter) but the script runs, so it is tested there.
Usage: python scripts/profile_pass.py TASK --pass-dir DIR [--device cuda] [--graph GLOB]
                                      [--json OUT]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import torch

from passnet.dataset.task import load_task
from passnet.evaluation.timing import Side, measure
from passnet.graph.sample import load_module, load_sample, materialize
from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def host_issue_us(fn: Any, inputs: list, dev: torch.device, calls: int) -> float:
    """Host microseconds per call, ``calls`` calls back to back, one sync at the end."""
    _sync(dev)
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(*inputs)
    t1 = time.perf_counter()
    _sync(dev)
    return (t1 - t0) / calls * 1e6


def device_profile(fn: Any, inputs: list, dev: torch.device, calls: int) -> dict[str, Any]:
    """Device time and kernels per call from ``torch.profiler`` (CUDA), else empty."""
    if dev.type != "cuda":
        return {}
    from torch.profiler import ProfilerActivity, profile

    _sync(dev)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn(*inputs)
        _sync(dev)
    names: Counter[str] = Counter()
    times: Counter[str] = Counter()
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            names[e.name] += 1
            times[e.name] += (
                e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
            )
    return {
        "device_us": round(sum(times.values()) / calls, 3),
        "kernels": round(sum(names.values()) / calls, 2),
        "by_kernel_us": {k[:80]: round(v / calls, 3) for k, v in times.most_common(8)},
    }


def profile_variant(
    graph: str, path: Path, passes: list, dev: torch.device, args: argparse.Namespace
) -> dict:
    sample = load_sample(path)
    inputs = materialize(sample, device=str(dev), seed=0)
    eager = to_fx(load_module(sample, dev))
    rewritten = to_fx(load_module(sample, dev))
    matches = apply_passes(rewritten, passes).total
    out: dict[str, Any] = {"graph": graph, "matches": matches}
    if matches == 0:
        return out
    sides = [Side("eager", eager.forward, inputs), Side("pass", rewritten.forward, inputs)]
    with torch.no_grad():
        timed = measure(sides, dev, warmup=args.warmup, trials=args.trials, rounds=args.rounds)
        for name, fn in (("eager", eager.forward), ("pass", rewritten.forward)):
            wall = timed[name].wall
            issue = [host_issue_us(fn, inputs, dev, args.issue) for _ in range(3)]
            out[name] = {
                "sync_us": round(wall.median_us, 3),
                "sync_iqr_us": round(wall.iqr_us, 3),
                "host_issue_us": round(statistics.median(issue), 3),
                **device_profile(fn, inputs, dev, args.profile_calls),
            }
    out["speedup"] = round(out["eager"]["sync_us"] / out["pass"]["sync_us"], 4)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", type=Path)
    parser.add_argument("--pass-dir", type=Path, required=True)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--graph", default="*", help="only variants whose graph matches")
    parser.add_argument("--warmup", type=int, default=25)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--issue", type=int, default=2000, help="calls per host-issue sample")
    parser.add_argument("--profile-calls", type=int, default=200)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    dev = torch.device(args.device)
    task = load_task(args.task)
    passes = load_pass_dir(args.pass_dir)
    rows = [
        profile_variant(v.graph, v.path, passes, dev, args)
        for v in task.variants
        if fnmatch.fnmatch(v.graph, args.graph) or fnmatch.fnmatch(Path(v.graph).name, args.graph)
    ]
    report = {"task": task.name, "pass_dir": str(args.pass_dir), "device": str(dev),
              "device_name": torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu",
              "torch": torch.__version__, "variants": rows}  # fmt: skip
    text = json.dumps(report, indent=1)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
