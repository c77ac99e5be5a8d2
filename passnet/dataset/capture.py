"""Capture a real model into a GraphNet sample (Dynamo graph, every tensor a forward argument).

Dynamo lifts parameters and buffers to graph inputs (``L_self_modules_..._parameters_weight_``),
which is exactly GraphNet's layout: ``model.py`` holds the straight-line code of the graph and
``weight_meta.py`` one meta per argument with statistics of the real value. Constants that
Dynamo keeps as attributes are lifted to arguments too.

A capture is validated before it is accepted: Dynamo must produce exactly one graph with no
break, the written ``model.py`` must reproduce that graph's outputs on the captured inputs, the
graph must reproduce the model's eager outputs, and replaying the sample twice on the same seed
must give identical outputs. A model too large to materialise is captured on the meta device
(shapes and dtypes only, ``"weights": "meta"`` in graph_net.json); its numeric checks are skipped.
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.fx

from passnet.graph.meta import sample_stride
from passnet.graph.sample import Sample, TensorMeta, load_module, run_sample, tensor_stats
from passnet.graph.sample import write_sample as _write_sample

_HEADER = "import torch\nimport operator\nfrom torch import device, inf\n\n\n"
DATA_MAX_INT_NUMEL = 65536
"""Integer/bool tensors up to this size keep their values (ids, masks); larger get min/max."""


class CaptureError(Exception):
    """The model cannot be captured as exactly one valid graph; says why."""


def _meta(name: str, value: Any) -> TensorMeta:
    if isinstance(value, (int, torch.SymInt)):
        return TensorMeta(name=name, shape=[], dtype="torch.int64", device="cpu", data=[int(value)])
    if not isinstance(value, torch.Tensor):
        raise CaptureError(f"graph input {name!r} is a {type(value).__name__}, not a tensor")
    stride = sample_stride(value)  # a channels-last or transposed input keeps its layout
    if value.device.type == "meta":  # no values: shapes and dtypes only
        return TensorMeta(
            name=name, shape=list(value.shape), dtype=str(value.dtype), device="cpu", stride=stride
        )
    stats = tensor_stats(value)
    if not stats.get("std"):
        # A constant tensor (LayerNorm weight at init) must not pin replays to that constant:
        # drop its range so the loader draws a non-degenerate spread around the mean.
        stats = {**stats, "min_val": None, "max_val": None}
    data = None
    exact = not (value.is_floating_point() or value.is_complex())
    if value.numel() < 64 or (exact and value.numel() <= DATA_MAX_INT_NUMEL):
        data = value.detach().cpu().flatten().tolist()
    return TensorMeta(
        name=name,
        shape=list(value.shape),
        dtype=str(value.dtype),
        device=str(value.device),
        data=data,
        stride=stride,
        **stats,
    )


def graph_code(gm: torch.fx.GraphModule) -> str:
    """GraphNet-style model.py text for a captured GraphModule."""
    body = gm.code.strip("\n")
    return _HEADER + "class GraphModule(torch.nn.Module):\n" + textwrap.indent(body, "    ") + "\n"


def _lift_constants(gm: torch.fx.GraphModule, inputs: list[Any]) -> list[Any]:
    """Turn ``get_attr`` constants into trailing placeholders so every tensor is an argument."""
    attrs = [n for n in gm.graph.nodes if n.op == "get_attr"]
    if not attrs:
        return inputs
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    inputs = list(inputs)
    for node in attrs:
        value = gm
        for part in str(node.target).split("."):
            value = getattr(value, part)
        anchor = placeholders[-1] if placeholders else next(iter(gm.graph.nodes))
        insert = gm.graph.inserting_after if placeholders else gm.graph.inserting_before
        with insert(anchor):
            lifted = gm.graph.placeholder(f"L_const_{node.name}_")
        placeholders.append(lifted)
        node.replace_all_uses_with(lifted)
        gm.graph.erase_node(node)
        inputs.append(value)
    gm.recompile()
    return inputs


def _tensors(value: Any) -> list[torch.Tensor]:
    """Every tensor in a (nested) model output, in a stable order."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict) or hasattr(value, "to_tuple"):
        value = value.to_tuple() if hasattr(value, "to_tuple") else tuple(value.values())
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return []


def _equal(got: Sequence[torch.Tensor], want: Sequence[torch.Tensor], exact: bool) -> str | None:
    if len(got) != len(want):
        return f"{len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"output {i}: {tuple(g.shape)}/{g.dtype} != {tuple(w.shape)}/{w.dtype}"
        same = (
            torch.equal(g, w)
            if exact
            else torch.allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True)
        )
        if not same:
            return f"output {i} differs (max abs diff {float((g.double() - w.double()).abs().max()):.3g})"
    return None


def _validate(
    sample: Sample,
    gm: torch.fx.GraphModule,
    inputs: list[Any],
    compiled_out: list[torch.Tensor],
    eager_out: list[torch.Tensor],
) -> None:
    """The checks of the module docstring; raises CaptureError with the failing one."""
    name = sample.name
    with torch.no_grad():
        graph_out = _tensors(gm(*inputs))
        written = _tensors(load_module(sample)(*inputs))
    if (reason := _equal(written, graph_out, exact=True)) is not None:
        raise CaptureError(f"{name}: written model.py does not reproduce the graph: {reason}")
    if (reason := _equal(compiled_out, eager_out, exact=False)) is not None:
        raise CaptureError(f"{name}: the captured graph does not reproduce the model: {reason}")
    first, second = run_sample(sample, seed=1), run_sample(sample, seed=1)
    if (reason := _equal(_tensors(first), _tensors(second), exact=True)) is not None:
        raise CaptureError(f"{name}: replay is not deterministic: {reason}")


def capture(
    model: torch.nn.Module,
    example_inputs: Sequence[Any],
    out_dir: str | Path,
    model_name: str,
    *,
    source: str = "local",
    extra_info: dict | None = None,
    validate: bool = True,
) -> Sample:
    """Capture ``model(*example_inputs)`` with Dynamo and write it as a validated GraphNet sample.

    ``extra_info`` is merged into graph_net.json. With real (non-meta) tensors the capture is
    validated (module docstring); a failed check raises :class:`CaptureError`.
    """
    graphs: list[tuple[torch.fx.GraphModule, list[Any]]] = []

    def grab(gm: torch.fx.GraphModule, inputs: list[Any]):  # noqa: ANN202
        graphs.append((gm, list(inputs)))
        return gm.forward

    torch._dynamo.reset()
    compiled = torch.compile(model, backend=grab, fullgraph=True, dynamic=False)
    try:
        with torch.no_grad():
            compiled_out = compiled(*example_inputs)
    except Exception as exc:  # noqa: BLE001 - graph breaks and tracing errors alike
        first_line = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
        raise CaptureError(
            f"{model_name}: Dynamo capture failed: {type(exc).__name__}: {first_line}"
        ) from exc
    finally:
        torch._dynamo.reset()
    if len(graphs) != 1:
        raise CaptureError(
            f"{model_name}: expected exactly one graph, Dynamo produced {len(graphs)}"
        )
    gm, inputs = graphs[0]
    inputs = _lift_constants(gm, inputs)
    names = [n.target for n in gm.graph.nodes if n.op == "placeholder"]
    metas = [_meta(str(name), value) for name, value in zip(names, inputs, strict=True)]
    on_meta = any(isinstance(v, torch.Tensor) and v.device.type == "meta" for v in inputs)
    graph_net = {
        "framework": "torch",
        "num_devices_required": 1,
        "num_nodes_required": 1,
        "dynamic": False,
        "model_name": model_name,
        "source": source,
        "weights": "meta" if on_meta else "real",
    } | (extra_info or {})
    sample = _write_sample(out_dir, graph_code(gm), metas, graph_net)
    if validate and not on_meta:
        with torch.no_grad():
            eager_out = model(*example_inputs)
        _validate(sample, gm, inputs, _tensors(compiled_out), _tensors(eager_out))
    return sample


@dataclass
class CaptureResult:
    """What :func:`capture_zoo` did: the sample, or the reason it did not make one."""

    model: str
    shape: str
    sample: Sample | None
    weights: str = "real"  # "real" or "meta"
    parameters: int = 0
    seconds: float = 0.0
    error: str | None = None


def _sizes(model: torch.nn.Module) -> tuple[int, int]:
    tensors = list(model.parameters()) + list(model.buffers())
    return sum(t.numel() for t in tensors), sum(t.numel() * t.element_size() for t in tensors)


def parameter_count(build: Any, shape: Any) -> tuple[int, int]:
    """(parameters + buffer elements, bytes) of a model built on the meta device (no memory)."""
    with torch.device("meta"):
        model = build(shape)
    return _sizes(model)


def capture_zoo(zoo_model: Any, shape: Any, out_dir: Path, max_bytes: int) -> CaptureResult:
    """Capture one zoo model at one shape; failures come back as the result's ``error``.

    Models whose weights exceed ``max_bytes`` are built and captured on the meta device.
    """
    t0 = time.perf_counter()
    result = CaptureResult(model=zoo_model.name, shape=shape.key, sample=None)
    if (reason := zoo_model.unavailable()) is not None:
        result.error = reason
        return result
    try:
        model = None
        try:
            result.parameters, size = parameter_count(zoo_model.build, shape)
        except Exception:  # noqa: BLE001 - its init reads values (torchvision's RegNet does):
            model = zoo_model.build(shape)  # build it for real to learn its size
            result.parameters, size = _sizes(model)
        on_meta = size > max_bytes
        if on_meta:
            if model is not None:
                raise CaptureError(
                    f"{zoo_model.name}: {size / 2**30:.1f} GiB of weights is over the "
                    f"{max_bytes / 2**30:.1f} GiB limit, and it cannot be built on the meta device"
                )
            with torch.device("meta"):
                model = zoo_model.build(shape)
            inputs = tuple(
                x.to("meta") if isinstance(x, torch.Tensor) else x
                for x in zoo_model.inputs(model, shape)
            )
        else:
            model = model if model is not None else zoo_model.build(shape)
            inputs = zoo_model.inputs(model, shape)
        info = {
            "library": zoo_model.library,
            "family": zoo_model.family,
            "domain": zoo_model.domain,
            "shape": shape.key,
            "parameters": result.parameters,
        }
        result.sample = capture(
            model, inputs, out_dir, f"{zoo_model.name}@{shape.key}",
            source=f"{zoo_model.library} (random init)", extra_info=info,
        )  # fmt: skip
        result.weights = "meta" if on_meta else "real"
    except CaptureError as e:
        result.error = str(e)
    except Exception as e:  # noqa: BLE001 - a model that fails to build is logged, build goes on
        result.error = f"{zoo_model.name}: {type(e).__name__}: {str(e).strip()[:300]}"
    result.seconds = time.perf_counter() - t0
    return result
