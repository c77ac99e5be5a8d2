"""Capture a real model into a GraphNet sample (Dynamo graph, every tensor a forward argument).

Dynamo lifts parameters and buffers to graph inputs (``L_self_modules_..._parameters_weight_``),
which is exactly GraphNet's layout: ``model.py`` holds the straight-line code of the graph and
``weight_meta.py`` one meta per argument with statistics of the real value.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from passnet.graph.sample import Sample, TensorMeta, tensor_stats, write_sample

_HEADER = "import torch\nimport operator\nfrom torch import device, inf\n\n\n"


class CaptureError(Exception):
    """The model cannot be captured as exactly one graph with no breaks."""


def _meta(name: str, value: Any) -> TensorMeta:
    if isinstance(value, (int, torch.SymInt)):
        return TensorMeta(name=name, shape=[], dtype="torch.int64", device="cpu", data=[int(value)])
    if not isinstance(value, torch.Tensor):
        raise CaptureError(f"graph input {name!r} is a {type(value).__name__}, not a tensor")
    stats = tensor_stats(value)
    if not stats.get("std"):
        # A constant tensor (LayerNorm weight at init) must not pin replays to that constant:
        # drop its range so the loader draws a non-degenerate spread around the mean.
        stats = {**stats, "min_val": None, "max_val": None}
    data = None
    if value.numel() < 64 or not (value.is_floating_point() or value.dtype == torch.bool):
        data = value.detach().cpu().flatten().tolist()
    return TensorMeta(
        name=name,
        shape=list(value.shape),
        dtype=str(value.dtype),
        device=str(value.device),
        mean=stats.get("mean"),
        std=stats.get("std"),
        min_val=stats.get("min_val"),
        max_val=stats.get("max_val"),
        data=data,
    )


def graph_code(gm: torch.fx.GraphModule) -> str:
    """GraphNet-style model.py text for a captured GraphModule."""
    body = gm.code.strip("\n")
    return _HEADER + "class GraphModule(torch.nn.Module):\n" + textwrap.indent(body, "    ") + "\n"


def capture(
    model: torch.nn.Module,
    example_inputs: Sequence[Any],
    out_dir: str | Path,
    model_name: str,
    *,
    source: str = "local",
) -> Sample:
    """Capture ``model(*example_inputs)`` with Dynamo and write it as a GraphNet sample."""
    graphs: list[tuple[torch.fx.GraphModule, list[Any]]] = []

    def grab(gm: torch.fx.GraphModule, inputs: list[Any]):  # noqa: ANN202
        graphs.append((gm, list(inputs)))
        return gm.forward

    torch._dynamo.reset()
    compiled = torch.compile(model, backend=grab, fullgraph=True, dynamic=False)
    try:
        with torch.no_grad():
            compiled(*example_inputs)
    except Exception as exc:  # noqa: BLE001 - graph breaks and tracing errors alike
        raise CaptureError(
            f"{model_name}: Dynamo capture failed: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        torch._dynamo.reset()
    if len(graphs) != 1:
        raise CaptureError(
            f"{model_name}: expected exactly one graph, Dynamo produced {len(graphs)}"
        )
    gm, inputs = graphs[0]
    names = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
    metas = [_meta(str(name), value) for name, value in zip(names, inputs, strict=True)]
    graph_net = {
        "framework": "torch",
        "num_devices_required": 1,
        "num_nodes_required": 1,
        "dynamic": False,
        "model_name": model_name,
        "source": source,
    }
    return write_sample(out_dir, graph_code(gm), metas, graph_net)
