"""The alias path: outputs that eager returns as views of an input, returned as views.

A group whose every output is a chain of views and ``contiguous()`` calls from one of its
inputs (``x.contiguous().reshape(1, 16, -1).contiguous()``, a head split's ``view,
transpose``) costs eager no kernel when the layouts allow it: ``contiguous()`` of a contiguous
tensor returns that tensor, and a reshape of a contiguous tensor is a view. The wrapper then
does what eager does, checked at run time with metadata alone (``is_contiguous``), and returns
views of the input; otherwise it launches the kernel, which copies where eager copies. The
output aliases the input exactly when eager's would, and no kernel is launched that eager
does not launch.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.fx import Node

from passnet.synth.lower import Builder
from passnet.synth.ops import Op

Step = tuple[str, Any]
"""``("contiguous", None)``, ``("view", dims)``, ``("permute", perm)``, ``("unsqueeze", dim)``
or ``("squeeze", dim)``."""


def _step(b: Builder, node: Node, op: Op) -> Step | None:
    if op.kind == "reshape":
        return ("view", tuple(b.shapes.dims[node]))
    if op.kind == "permute":
        return ("permute", tuple(op.attrs["perm"]))
    if op.kind in ("unsqueeze", "squeeze"):
        return (op.kind, op.attrs["dim"])
    if op.kind == "id" and op.name == "copy" and node.target == "contiguous":
        return ("contiguous", None)  # not clone() or pad(): those always copy
    return None


def input_chains(b: Builder) -> list[tuple[int, list[Step]]] | None:
    """Per output, (the input it is a view chain of, the chain's steps from that input); None
    when some output is computed (or is an input itself), or when eager copies on every
    analysed variant even with contiguous inputs (a head split's ``transpose(1, 2)`` of more
    than one head and position): the run-time test would then only cost time."""
    chains = []
    for out in b.outputs:
        steps: list[Step] = []
        n: Any = out
        while n not in b.index:
            op = b.ops.get(n) if isinstance(n, Node) else None
            step = _step(b, n, op) if op is not None else None
            if step is None:
                return None
            steps.append(step)
            n = op.args[0]  # type: ignore[union-attr]
        if not steps:
            return None
        chains.append((b.index[n], steps[::-1]))
    if not any(_all_views(b, chains, k) for k in range(b.shapes.n)):
        return None
    return chains


def _all_views(b: Builder, chains: list[tuple[int, list[Step]]], k: int) -> bool:
    """Whether variant ``k``'s outputs are all views in eager, its inputs contiguous."""
    for j, steps in chains:
        t = torch.empty([d.vals[k] for d in b.shapes.dims[b.inputs[j]]], device="meta")
        for kind, arg in steps:
            if kind in ("contiguous", "view") and not t.is_contiguous():
                return False
            if kind == "view":
                t = t.view([d.vals[k] for d in arg])
            elif kind == "permute":
                t = t.permute(*arg)
            elif kind in ("unsqueeze", "squeeze"):
                t = getattr(t, kind)(arg)
    return True


def alias_lines(chains: list[tuple[int, list[Step]]]) -> list[str]:
    """Wrapper lines that return the outputs as views of the inputs where eager would: one
    ``is_contiguous()`` test before each step that needs a contiguous tensor and does not
    know it has one; falling through them all means the kernel copies."""
    lines: list[str] = []
    depth, results = 1, []
    for i, (j, steps) in enumerate(chains):
        value, contiguous = f"in{j}", False
        for k, (kind, arg) in enumerate(steps):
            pad = "    " * depth
            if kind in ("contiguous", "view") and not contiguous:
                lines.append(f"{pad}if {value}.is_contiguous():")
                depth, contiguous, pad = depth + 1, True, "    " * (depth + 1)
            if kind == "contiguous":
                continue
            new = f"a{i}_{k}"
            if kind == "view":
                dims = "(" + "".join(f"{d.expr}, " for d in arg).rstrip(" ") + ")"
                lines.append(f"{pad}{new} = {value}.view({dims})")
            elif kind == "permute":
                lines.append(f"{pad}{new} = {value}.permute({', '.join(map(str, arg))})")
                contiguous = contiguous and list(arg) == sorted(arg)
            else:  # unsqueeze / squeeze keep a contiguous tensor contiguous
                lines.append(f"{pad}{new} = {value}.{kind}({arg})")
            value = new
        results.append(value)
    ret = results[0] if len(results) == 1 else "(" + ", ".join(results) + ",)"
    lines.append("    " * depth + f"return {ret}")
    return lines
