"""A canonical, name-independent structural hash of a graph, used across the whole dataset.

Upstream hashes the raw model.py text, so the same graph captured from two libraries (other
parameter names, other argument order) hashes differently. Here a graph is first put into a
canonical form that ignores every name:

* nodes in a canonical topological order (Kahn's algorithm; among ready nodes, the one with the
  smallest structural key, ties in graph order);
* each node as (kind, target, arguments) where an argument that is a node is its canonical
  index, and literals are kept exactly (floats by ``repr``, dtypes, slices, nested sequences);
  devices are normalised to "device", so a graph captured on CUDA and on CPU hash alike;
* placeholders numbered in order of first use, described by shape, dtype and, for a permuted
  dense layout, stride (tensors) or type and value (scalars), never by name; unused
  placeholders are appended by shape.

:func:`structural_hash` changes with any op, edge, literal, shape, dtype or recorded stride.
:func:`pattern_hash` keeps only ops and edges (no literals, shapes or dtypes): it groups
subgraphs into tasks by operator sequence, across shapes and dtypes.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx
from torch.fx.node import _get_qualified_name

from passnet.graph.meta import sample_stride
from passnet.graph.sample import Sample

InputSpec = list  # ["tensor", shape, dtype(, stride)] or ["scalar", type name, value]


@dataclass(frozen=True)
class GraphKey:
    """The two hashes of a graph and its canonical op sequence."""

    structural: str
    pattern: str
    ops: tuple[str, ...]


def _target(node: torch.fx.Node, gm: torch.fx.GraphModule | None) -> str:
    if node.op == "call_method":
        return f"method:{node.target}"
    if node.op == "call_module":
        module = gm.get_submodule(str(node.target)) if gm is not None else None
        return f"module:{type(module).__qualname__ if module is not None else node.target}"
    if node.op == "get_attr":
        return "attr"
    if node.op == "output":
        return "output"
    target = node.target
    if getattr(target, "__module__", None) in ("_operator", "operator"):
        return f"operator.{target.__name__}"
    try:
        return _get_qualified_name(target)
    except Exception:  # noqa: BLE001 - odd callables: fall back to their repr
        return repr(target)


def _literal(value: Any, ref: Any, literals: bool) -> Any:
    """JSON-able canonical form of an argument; ``ref(node)`` renders node references."""
    if isinstance(value, torch.fx.Node):
        return ref(value)
    if isinstance(value, (list, tuple, torch.Size)):
        return ["seq", *[_literal(v, ref, literals) for v in value]]
    if isinstance(value, dict):
        return ["map", *[[str(k), _literal(v, ref, literals)] for k, v in sorted(value.items())]]
    if isinstance(value, slice):
        return [
            "slice",
            *[_literal(v, ref, literals) for v in (value.start, value.stop, value.step)],
        ]
    if not literals:
        return "lit"
    if isinstance(value, torch.device):
        return "device"
    if value is None or isinstance(value, (bool, int, str)):
        return [type(value).__name__, value]
    if isinstance(value, float):
        return ["float", repr(value)]
    if value is Ellipsis:
        return "..."
    if isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
        return str(value)
    return [type(value).__name__, repr(value)]


def canonical_form(
    gm: torch.fx.GraphModule, inputs: list[InputSpec] | None, *, literals: bool = True
) -> list:
    """The canonical form described in the module docstring (``inputs=None``: no shapes)."""
    nodes = list(gm.graph.nodes)
    order = {n: i for i, n in enumerate(nodes)}
    placeholders = [n for n in nodes if n.op == "placeholder"]
    spec = {p: (inputs[i] if inputs is not None else "input") for i, p in enumerate(placeholders)}
    number: dict[torch.fx.Node, int] = {}
    out: list = []

    def ref(n: torch.fx.Node) -> Any:
        return ["n", number[n]] if n in number else ["p", spec[n]]

    def key(n: torch.fx.Node) -> str:
        body = [n.op, _target(n, gm), _literal(n.args, ref, literals)]
        body.append(_literal(dict(n.kwargs), ref, literals))
        return json.dumps(body, separators=(",", ":"))

    def emit(n: torch.fx.Node) -> None:
        for a in n.all_input_nodes:  # placeholders are numbered at first use
            if a.op == "placeholder" and a not in number:
                number[a] = len(number)
                out.append(["input", number[a], spec[a]])
        entry = json.loads(key(n))
        number[n] = len(number)
        out.append(["node", number[n], *entry])

    waiting = {n: sum(1 for a in n.all_input_nodes if a.op != "placeholder") for n in nodes}
    ready = [(key(n), order[n], n) for n in nodes if n.op != "placeholder" and waiting[n] == 0]
    heapq.heapify(ready)
    while ready:
        _, _, n = heapq.heappop(ready)
        emit(n)
        for user in sorted(n.users, key=order.__getitem__):
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, (key(user), order[user], user))
    unused = sorted((json.dumps(spec[p]), order[p]) for p in placeholders if p not in number)
    out += [["unused", json.loads(s)] for s, _ in unused]
    return out


def _digest(form: list) -> str:
    return hashlib.sha256(json.dumps(form, separators=(",", ":")).encode()).hexdigest()


def graph_key(gm: torch.fx.GraphModule, inputs: list[InputSpec]) -> GraphKey:
    """Both hashes of an FX graph whose placeholders are described by ``inputs`` (in order)."""
    form = canonical_form(gm, inputs)
    ops = tuple(
        e[3].split(":", 1)[-1].rsplit(".", 1)[-1]
        for e in form
        if e[0] == "node" and e[2] != "output"
    )
    return GraphKey(_digest(form), _digest(canonical_form(gm, None, literals=False)), ops)


def _tensor_spec(shape: list[int], dtype: str, stride: list[int] | None) -> InputSpec:
    spec = ["tensor", list(shape), dtype.removeprefix("torch.")]
    return spec + ([stride] if stride is not None else [])


def input_specs(sample: Sample) -> list[InputSpec]:
    """Shape/dtype (tensors) or type/value (scalars) of each forward argument, in order."""
    specs: list[InputSpec] = []
    for meta in sample.metas:
        kind = sample.scalar_type(meta.name)
        if kind is None:
            specs.append(_tensor_spec(meta.shape, meta.dtype, meta.stride))
        else:
            value = (meta.data or [meta.mean])[0] if (meta.data or meta.mean is not None) else None
            specs.append(["scalar", kind.__name__, value])
    return specs


def value_spec(value: Any) -> InputSpec:
    """The input spec of a concrete value: a tensor, a Python scalar, or (between ranges of a
    graph that is being decomposed) a sequence of them (``split``'s tuple) or any other
    object, by type and repr, so that every range hashes."""
    if isinstance(value, torch.Tensor):
        # the stride as the value's cut sample records it
        return _tensor_spec(list(value.shape), str(value.dtype), sample_stride(value))
    if isinstance(value, (list, tuple)):
        return ["seq", *[value_spec(v) for v in value]]
    if value is None or isinstance(value, (bool, int, float, str)):
        return ["scalar", type(value).__name__, value]
    return ["object", type(value).__name__, repr(value)]


def sample_key(sample: Sample) -> GraphKey:
    """Both hashes of a sample folder (traced as in :func:`passnet.graph.subgraph.trace`)."""
    from passnet.graph.subgraph import trace

    return graph_key(trace(sample), input_specs(sample))


def structural_hash(sample: Sample) -> str:
    """The dataset-wide deduplication hash of a sample (64 hex digits)."""
    return sample_key(sample).structural
