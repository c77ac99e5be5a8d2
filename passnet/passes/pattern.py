"""A rule's pattern as the matcher sees it: traced, calls in one spelling, checked; and what
"the same literal" and "a write seen outside" mean for a match (``matcher``, ``closest``).

A rule module may declare some of its pattern's literals *free* (``FREE_LITERALS``,
docs/passes.md#free-literals): ``{"eps": "layer_norm.eps"}`` names the literal argument
``eps`` of the pattern's call ``layer_norm`` (the call as torch.fx names the traced pattern's
node). A free literal matches any graph literal of the same kind (:func:`same_kind`); the
graph's value is bound to the keyword for that match and passed to ``replacement_args``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx
from torch.fx import Graph, GraphModule, Node

from passnet.graph.tracing import NodeTracer
from passnet.passes.calls import INPLACE, call_name, normalized_args, short_name

COMPUTE = ("call_function", "call_method", "call_module")
"""The node kinds that compute something (the rest: placeholder, get_attr, output)."""

Pattern = tuple[Graph, list[Node], list[Node]]
"""A prepared pattern: its graph, its inputs (placeholders, in order) and its outputs."""

FREE = "passnet_free"
"""``node.meta`` key of a pattern node's free literals: {argument label: keyword}."""
FREE_LITERALS = "FREE_LITERALS"
"""The rule module's declaration: {keyword: "call.parameter" or a list of them}."""


@dataclass
class Match:
    """Where a pattern occurs in a graph: the graph values its inputs bind and its outputs
    are (both in the pattern's order), the graph's nodes it computes (in the order of the
    pattern's nodes they stand for), and the graph's literals its free literals bound
    (keyword -> value; empty for a pattern without ``FREE_LITERALS``)."""

    inputs: list[Node]
    outputs: list[Node]
    compute: list[Node]
    bound: dict[str, Any] = field(default_factory=dict)


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


def same_kind(p: Any, g: Any) -> bool:
    """Whether graph literal ``g`` may bind free pattern literal ``p``: a bool for a bool, an
    int for an int, a number for a float, None for None, a sequence of as many items of the
    same kinds for a tuple or list (``(128,)`` binds ``(192,)``), a slice of slots of the same
    kinds for a slice, and otherwise a value of the same type (a dtype for a dtype)."""
    if isinstance(p, bool) or isinstance(g, bool):
        return isinstance(p, bool) and isinstance(g, bool)
    if isinstance(p, int):
        return isinstance(g, int)
    if isinstance(p, float):
        return isinstance(g, (int, float))
    if p is None:
        return g is None
    if isinstance(p, (tuple, list)):
        return (isinstance(g, (tuple, list)) and len(p) == len(g)
                and all(same_kind(a, b) for a, b in zip(p, g, strict=True)))  # fmt: skip
    if isinstance(p, slice):
        return isinstance(g, slice) and all(
            same_kind(getattr(p, k), getattr(g, k)) for k in ("start", "stop", "step"))  # fmt: skip
    return type(p) is type(g)


def free_hint(pn: Node, label: str) -> str:
    """The declaration that would leave argument ``label`` of pattern call ``pn`` free."""
    param = label.rstrip("=")
    keyword = param if param.isidentifier() and param not in ("a", "b") else f"{pn.name}_{param}"
    keyword = "".join(c if c.isalnum() else "_" for c in keyword).strip("_")
    return f'FREE_LITERALS = {{"{keyword}": "{pn.name}.{param}"}}'


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


def declare_free(graph: Graph, free: Mapping[str, str | Sequence[str]]) -> None:
    """Mark the literals a rule's ``FREE_LITERALS`` names on ``graph``'s nodes (``FREE``):
    each keyword names one or more ``"call.parameter"`` (the call as torch.fx names the traced
    pattern's node: ``layer_norm``, ``layer_norm_1``, ``view``, ``mul``; the parameter by its
    name in the call's signature, or by position where it has none: ``view.1``). ValueError
    names what is wrong with a declaration."""
    calls = {n.name: n for n in graph.nodes if n.op in COMPUTE}
    values: dict[str, Any] = {}
    for keyword, where in free.items():
        if not isinstance(keyword, str) or not keyword.isidentifier():
            raise ValueError(f"{FREE_LITERALS}: {keyword!r} is not a keyword (an identifier)")
        for designator in [where] if isinstance(where, str) else list(where):
            name, _, param = str(designator).partition(".")
            what = f"{FREE_LITERALS}[{keyword!r}] = {designator!r}"
            node = calls.get(name)
            if node is None or not param:
                raise ValueError(f"{what}: the pattern has no call {name!r} (say \"call.parameter\"; "
                                 f"its calls: {', '.join(calls)})")  # fmt: skip
            entries = normalized_args(node)
            label = next((lb for lb, _ in entries if lb.rstrip("=") == param), None)
            if label is None:
                names = ", ".join(lb.rstrip("=") for lb, _ in entries)
                raise ValueError(
                    f"{what}: {name} has no argument {param!r} (its arguments: {names})"
                )
            value = dict(entries)[label]
            if any(isinstance(x, Node) for x in leaves(value)):
                raise ValueError(f"{what}: {name}'s {param} is no literal in the pattern")
            if keyword in values and not lit_eq(values[keyword], value):
                raise ValueError(f"{what}: the keyword names the different literals "
                                 f"{values[keyword]!r} and {value!r}")  # fmt: skip
            values[keyword] = value
            node.meta.setdefault(FREE, {})[label] = keyword


def free_literals(pattern: Pattern) -> dict[str, Any]:
    """Each free keyword of a prepared pattern with the pattern's own literal for it."""
    out: dict[str, Any] = {}
    for node in pattern[0].nodes:
        entries = dict(normalized_args(node)) if node.meta.get(FREE) else {}
        for label, keyword in node.meta.get(FREE, {}).items():
            out.setdefault(keyword, entries[label])
    return out


def bound_pattern(pattern: Pattern, bound: Mapping[str, Any]) -> GraphModule:
    """The pattern as a callable with its free literals set to ``bound`` (a match's
    bindings): what the graph computed at that match, for a fallback or a fake kernel."""
    graph = pattern[0]
    copy, val_map = Graph(), {}  # type: ignore[var-annotated]
    copy.output(copy.graph_copy(graph, val_map))
    for pn, new in val_map.items():
        free = pn.meta.get(FREE)
        if not free:
            continue
        positional = [lb for lb, _ in normalized_args(pn) if not lb.endswith("=")]
        args, kwargs = list(new.args), dict(new.kwargs)
        for label, keyword in free.items():
            if keyword not in bound:
                continue
            if label.endswith("="):
                kwargs[label[:-1]] = bound[keyword]
            else:
                args[positional.index(label)] = bound[keyword]
        new.args, new.kwargs = tuple(args), kwargs
    return GraphModule(graph.owning_module or torch.nn.Module(), copy)


def prepare_pattern(fn: Callable, free: Mapping[str, str | Sequence[str]] | None = None) -> Pattern:
    """Trace and check a pattern function: outputs are op results, every parameter is used;
    ``free``: the rule's ``FREE_LITERALS`` (``declare_free``)."""
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
    if free:
        declare_free(graph, free)
    return graph, inputs, outputs
