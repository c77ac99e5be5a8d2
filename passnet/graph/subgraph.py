"""Cut a contiguous range of compute nodes out of a sample into a sample of its own.

Tasks are built from real graphs: a fusible or typical op sequence found in a captured model
becomes a standalone GraphNet sample whose inputs are the values the range reads from the rest
of the graph. Its metas describe the real intermediate values (recorded by running the parent),
so replaying it feeds the range realistic shapes, dtypes and value ranges.
"""

from __future__ import annotations

import builtins
import importlib
import re
import textwrap
from pathlib import Path
from typing import Any

import torch
import torch.fx
from torch.fx.graph import _custom_builtins
from torch.fx.node import _get_qualified_name

from passnet.graph.meta import sample_stride
from passnet.graph.sample import (
    DATA_MAX_NUMEL,
    Sample,
    SampleError,
    TensorMeta,
    load_module,
    materialize,
    run_sample,
    tensor_stats,
    write_sample,
)
from passnet.graph.tracing import trace_module

COMPUTE_OPS = ("call_function", "call_method", "call_module")
_KEPT_GRAPH_NET_KEYS = (
    "framework",
    "num_devices_required",
    "num_nodes_required",
    "dynamic",
    "source",
    "heuristic_tag",
)
"""graph_net.json keys a subgraph inherits; the parent's processing history is left out."""


def trace(sample: Sample) -> torch.fx.GraphModule:
    """The sample's GraphModule, symbolically traced; torch calls on constants stay nodes."""
    module = load_module(sample)
    try:
        return trace_module(module)
    except Exception as e:
        raise SampleError(
            sample.model_path, f"torch.fx symbolic tracing failed: {type(e).__name__}: {e}"
        ) from e


def _compute_nodes(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return [n for n in gm.graph.nodes if n.op in COMPUTE_OPS]


def op_name(node: torch.fx.Node, gm: torch.fx.GraphModule) -> str:
    """Readable op name: "torch.nn.functional.layer_norm", "add" (operator), "view" (method)."""
    if node.op == "call_method":
        return str(node.target)
    if node.op == "call_module":
        return type(gm.get_submodule(str(node.target))).__name__
    target = node.target
    if getattr(target, "__module__", None) in ("_operator", "operator", "builtins"):
        return target.__name__
    return _get_qualified_name(target)


def graph_ops(sample: Sample) -> list[str]:
    """Names of the compute nodes of the traced graph, in execution order."""
    gm = trace(sample)
    return [op_name(n, gm) for n in _compute_nodes(gm)]


class _Stop(Exception):
    """Ends interpretation once the range has run."""


class _Recorder(torch.fx.Interpreter):
    """Runs the parent up to the range's last node, snapshotting the values the cut needs.

    An input is cloned when the range first reads it and an output right after the range
    ends, so in-place ops elsewhere in the graph (``relu(x, inplace=True)``) cannot change them.
    """

    def __init__(self, gm, chosen, inputs, outputs) -> None:
        super().__init__(gm, garbage_collect_values=False)
        self.inside = set(chosen)
        self.last = chosen[-1]
        self.outputs = outputs
        self.in_values: dict[torch.fx.Node, Any] = dict.fromkeys(inputs)
        self.out_values: list = []

    def run_node(self, n: torch.fx.Node) -> Any:
        if n in self.inside:
            for a in n.all_input_nodes:
                if a in self.in_values and self.in_values[a] is None:
                    self.in_values[a] = _snapshot(self.env[a])
        result = super().run_node(n)
        if n is self.last:
            env = {**self.env, n: result}
            self.out_values = [_snapshot(env[o]) for o in self.outputs]
            raise _Stop
        return result


def _snapshot(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, list):
        return [_snapshot(v) for v in value]
    return value


def _input_meta(name: str, value: Any, node: torch.fx.Node, model_py: Path) -> TensorMeta:
    """Meta of an intermediate value that becomes an input of the subgraph."""
    if isinstance(value, torch.Tensor):
        data = value.flatten().tolist() if value.numel() < DATA_MAX_NUMEL else None
        return TensorMeta(
            name=name,
            shape=list(value.shape),
            dtype=str(value.dtype),
            device=str(value.device),
            data=data,
            stride=sample_stride(value),
            **tensor_stats(value),
        )
    for kind, dtype in ((bool, "torch.bool"), (int, "torch.int64"), (float, "torch.float64")):
        if isinstance(value, kind):
            return TensorMeta(
                name=name, shape=[], dtype=dtype, device="cpu", mean=None, std=None, data=[value]
            )
    raise SampleError(
        model_py,
        f"the range reads {node.name!r} from outside, a {type(value).__name__}; only tensors "
        "and int/float/bool scalars can become inputs (widen the range to include its producer)",
    )


def _annotation(value: Any) -> str:
    for kind, name in ((bool, "torch.SymBool"), (int, "torch.SymInt"), (float, "torch.SymFloat")):
        if isinstance(value, kind):
            return name
    return "torch.Tensor"


def _import_lines(globals_: dict[str, Any], src: str, model_py: Path) -> list[str]:
    """Import statements for the globals FX's generated code refers to."""
    lines = []
    for name, obj in globals_.items():
        if name == "torch" or not re.search(rf"\b{re.escape(name)}\b", src):
            continue
        if name in _custom_builtins:
            lines.append(_custom_builtins[name].import_str)
            continue
        if getattr(builtins, name, None) is obj:
            continue
        module = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
        try:
            resolved = importlib.import_module(module) if module else None
            for part in (qualname or "").split("."):
                resolved = getattr(resolved, part)
        except (ImportError, AttributeError) as e:
            raise SampleError(model_py, f"cannot import {name!r} for the subgraph: {e}") from e
        if resolved is not obj:
            raise SampleError(model_py, f"cannot import {name!r} for the subgraph")
        if "." in qualname:
            lines.append(f"import {module}\n{name} = {module}.{qualname}")
        else:
            lines.append(f"from {module} import {qualname} as {name}")
    return lines


def _module_code(graph: torch.fx.Graph, annotations: dict[str, str | None], model_py: Path) -> str:
    """Self-contained GraphNet-style model.py for ``graph``, arguments annotated like Dynamo's."""
    python_code = graph.python_code(root_module="self")
    lines = python_code.src.strip().splitlines()
    params = [f"{n}: {a}" if a else n for n, a in annotations.items()]
    lines[0] = f"def forward(self, {', '.join(params)}):" if params else "def forward(self):"
    src = "\n".join(lines)
    imports = _import_lines(python_code.globals, src, model_py)
    return "\n".join(
        [
            "import torch",
            *imports,
            "",
            "",
            "class GraphModule(torch.nn.Module):",
            textwrap.indent(src, "    "),
            "",
        ]
    )


def _same(actual: Any, expected: Any) -> bool:
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return False
        if actual.shape != expected.shape or actual.dtype != expected.dtype:
            return False
        if torch.equal(actual, expected):
            return True
        if not expected.is_floating_point() and not expected.is_complex():
            return False
        return torch.allclose(actual, expected, equal_nan=True)
    return actual == expected


def cut_subgraph(
    sample: Sample, start: int, end: int, out_path: Path | str, seed: int = 0
) -> Sample:
    """Write compute nodes [start, end) of ``sample`` as a new sample at ``out_path``.

    Inputs are the values the range reads from outside it (original arguments keep their
    metas; intermediate values get metas from their real values on seed ``seed``); outputs are
    the range's values used after it, or its last node. The result is checked against the
    parent's intermediate values on the same inputs.
    """
    gm = trace(sample)
    nodes = _compute_nodes(gm)
    if not 0 <= start < end <= len(nodes):
        raise SampleError(
            sample.model_path,
            f"range [{start}, {end}) is not within its {len(nodes)} compute nodes",
        )
    out = Path(out_path).resolve()
    if out == sample.path:
        raise SampleError(sample.model_path, "cut_subgraph would overwrite its parent")
    chosen = nodes[start:end]
    inside = set(chosen)
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    inputs = sorted(
        {a for n in chosen for a in n.all_input_nodes if a not in inside}, key=order.__getitem__
    )
    outputs = [n for n in chosen if any(u not in inside for u in n.users)] or [chosen[-1]]

    recorder = _Recorder(gm, chosen, inputs, outputs)
    try:
        with torch.no_grad():
            recorder.run(*materialize(sample, seed=seed))
    except _Stop:
        pass
    except Exception as e:
        raise SampleError(sample.model_path, f"running the parent failed: {e}") from e

    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    metas = []
    annotations: dict[str, str | None] = {}
    in_values = [recorder.in_values[n] for n in inputs]
    for node, value in zip(inputs, in_values, strict=True):
        if node.op == "placeholder":
            name = str(node.target)
            metas.append(sample.meta(name).model_copy())
            annotations[name] = sample.arg_types.get(name)
        else:
            name = node.name
            metas.append(_input_meta(name, value, node, sample.model_path))
            annotations[name] = _annotation(value)
        env[node] = graph.placeholder(name)
    for node in chosen:
        env[node] = graph.node_copy(node, lambda a: env[a])
    graph.output(tuple(env[n] for n in outputs))
    code = _module_code(graph, annotations, sample.model_path)

    ops = [op_name(n, gm) for n in chosen]
    graph_net = {k: v for k, v in sample.graph_net.items() if k in _KEPT_GRAPH_NET_KEYS}
    graph_net["model_name"] = f"{sample.name}_start{start}_end{end}"
    sources = {"parent": str(sample.path), "start": start, "end": end, "ops": ops}
    result = write_sample(out, code, metas, graph_net, sources=sources)
    _check(result, in_values, recorder.out_values)
    run_sample(result, seed=seed)
    return result


def _check(result: Sample, in_values: list, expected: list) -> None:
    """The written subgraph must reproduce the parent's intermediate values exactly."""
    module = load_module(result)
    try:
        with torch.no_grad():
            actual = module(*[_snapshot(v) for v in in_values])
    except Exception as e:
        raise SampleError(result.model_path, f"forward failed: {type(e).__name__}: {e}") from e
    if len(actual) != len(expected):
        raise SampleError(result.model_path, f"{len(actual)} outputs, expected {len(expected)}")
    for i, (got, want) in enumerate(zip(actual, expected, strict=True)):
        if not _same(got, want):
            raise SampleError(
                result.model_path, f"output {i} differs from the parent's intermediate value"
            )
