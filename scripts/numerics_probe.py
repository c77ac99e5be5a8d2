"""How far a pass and eager each are from eager's own float32 computation, per variant.

The harness compares a pass with eager in the variant's dtype (SPEC section 5). On half
precision, eager's own rounding after a norm or a reduction is chaotic
(docs/results/h200-2026-12-04e.md): a pass can miss t = -5 against eager while being as close
to the exact result as eager is. For each variant (or those matching ``--graph``) this prints three tightest passing
levels, on the same seed-0 inputs:

- ``pass_vs_eager``: what the harness scores;
- ``eager_vs_fp32``: eager in the variant's dtype against the same graph run in float32 on
  upcast inputs, rounded to the dtype (eager's own error; the issue's "wherever eager's own
  float32 reference allows");
- ``pass_vs_fp32``: the pass against that reference.

A pass with ``pass_vs_fp32`` at least as tight as ``eager_vs_fp32`` is as accurate as eager;
a ``pass_vs_eager`` looser than both says the two round differently, not that the pass is
wrong. Where the pass misses t = -5 against eager, ``trace`` follows the element that misses
by most through the graph: every node whose result has the output's shape, its value there in
eager (the variant's dtype) and in the float32 run, beside the pass's output, so a rounding
that differs can be located. On CPU the pass runs in Triton's interpreter: the levels are real, timings are not taken.
Usage: python scripts/numerics_probe.py TASK --pass-dir DIR [--device cuda] [--graph GLOB]
                                        [--json OUT]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
from pathlib import Path
from typing import Any

import torch

from passnet.dataset.task import load_task
from passnet.graph.sample import load_module, load_sample, materialize
from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.scores.compare import compare_outputs, worst_location


def _tightest(candidate: Any, reference: Any) -> tuple[int | None, str]:
    try:
        cmp = compare_outputs(candidate, reference)
    except Exception as exc:  # noqa: BLE001 - a structural mismatch is a result here
        return None, f"{type(exc).__name__}: {exc}"[:200]
    return cmp.tightest_passing_t, (cmp.detail or "")[:200]


def _cast_like(value: Any, like: Any) -> Any:
    """``value``'s tensors in the dtypes of ``like``'s (the float32 reference rounded once)."""
    if isinstance(value, torch.Tensor):
        return value.to(like.dtype) if like.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_like(v, w) for v, w in zip(value, like, strict=True))
    return value


def _node_values(gm: torch.fx.GraphModule, inputs: list[Any], shape: torch.Size,
                 k: int) -> dict[str, float]:  # fmt: skip
    """Each node's value at flat index ``k``, for the nodes whose result has ``shape``."""
    seen: dict[str, float] = {}

    class _Tap(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            out = super().run_node(n)
            if isinstance(out, torch.Tensor) and out.shape == shape and out.is_floating_point():
                seen[f"{n.op}:{n.name}"] = float(out.detach().flatten()[k])
            return out

    _Tap(gm).run(*inputs)
    return seen


def trace_worst(sample: Any, inputs: list[Any], up: list[Any], passed: Any, eager: Any,
                device: str, rewritten: torch.fx.GraphModule) -> dict[str, Any] | None:  # fmt: skip
    """The worst element at t = -5 (over the outputs) through eager's graph, the rewritten
    graph (the pass's; its unreplaced nodes keep their names) and the float32 graph."""
    worst = worst_location(list(zip(passed, eager, strict=False)), -5)
    if worst is None:
        return None
    i, k = worst
    e0 = eager[i]
    where = [int(x) for x in torch.unravel_index(torch.tensor(k), e0.shape)]
    gm = to_fx(load_module(sample, device))
    low = _node_values(gm, inputs, e0.shape, k)
    high = _node_values(gm, up, e0.shape, k)
    mid = _node_values(rewritten, inputs, e0.shape, k)
    return {"output": i, "index": where, "pass": float(passed[i].flatten()[k]),
            "strides": {"eager": list(e0.stride()), "pass": list(passed[i].stride())},
            "nodes": {n: {"eager": v, "pass_graph": mid.get(n), "fp32": high.get(n)}
                      for n, v in low.items()}}  # fmt: skip


def probe_variant(path: Path, pass_dir: Path, device: str) -> dict[str, Any]:
    sample = load_sample(path)
    inputs = materialize(sample, device=device, seed=0)
    with torch.no_grad():
        eager = load_module(sample, device)(*inputs)
        gm = to_fx(load_module(sample, device))
        matches = apply_passes(gm, load_pass_dir(pass_dir)).total
        passed = gm(*inputs)
        up = [t.float() if isinstance(t, torch.Tensor) and t.is_floating_point() else t
              for t in inputs]  # fmt: skip
        fp32 = _cast_like(load_module(sample, device)(*up), eager)
    row: dict[str, Any] = {"graph": str(path), "matches": matches}
    for name, (a, b) in {"pass_vs_eager": (passed, eager), "eager_vs_fp32": (eager, fp32),
                         "pass_vs_fp32": (passed, fp32)}.items():  # fmt: skip
        row[name], row[name + "_detail"] = _tightest(a, b)
    if isinstance(passed, (list, tuple)) and isinstance(eager, (list, tuple)):
        with torch.no_grad():
            row["trace"] = trace_worst(sample, inputs, up, passed, eager, device, gm)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("task", type=Path)
    ap.add_argument("--pass-dir", type=Path, required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--graph", default="*", help="glob over the variants' graph paths")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    task = load_task(args.task)
    rows = []
    for v in task.variants:
        if not fnmatch.fnmatch(v.graph, args.graph):
            continue
        row = probe_variant(v.path, args.pass_dir, args.device)
        rows.append(row)
        print(f"{v.graph}: pass vs eager t={row['pass_vs_eager']}, eager vs fp32 "
              f"t={row['eager_vs_fp32']}, pass vs fp32 t={row['pass_vs_fp32']}", flush=True)  # fmt: skip
        if row.get("trace"):
            tr = row["trace"]
            print(f"  worst: output {tr['output']} at {tr['index']}: pass {tr['pass']:.6g}; "
                  + "; ".join(f"{n} {v['eager']:.6g} (pass graph {v['pass_graph']}, fp32 "
                              f"{v['fp32']:.6g})" for n, v in tr["nodes"].items()
                              if v["fp32"] is not None), flush=True)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"task": str(args.task), "pass_dir": str(args.pass_dir),
                                         "device": args.device, "variants": rows}, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
