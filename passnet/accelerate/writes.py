"""Which of a rule's inputs its replacement writes, read off the rule's own pattern.

``passnet synth`` emits rules whose pattern writes in place into one of its inputs
(``relu(x, inplace=True)``, ``x.relu_()``, VGG's activation on a graph input) and whose kernel
stores the activated value back into that input, as eager does (docs/synth-ops.md, "In-place
writes into an input"). No declaration is asked of a pass: a pattern input is *written* when an
in-place op of the pattern writes its memory, directly or through a chain of in-place ops and
views of it (``x.relu_().clamp_(max=6)``, ``x.view(-1).relu_()``). In-place ops: a call whose
name ends in one underscore (``relu_``, ``add_``, ``torch.relu_``), an ``inplace=True`` argument
(``F.relu``, ``F.hardtanh``, ``F.silu``, dropout, ...), ``x += y`` (``operator.iadd``),
``x[i] = v`` (``operator.setitem``) and an ``out=`` argument.

The library (``library.py``) then

* checks once, at load time, that ``replacement_args`` hands each written input itself to the
  replacement (``check_passed``): a replacement handed a copy, or nothing, cannot make eager's
  write, and the rule is refused with a ``LibraryError``;
* registers the op of each match with ``mutates_args`` naming those arguments
  (``customops.py``, ``tritonops.py``), so functionalization and Inductor keep the write and
  order every later read of that input after it;
* rewrites a match only where the graph reads and writes the input in the pattern's order
  (``order_problem``): the replacement reads and writes it at once, where the match's last node
  was, so a node outside the match that uses the input between the match's first use of it and
  that point, or a node of the match that reads it on the other side of a write than its
  pattern counterpart, would see (or make) another value than in eager.
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from torch.fx import Graph, Node

from passnet.passes.calls import INPLACE, normalized_args
from passnet.passes.pattern import Match, Pattern, trace_pattern

# Ops whose result may share its first argument's memory (a view, or the input itself where
# nothing needs converting): a write into the result is a write into that argument.
_ALIASING = set(
    "view view_as reshape reshape_as transpose permute t squeeze unsqueeze flatten unflatten "
    "expand expand_as narrow select unfold diagonal movedim moveaxis swapaxes swapdims "
    "as_strided split chunk unbind tensor_split getitem contiguous to type type_as detach "
    "alias real imag view_as_real view_as_complex float double half bfloat16 cpu cuda".split()
)


def _name(node: Node) -> str:
    """The op's own name (``relu_``, ``view``, ``iadd``), without its namespace."""
    if node.op == "call_method":
        return str(node.target)
    return str(getattr(node.target, "__name__", node.target))


def writes_into(node: Node) -> Node | None:
    """The node whose memory ``node`` writes in place (module docstring), else None."""
    if node.op not in ("call_function", "call_method"):
        return None
    first = node.args[0] if node.args else None
    name = _name(node)
    if isinstance(node.target, torch._ops.OpOverload):  # aten.relu_.default: by its schema
        values = [node.args[k] if k < len(node.args) else node.kwargs.get(a.name)
                  for k, a in enumerate(node.target._schema.arguments)
                  if a.alias_info is not None and a.alias_info.is_write]  # fmt: skip
        written: Any = next((v for v in values if isinstance(v, Node)), None)
    elif node.op == "call_function" and (node.target in INPLACE
                                         or node.target is operator.setitem):  # fmt: skip
        written = first  # x += y, x[i] = v
    elif name.endswith("_") and not name.endswith("__"):
        written = first  # x.relu_(), torch.relu_(x), F.hardtanh_(x)
    else:
        args = dict((label.rstrip("="), v) for label, v in normalized_args(node))
        written = args.get("out")
        if not isinstance(written, Node) and args.get("inplace") is True:
            written = first
    return written if isinstance(written, Node) else None


def _base(node: Node) -> Node | None:
    """The node whose memory ``node``'s result may share (in-place ops, views), else None."""
    if (into := writes_into(node)) is not None:
        return into
    if node.op in ("call_function", "call_method") and _name(node) in _ALIASING and node.args:
        first = node.args[0]
        return first if isinstance(first, Node) else None
    return None


def root(node: Node) -> Node:
    """The node whose memory ``node`` is, followed back through in-place ops and views."""
    seen = set()
    while (base := _base(node)) is not None and node not in seen:
        seen.add(node)
        node = base
    return node


def written_placeholders(graph: Graph) -> set[int]:
    """Positions of the placeholders of ``graph`` whose memory one of its nodes writes in place:
    the inputs that timing a compiled graph must not hand over as the caller's own."""
    inputs = {p: i for i, p in enumerate(n for n in graph.nodes if n.op == "placeholder")}
    return {inputs[r] for n in graph.nodes
            if (into := writes_into(n)) is not None and (r := root(into)) in inputs}  # fmt: skip


def written_inputs(pattern: Pattern) -> dict[int, list[Node]]:
    """Pattern input index -> the pattern's nodes that write its memory, in pattern order;
    only written inputs appear."""
    graph, inputs, _ = pattern
    index = {p: i for i, p in enumerate(inputs)}
    out: dict[int, list[Node]] = {}
    for node in graph.nodes:
        into = writes_into(node)
        if into is not None and (i := index.get(root(into))) is not None:
            out.setdefault(i, []).append(node)
    return out


def dead_write(fn: Any, pattern: Pattern) -> str | None:
    """Why the pattern function ``fn`` writes an input in place that its prepared ``pattern``
    does not, else None. The matcher drops what the pattern's outputs do not need, an unused
    ``x.relu_()`` included: the rule would then match graphs that never write ``x``, and its
    replacement would make a write the graph does not."""
    graph = trace_pattern(fn)
    inputs = [n for n in graph.nodes if n.op == "placeholder"]
    kept = {n.name for nodes in written_inputs(pattern).values() for n in nodes}
    for i, nodes in written_inputs((graph, inputs, [])).items():
        for n in nodes:
            if n.name not in kept:
                return (f"its pattern writes into its input '{inputs[i].name}' in place "
                        f"('{n.name}') but returns nothing that needs that write, so the "
                        "matcher drops it and the rule would match graphs that do not write "
                        f"'{inputs[i].name}': return '{n.name}''s result too")  # fmt: skip
    return None


def check_passed(
    replacement_args: Any, args_graph: Graph | None, written: dict[int, list[Node]],
    inputs: list[Node],
) -> str | None:  # fmt: skip
    """None if ``replacement_args`` passes each written input itself, as an argument of the
    replacement; else why not. ``args_graph``: its torch.fx trace (None: it did not trace,
    and it is called once on stand-ins instead)."""
    n = len(inputs)
    if args_graph is not None:
        phs = [p for p in args_graph.nodes if p.op == "placeholder"][:n]
        out = next(p for p in args_graph.nodes if p.op == "output").args[0]
        items = out if isinstance(out, (tuple, list)) else (out,)
        passed = [next((k for k, p in enumerate(phs) if a is p), None) for a in items]
    else:
        stand_ins = [_StandIn(p.name) for p in inputs]
        try:
            out = replacement_args(*stand_ins)
        except Exception as e:  # noqa: BLE001 - cannot tell, so refused
            return (
                "replacement_args neither traces with torch.fx nor runs on stand-ins of its "
                f"inputs ({type(e).__name__}: {e}), so whether it passes the written input on "
                "cannot be told"
            )
        items = out if isinstance(out, (tuple, list)) else (out,)
        passed = [next((i for i, s in enumerate(stand_ins) if a is s), None) for a in items]
    for i, writers in written.items():
        if i not in passed:
            return (f"its pattern writes into its input '{inputs[i].name}' in place "
                    f"('{writers[0].name}'), but replacement_args does not pass "
                    f"'{inputs[i].name}' itself to the replacement (a copy or a view of it, "
                    "or nothing), so the replacement cannot make that write where the caller "
                    "sees it: return the input itself among replacement_args' values")  # fmt: skip
    return None


class _StandIn:
    """What ``check_passed`` calls an untraceable ``replacement_args`` with."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<input {self.name}>"


def order_problem(
    pattern: Pattern, written: dict[int, list[Node]], m: Match, pos: dict[Node, int]
) -> str | None:
    """None if the graph reads and writes each written input of match ``m`` in the pattern's
    order (module docstring), else why not. ``pos``: the graph's node positions."""
    graph, inputs, _ = pattern
    pcompute = [pn for pn in graph.nodes if pn.op not in ("placeholder", "output")]
    to_graph = dict(zip(pcompute, m.compute, strict=True))
    order = {pn: k for k, pn in enumerate(graph.nodes)}
    inside = set(m.compute)
    end = max(m.compute, key=pos.__getitem__)
    for i, writers in written.items():
        x = m.inputs[i]
        start = min((u for u in x.users if u in inside), key=pos.__getitem__)
        for u in x.users:
            if u not in inside and pos[start] < pos[u] < pos[end]:
                return (f"'{u.name}' uses '{x.name}' while the match does (between "
                        f"'{start.name}' and '{end.name}'), but the replacement reads and "
                        f"writes '{x.name}' at once, where '{end.name}' was")  # fmt: skip
        for pu in inputs[i].users:
            for w in writers:
                if pu is w:
                    continue
                if (order[pu] < order[w]) != (pos[to_graph[pu]] < pos[to_graph[w]]):
                    gu, gw = to_graph[pu].name, to_graph[w].name
                    when = "before" if order[pu] < order[w] else "after"
                    return (f"the pattern reads its input '{inputs[i].name}' {when} writing "
                            f"it, the graph's '{gu}' reads '{x.name}' on the other side of "
                            f"'{gw}'")  # fmt: skip
    return None
