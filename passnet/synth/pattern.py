"""Write a group of FX nodes back as a PassNet ``pattern`` function.

Each node becomes the call ``model.py`` makes (infix operators, ``torch.nn.functional.*``
under the matcher's canonical name, tensor methods) with the same literal arguments, so the
matcher finds it in every variant whose graph makes the same calls; shapes appear only where
the graph's literals hold them (``view(-1, 128)``, layer_norm's normalized_shape).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch
from torch.fx import Node

from passnet.synth.ops import canonical_name

_INFIX = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
          operator.floordiv: "//", operator.pow: "**", operator.mod: "%",
          operator.matmul: "@", operator.and_: "&", operator.or_: "|", operator.xor: "^",
          operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=",
          operator.gt: ">", operator.ge: ">="}  # fmt: skip


def literal(value: Any) -> str:
    """Python source for a literal argument that evaluates back to an equal value."""
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if isinstance(value, (bool, int, str)) or value is None:
        return repr(value)
    if value is Ellipsis:
        return "..."
    if isinstance(value, slice):
        return f"slice({literal(value.start)}, {literal(value.stop)}, {literal(value.step)})"
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
        return str(value)  # 'torch.float32', 'torch.contiguous_format'
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    raise ValueError(f"cannot write the literal {value!r} into a pattern")


def default(value: Any) -> str:
    """A free literal as a keyword's default: a list as a tuple (a default is made once and
    shared by every call, so the static policy takes only immutable ones)."""
    return literal(tuple(value) if isinstance(value, list) else value)


def _arg(value: Any, names: dict[Node, str]) -> str:
    if isinstance(value, Node):
        return names[value]
    if isinstance(value, (tuple, list)) and any(isinstance(v, Node) for v in value):
        inner = ", ".join(_arg(v, names) for v in value)
        if isinstance(value, list):
            return f"[{inner}]"
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return literal(value)


def call_source(node: Node, names: dict[Node, str]) -> str:
    """The node's call as source, its operands renamed by ``names``."""
    args = [_arg(a, names) for a in node.args]
    kwargs = [f"{k}={_arg(v, names)}" for k, v in node.kwargs.items()]
    target = node.target
    if node.op == "call_function" and target in _INFIX and len(args) == 2 and not kwargs:
        return f"{args[0]} {_INFIX[target]} {args[1]}"
    if node.op == "call_function" and target in (operator.neg, operator.invert) and len(args) == 1:
        return f"{'-' if target is operator.neg else '~'}{args[0]}"
    if node.op == "call_function" and target is operator.getitem and len(args) == 2:
        return f"{args[0]}[{args[1]}]"
    if node.op == "call_method":
        return f"{args[0]}.{target}({', '.join(args[1:] + kwargs)})"
    name = canonical_name(node)
    if name.startswith("torch._"):
        name = public_name(node.target) or name
    if not name.startswith("torch.") or name.startswith("torch._"):
        raise ValueError(f"cannot name {name} in a pattern")
    return f"{name}({', '.join(args + kwargs)})"


def public_name(target: Any) -> str | None:
    """The documented name of a builtin that Dynamo records by its private one
    (``torch._C._special.special_logit`` is ``torch.special.logit``), or None."""
    name = getattr(target, "__name__", "")
    for home in (torch.special, torch.nn.functional, torch.linalg, torch):
        for attr in (name, name.removeprefix("special_"), name.removeprefix("linalg_")):
            if attr and not attr.startswith("_") and getattr(home, attr, None) is target:
                return f"{home.__name__}.{attr}"
    return None


def pattern_source(nodes: list[Node], inputs: list[Node], outputs: list[Node]) -> str:
    """``def pattern(in0, ...)``: the group's calls, returning its outputs in graph order."""
    names = {n: f"in{j}" for j, n in enumerate(inputs)}
    lines = [f"def pattern({', '.join(names[n] for n in inputs)}):"]
    for i, node in enumerate(nodes):
        names[node] = f"v{i}"
        lines.append(f"    v{i} = {call_source(node, names)}")
    outs = [names[o] for o in outputs]
    lines.append(f"    return {outs[0]}" if len(outs) == 1 else f"    return ({', '.join(outs)})")
    return "\n".join(lines) + "\n"
