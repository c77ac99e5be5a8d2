"""What an FX call node computes, named and spelled one way, so calls can be compared.

A name per op with aliases unified (``torch._C._nn.linear`` is ``torch.nn.functional.linear``;
``operator.iadd`` is ``operator.add``: Dynamo records ``x += y`` as iadd, FX tracing as add),
and the arguments in positional form with defaults filled in, so ``F.layer_norm(x, s, w, b,
eps)`` and its keyword spelling compare equal. The matcher (``matcher.py``) and the
synthesizer's op table (``passnet.synth.ops``) both name ops this way.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import operator
import types
from typing import Any

import torch
from torch.fx import Node
from torch.fx.node import _get_qualified_name
from torch.fx.operator_schemas import get_signature_for_torch_op

_BINARY = "add sub mul truediv floordiv mod pow matmul and_ or_ xor lshift rshift".split()
INPLACE = {getattr(operator, "i" + n.rstrip("_")): getattr(operator, n) for n in _BINARY}
_PREFIX_ALIASES = {"_operator.": "operator.", "torch._C._nn.": "torch.nn.functional."}
_PREFIX_ALIASES["torch._C._VariableFunctions."] = "torch."


def call_name(node: Node) -> str:
    """Canonical name of what a node computes, with aliases and in-place operators unified."""
    if node.op == "call_method":
        return f"Tensor.{node.target}"
    if node.op != "call_function":
        return f"{node.op}:{node.target}" if node.op == "call_module" else node.op
    target = INPLACE.get(node.target, node.target)
    try:
        name = _get_qualified_name(target)
    except Exception:  # odd callables: fall back to what they say about themselves
        name = f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', target)}"
    for old, new in _PREFIX_ALIASES.items():
        if name.startswith(old):
            return new + name[len(old) :]
    return name


def short_name(key: str) -> str:
    """The name without its namespace, for messages (``layer_norm``, ``add``, ``.view``)."""
    for prefix in ("torch.nn.functional.", "operator.", "torch.", "Tensor"):  # Tensor.view: .view
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key


def _signatures(node: Node) -> list[inspect.Signature]:
    try:
        return _signatures_of(node.op, node.target)
    except TypeError:  # an unhashable target: not worth remembering
        return _signatures_of.__wrapped__(node.op, node.target)


@functools.lru_cache(maxsize=4096)
def _signatures_of(op: str, target: Any) -> list[inspect.Signature]:
    """The signatures a call binds against, per target (building them from torch's schemas
    was most of normalising a graph)."""
    if op == "call_method":  # x.transpose(1, 2) binds like torch.transpose(x, 1, 2)
        target = getattr(torch, str(target), None)
    if op not in ("call_function", "call_method") or target is None:
        return []
    with contextlib.suppress(Exception):
        if not isinstance(target, types.FunctionType) and (
            sigs := get_signature_for_torch_op(target)
        ):
            return list(sigs)
        return [inspect.signature(target)]
    return []


def normalized_args(node: Node) -> list[tuple[str, Any]]:
    """(label, value) per argument in positional form with defaults filled, for comparison."""
    for sig in _signatures(node):
        try:
            bound = sig.bind(*node.args, **node.kwargs)
        except TypeError:
            continue
        bound.apply_defaults()
        out: list[tuple[str, Any]] = []
        for name, p in sig.parameters.items():
            value = bound.arguments[name]
            if p.kind is p.VAR_POSITIONAL:
                out += [(f"{name}[{i}]", v) for i, v in enumerate(value)]
            elif p.kind is p.VAR_KEYWORD:
                out += [(f"{k}=", value[k]) for k in sorted(value)]
            else:
                out.append((f"{name}=" if p.kind is p.KEYWORD_ONLY else name, value))
        return out
    return [(str(i), a) for i, a in enumerate(node.args)] + [
        (f"{k}=", node.kwargs[k]) for k in sorted(node.kwargs)
    ]
