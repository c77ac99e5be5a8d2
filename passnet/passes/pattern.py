"""A rule's pattern as the matcher sees it: traced, calls in one spelling, checked; and what
"the same literal" and "a write seen outside" mean for a match (``matcher``, ``closest``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx
from torch.fx import Graph, Node

from passnet.graph.tracing import NodeTracer
from passnet.passes.calls import INPLACE, call_name, normalized_args, short_name

COMPUTE = ("call_function", "call_method", "call_module")
"""The node kinds that compute something (the rest: placeholder, get_attr, output)."""

Pattern = tuple[Graph, list[Node], list[Node]]
"""A prepared pattern: its graph, its inputs (placeholders, in order) and its outputs."""


@dataclass
class Match:
    """Where a pattern occurs in a graph: the graph values its inputs bind and its outputs
    are (both in the pattern's order), and the graph's nodes it computes (in the order of
    the pattern's nodes they stand for)."""

    inputs: list[Node]
    outputs: list[Node]
    compute: list[Node]


def visible_write(gn: Node) -> str | None:
    """Why an in-place operator (``x += y``, matched as ``x + y``) may not be replaced: its
    write into ``x`` is seen by a node that reads ``x`` after it, or by the graph's caller
    when ``x`` is an input of the graph. A replacement returns a new tensor instead."""
    if gn.op != "call_function" or gn.target not in INPLACE or not gn.args:
        return None
    x = gn.args[0]
    if not isinstance(x, Node):
        return None
    if x.op == "placeholder":
        return f"in-place '{gn.name}' writes into the graph input '{x.name}'"
    order = {n: i for i, n in enumerate(gn.graph.nodes)}
    later = [u for u in x.users if u is not gn and order[u] > order[gn]]
    if later:
        return (
            f"in-place '{gn.name}' writes into '{x.name}', which '{later[0].name}' reads after it"
        )
    return None


def at(pn: Node, gn: Node) -> str:
    return f"at pattern op '{pn.name}' / graph node '{gn.name}' ({short_name(call_name(gn))}): "


def leaves(v: Any) -> list:
    found: list = []
    torch.fx.node.map_aggregate(v, found.append)
    return found


def lit_eq(p: Any, g: Any) -> bool:
    """Literal equality as ignore_literals=False means it, but lists equal tuples and bools stay bools."""
    if isinstance(p, (list, tuple)) and isinstance(g, (list, tuple)):
        return len(p) == len(g) and all(lit_eq(a, b) for a, b in zip(p, g, strict=True))
    if isinstance(p, dict) and isinstance(g, dict):
        return p.keys() == g.keys() and all(lit_eq(p[k], g[k]) for k in p)
    if isinstance(p, bool) or isinstance(g, bool):
        return type(p) is type(g) and p == g
    if isinstance(p, float) and isinstance(g, float) and p != p and g != g:
        return True  # nan
    if isinstance(p, torch.Tensor) and isinstance(g, torch.Tensor):
        return p.dtype == g.dtype and p.shape == g.shape and bool(torch.equal(p, g))
    try:
        return bool(p == g)
    except Exception:
        return False


def literal_miss(pv: Any, gv: Any) -> str | None:
    """Why two argument values are not the same literal, or None; a node on both sides is the
    structure's business, not a literal's (None)."""
    if isinstance(pv, Node) and isinstance(gv, Node):
        return None
    if isinstance(pv, Node):
        what = f"input '{pv.name}'" if pv.op == "placeholder" else f"the result of '{pv.name}'"
        return f"pattern has {what}, graph has the literal {gv!r}"
    if isinstance(gv, Node):
        return f"pattern has the literal {pv!r}, graph has node '{gv.name}'"
    if isinstance(pv, dict) and isinstance(gv, dict) and pv.keys() == gv.keys():
        pv, gv = list(pv.values()), [gv[k] for k in pv]
    nodes = any(isinstance(x, Node) for x in leaves(pv) + leaves(gv))
    if nodes and isinstance(pv, (list, tuple)) and isinstance(gv, (list, tuple)):
        if len(pv) != len(gv):
            return f"pattern has {len(pv)} items, graph has {len(gv)}"
        for j, (p, g) in enumerate(zip(pv, gv, strict=True)):
            if why := literal_miss(p, g):
                return f"[{j}]: {why}"
        return None
    return None if lit_eq(pv, gv) else f"pattern has {pv!r}, graph has {gv!r}"


def normalize_calls(graph: Graph) -> None:
    """Every call of ``graph`` rewritten to its normalised positional form, defaults filled
    in (``calls.normalized_args``): positional parameters as args, keyword-only ones as
    kwargs. Two spellings of one call then have the same args, as the matcher compares them."""
    for node in graph.nodes:
        if node.op in ("call_function", "call_method"):
            entries = normalized_args(node)
            node.args = tuple(v for k, v in entries if not k.endswith("="))
            node.kwargs = {k[:-1]: v for k, v in entries if k.endswith("=")}


def trace_pattern(fn: Callable) -> Graph:
    """Trace a pattern function with the tracer that traces graphs (``passnet.graph.tracing``:
    a torch call with constant arguments, ``torch.ones(3)``, stays a node on both sides); calls
    are rewritten to normalised positional form."""
    graph = NodeTracer().trace(fn)
    normalize_calls(graph)
    return graph


def prepare_pattern(fn: Callable) -> Pattern:
    """Trace and check a pattern function: outputs are op results, every parameter is used."""
    graph = trace_pattern(fn)
    out = next(n for n in graph.nodes if n.op == "output").args[0]
    outputs = list(out) if isinstance(out, (tuple, list)) else [out]
    for i, o in enumerate(outputs):
        if not isinstance(o, Node) or o.op == "placeholder":
            raise ValueError(f"pattern output {i} must be the result of a torch op, got {o!r}")
    if len(set(outputs)) != len(outputs):
        raise ValueError("pattern returns the same value twice")
    graph.eliminate_dead_code()
    inputs = [n for n in graph.nodes if n.op == "placeholder"]
    if unused := [n.name for n in inputs if not n.users]:
        raise ValueError(
            f"pattern parameter(s) {', '.join(unused)} not used by the returned values"
        )
    return graph, inputs, outputs
