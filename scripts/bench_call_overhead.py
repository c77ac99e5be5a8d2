"""Per-call cost of each way of running a small op, side by side in one process, interleaved.

Prints a JSON object of medians and IQRs (µs per synchronised call, the harness's own
``measure``) for: an empty device sync; one and two eager ops; the FX GraphModule path passes
are timed through; Dynamo and Inductor; one Triton kernel launched with ``kernel[grid]`` and
through PassNet's cached launcher (``passnet.passes.launch``); the bundled add + LayerNorm
replacement against eager add + LayerNorm; and, on CUDA, CUDA-graph replay of each.
``host_issue_us``: host time per call of the launching rows when issued back to back (one
sync per 2000 calls), what a launch costs the host without the sync's noise.
Usage: python scripts/bench_call_overhead.py [--device cuda] [--trials 1000]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import statistics
import time
from pathlib import Path

import torch

from passnet.evaluation.timing import Side, measure

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER: dict[str, str] = {}  # which compiled launcher the cached path ended up with


class Relu(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor]:
        return (torch.relu(x),)


def _load_bundled_pass():  # noqa: ANN202 - a module
    path = ROOT / "examples" / "passes" / "add_layer_norm" / "FuseAddLayerNorm.py"
    spec = importlib.util.spec_from_file_location("bundled_add_layer_norm", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _graphed(fn, args):  # noqa: ANN001, ANN202 - a callable
    """``fn(*args)`` captured once; the returned callable replays it."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn(*args)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn(*args)
    return graph.replay


def _task_graphs(dev: torch.device):  # noqa: ANN202
    """The example task's 8x128 float32 variant: model.py as written, and its FX graph
    rewritten by the bundled pass (the callable ``passnet eval`` times for the candidate)."""
    from passnet.graph.sample import load_module, load_sample, materialize
    from passnet.passes.loader import load_pass_dir
    from passnet.passes.matcher import apply_passes, to_fx

    sample = load_sample(ROOT / "examples/tasks/bert_add_layer_norm/graphs/float32/3_cut_8x128")
    gm = to_fx(load_module(sample, dev))
    apply_passes(gm, load_pass_dir(ROOT / "examples" / "passes" / "add_layer_norm"))
    return load_module(sample, dev).forward, gm.forward, materialize(sample, str(dev), 0)


def _triton_sides(dev: torch.device, x: torch.Tensor) -> list[Side]:
    import triton
    import triton.language as tl

    from passnet.passes import launch, native_launch
    from passnet.passes.launch import cached

    @triton.jit
    def _relu(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(o_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

    fast = cached(_relu)
    out = torch.empty_like(x)
    grid = (triton.cdiv(x.numel(), 1024),)

    def plain(x: torch.Tensor) -> None:
        _relu[grid](x, out, x.numel(), BLOCK=1024)

    def launcher(x: torch.Tensor) -> None:
        fast[grid](x, out, x.numel(), BLOCK=1024)

    def launcher_alloc(x: torch.Tensor) -> torch.Tensor:
        o = torch.empty_like(x)
        fast[grid](x, o, x.numel(), BLOCK=1024)
        return o

    plain(x)
    launcher(x)
    torch.testing.assert_close(launcher_alloc(x), torch.relu(x))
    entry = next(iter(fast._kernels.values()), None)
    LAUNCHER["cached"] = "static" if isinstance(entry, tuple) else "triton"
    LAUNCHER["native"] = native_launch.status()
    sides = []
    if isinstance(entry, tuple):  # the C launch alone, arguments prepared: the floor of the path
        c_launch, function, warps, shared, types = entry
        stream = torch.cuda.current_stream().cuda_stream
        c_args = (x, out, x.numel())

        def c_only() -> None:
            c_launch(function, grid[0], 1, 1, warps, shared, types, c_args, stream)

        sides.append(Side("static_c_launch_only_relu", c_only, ()))

    def python_path(x: torch.Tensor) -> None:  # the same launch with the native module off
        saved, launch._NATIVE = launch._NATIVE, None
        try:
            fast[grid](x, out, x.numel(), BLOCK=1024)
        finally:
            launch._NATIVE = saved

    sides += [
        Side("triton_cached_python_path_relu", python_path, (x,)),
        Side("empty_like_only", torch.empty_like, (x,)),
        Side("triton_plain_launch_relu", plain, (x,)),
        Side("triton_cached_launch_relu", launcher, (x,)),
        Side("triton_cached_launch_alloc_relu", launcher_alloc, (x,)),
    ]
    if dev.type == "cuda":
        sides += [
            Side("graph_triton_plain_relu", _graphed(plain, (x,)), ()),
            Side("graph_triton_cached_relu", _graphed(launcher, (x,)), ()),
        ]
    return sides


def host_issue_us(
    sides: list[Side], dev: torch.device, calls: int = 2000, rounds: int = 15
) -> dict[str, float]:
    """Host time per call when calls are issued back to back and synchronised once per
    ``calls``: on tiny kernels the device keeps up, so this is what each way of launching
    costs the host (no per-call sync in it). Rounds interleave the sides; medians."""
    per: dict[str, list[float]] = {s.name: [] for s in sides}
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    for _ in range(rounds):
        for side in sides:
            fn, args = side.fn, side.args
            sync()
            t0 = time.perf_counter_ns()
            for _ in range(calls):
                fn(*args)
            sync()
            per[side.name].append((time.perf_counter_ns() - t0) / calls / 1000)
    return {k: round(statistics.median(v), 3) for k, v in per.items()}


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

    def two_ops(x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) + x

    # the bundled pass's replacement against the eager ops it replaces (BERT hidden 128)
    h = torch.randn(8, 128, 128, device=dev)
    r, w, b = torch.randn_like(h), torch.randn(128, device=dev), torch.randn(128, device=dev)

    def eager_add_ln(h, r, w, b):  # noqa: ANN001, ANN202
        return torch.nn.functional.layer_norm(h + r, (128,), w, b, 1e-12)

    sides = [
        Side("empty_sync", lambda: None, ()),
        Side("eager_relu", torch.relu, (x,)),
        Side("eager_two_ops", two_ops, (x,)),
        Side("fx_graphmodule_relu", gm.forward, (x,)),
        Side("dynamo_passthrough_relu", dynamo_passthrough, (x,)),
        Side("inductor_direct_relu", inductor_direct, (x,)),
        Side("inductor_torch_compile_relu", dynamo_inductor, (x,)),
        Side("eager_add_layer_norm", eager_add_ln, (h, r, w, b)),
    ]
    if dev.type == "cuda":
        fused = _load_bundled_pass().fused_add_layer_norm
        torch.testing.assert_close(fused(h, r, w, b, 1e-12), eager_add_ln(h, r, w, b))
        ref, rewritten, task_inputs = _task_graphs(dev)
        sides += [
            Side("pass_add_layer_norm_cached", fused, (h, r, w, b, 1e-12)),
            Side("task_reference_model_py", ref, task_inputs),
            Side("task_rewritten_graph", rewritten, task_inputs),
            Side("graph_eager_relu", _graphed(torch.relu, (x,)), ()),
            Side("graph_eager_two_ops", _graphed(two_ops, (x,)), ()),
            Side("graph_eager_add_layer_norm", _graphed(eager_add_ln, (h, r, w, b)), ()),
            Side("graph_pass_add_layer_norm", _graphed(fused, (h, r, w, b, 1e-12)), ()),
        ]
        sides += _triton_sides(dev, x)
    res = measure(sides, dev, warmup=50, trials=args.trials, rounds=4, max_reruns=1)
    issue_rows = ("eager_relu", "eager_two_ops", "empty_like_only", "static_c_launch_only_relu",
                  "triton_plain_launch_relu", "triton_cached_launch_relu",
                  "triton_cached_python_path_relu", "triton_cached_launch_alloc_relu",
                  "eager_add_layer_norm", "pass_add_layer_norm_cached")  # fmt: skip
    issue = host_issue_us([s for s in sides if s.name in issue_rows], dev)
    import triton

    print(json.dumps({
        "device": torch.cuda.get_device_name() if dev.type == "cuda" else platform.processor() or platform.machine(),
        "driver": torch.cuda.driver_version() if hasattr(torch.cuda, "driver_version")
        and dev.type == "cuda" else None,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cached_launcher": LAUNCHER.get("cached"),
        "native_launch": LAUNCHER.get("native"),
        "host_issue_us": issue,
        "median_us": {k: round(v.wall.median_us, 2) for k, v in res.items()},
        "iqr_us": {k: round(v.wall.iqr_us, 2) for k, v in res.items()},
        "event_median_us": {k: round(v.cuda_event.median_us, 2)
                            for k, v in res.items() if v.cuda_event},
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
