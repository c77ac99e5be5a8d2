"""Which literals of a pattern a generic rule leaves free (docs/synth.md#generic-rules).

A synthesised pattern is the graph's own calls with the graph's literals: ``layer_norm(v0,
(128,), in2, in3, 1e-12)`` matches only a hidden size of 128 and that eps. A generic rule
declares the literals its kernel can take at run time free (``FREE_LITERALS``,
docs/passes.md#free-literals), so the matcher binds them per match and the replacement gets
their values: a LayerNorm's ``normalized_shape`` and ``eps``, the eps of the other norms, a
softmax's ``dim``, a view's sizes, a float operand of ``+ - * /`` (an attention scale). Each
op's registration says which of its literal arguments may be free and what its rules read
them as (:meth:`~passnet.synth.registry.OpDef.free`); the kernel and wrapper then take the
bound value where the literal stood (:meth:`~passnet.synth.lower.Builder.constant`,
:meth:`~passnet.synth.shapes.Shapes.bound_dim`) and the wrapper guards what the kernel needs
of it (a LayerNorm's ``normalized_shape`` is the input's last dim, a softmax's ``dim`` is the
kernel's row).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch.fx import Node

from passnet.passes.calls import normalized_args
from passnet.passes.pattern import COMPUTE, leaves, trace_pattern

if TYPE_CHECKING:
    from passnet.synth.graph import Group


@dataclass(frozen=True)
class Free:
    """One free literal of a generic rule: the call's position in the pattern (and in each
    match's compute nodes), what the op's rules read it as (``key``), the keyword
    ``replacement_args`` takes it as, the ``"call.parameter"`` the declaration names and the
    pattern's own literal (the keyword's default)."""

    node: int
    key: Any
    keyword: str
    designator: str
    value: Any


def pattern_calls(source: str) -> list[Node]:
    """The calls of a pattern source, traced as the matcher traces it (torch.fx's names)."""
    scope: dict[str, Any] = {"torch": torch}
    exec(compile(source, "<synth pattern>", "exec"), scope)  # noqa: S102 - our own source
    return [n for n in trace_pattern(scope["pattern"]).nodes if n.op in COMPUTE]


def free_literals(group: Group) -> list[Free]:
    """The literals of ``group``'s pattern that its ops can take at run time; none where the
    traced pattern's calls do not line up with the group's nodes."""
    calls = pattern_calls(group.source)
    if len(calls) != len(group.nodes):
        return []
    out: list[Free] = []
    used: set[str] = set()
    for i, (node, pn) in enumerate(zip(group.nodes, calls, strict=True)):
        op = group.ops[node]
        for label, value in normalized_args(pn):
            if any(isinstance(x, Node) for x in leaves(value)):
                continue
            found = op.defn.free(op, label.rstrip("="), value)
            if found is None:
                continue
            key, name = found
            keyword, k = name, 1
            while keyword in used:
                keyword, k = f"{name}_{k}", k + 1
            used.add(keyword)
            out.append(Free(i, key, keyword, f"{pn.name}.{label.rstrip('=')}", value))
    return out


def declaration(free: list[Free]) -> dict[str, str]:
    """``FREE_LITERALS`` of a rule: keyword -> ``"call.parameter"``."""
    return {f.keyword: f.designator for f in free}
