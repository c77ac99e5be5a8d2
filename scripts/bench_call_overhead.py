"""Per-call overhead of each call path, measured side by side in one process.

Prints a JSON object of medians (µs, synchronized wall clock) for: an empty device sync,
one eager op, the FX GraphModule path (passes' direct path), a Triton launch from Python,
Dynamo with a pass-through backend (the upstream pass path), and Inductor (direct and
through torch.compile). Usage: python scripts/bench_call_overhead.py [--device cuda]
"""

from __future__ import annotations

import argparse
import json

import torch

from passnet.evaluation.timing import Side, measure


class Relu(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor]:
        return (torch.relu(x),)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--trials", type=int, default=1000)
    args = ap.parse_args()
    dev = torch.device(args.device)
    x = torch.randn(12, 256, device=dev)
    gm = torch.fx.symbolic_trace(Relu())
    from torch._inductor.compile_fx import compile_fx

    inductor_direct = compile_fx(torch.fx.symbolic_trace(Relu()), [x])
    dynamo_passthrough = torch.compile(Relu(), backend="eager", fullgraph=True, dynamic=False)
    dynamo_inductor = torch.compile(Relu(), fullgraph=True, dynamic=False)
    sides = [
        Side("empty_sync", lambda: None, ()),
        Side("eager_relu", torch.relu, (x,)),
        Side("fx_graphmodule_relu", gm.forward, (x,)),
        Side("dynamo_passthrough_relu", dynamo_passthrough, (x,)),
        Side("inductor_direct_relu", inductor_direct, (x,)),
        Side("inductor_torch_compile_relu", dynamo_inductor, (x,)),
    ]
    if dev.type == "cuda":
        import triton
        import triton.language as tl

        @triton.jit
        def _relu(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(o_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

        out = torch.empty_like(x)

        def launch() -> None:
            _relu[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)

        sides.append(Side("triton_launch_relu", launch, ()))
    res = measure(sides, dev, warmup=50, trials=args.trials, rounds=4, max_reruns=1)
    name = torch.cuda.get_device_name() if dev.type == "cuda" else "cpu"
    print(json.dumps({
        "device": name,
        "torch": torch.__version__,
        "median_us": {k: round(v.wall.median_us, 2) for k, v in res.items()},
        "iqr_us": {k: round(v.wall.iqr_us, 2) for k, v in res.items()},
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
