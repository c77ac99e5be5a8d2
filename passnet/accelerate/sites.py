"""The fusion sites a model offers, found in the FX graph Dynamo captured, to say how many of
them a library covers (``passnet accelerate``'s coverage line, the zoo table).

Three kinds, each with the nodes a rule must replace to have fused it:

- ``add+layer_norm``: a LayerNorm whose input is an add (the residual add before a
  transformer's norm): the add and the ``layer_norm``.
- ``add+rms_norm``: an RMSNorm (``rms_norm``, or the ``pow(2).mean(-1)``, ``rsqrt``, ``mul``
  that Hugging Face's Llama and T5 norms are written as) whose input is an add: the add and the
  norm's ``rms_norm`` or ``rsqrt``.
- ``bias+activation``: an activation (GELU, ReLU, SiLU, the tanh of GPT-2's GELU formula, the
  sigmoid of CLIP's quick GELU ``y * sigmoid(1.702 * y)``) of a bias add, or of a linear
  layer or ``addmm`` that adds a bias (through views): the activation, and the add where the
  bias is added by one.

A site is covered when one fired match holds all of its nodes.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass

import torch
from torch.fx import Graph, Node

KINDS = ("add+layer_norm", "add+rms_norm", "bias+activation")
_ADDS = {operator.add, operator.iadd, torch.add, "add", "add_"}
_MULS = {operator.mul, torch.mul, "mul"}
_ACTS = {"gelu", "relu", "relu_", "silu", "silu_", "tanh", "sigmoid", "gelu_", "hardswish"}
_VIEWS = {"view", "reshape", "contiguous", "to", "float", "type", "dropout", "clone"}


@dataclass(frozen=True)
class Site:
    kind: str
    nodes: tuple[str, ...]  # what a match must replace to have fused the site
    anchor: str  # the node that names it (the norm, the activation)


def _name(node: Node) -> str:
    t = node.target
    return t if isinstance(t, str) else getattr(t, "__name__", str(t))


def _is(node: object, names: Iterable[object]) -> bool:
    if not isinstance(node, Node) or node.op not in ("call_function", "call_method"):
        return False
    return node.target in names or _name(node) in names  # type: ignore[operator]


def _through_views(node: object, depth: int = 4) -> object:
    """The producer of ``node`` behind views, casts and eval dropouts."""
    while depth and isinstance(node, Node) and _is(node, _VIEWS) and node.args:
        node, depth = node.args[0], depth - 1
    return node


def _rms_input(rsqrt: Node) -> Node | None:
    """The tensor an ``x * rsqrt(x.pow(2).mean(-1) + eps)`` norm normalises, or None."""
    arg = rsqrt.args[0] if rsqrt.args else None
    if _is(arg, _ADDS):  # var + eps
        arg = next((a for a in arg.args if isinstance(a, Node)), None)  # type: ignore[union-attr]
    if not _is(arg, {"mean"}):
        return None
    pw = arg.args[0]  # type: ignore[union-attr]
    if not _is(pw, {"pow", torch.pow}):
        return None
    src = _through_views(pw.args[0])  # type: ignore[union-attr]
    return src if isinstance(src, Node) else None


def _has_bias(node: object) -> bool:
    """A linear layer with a bias, or ``addmm`` (whose first argument is the bias)."""
    if _is(node, {"linear"}):
        bias = node.args[2] if len(node.args) > 2 else node.kwargs.get("bias")  # type: ignore[union-attr]
        return bias is not None
    return _is(node, {"addmm"})


def _tanh_gelu_root(tanh: Node) -> object:
    """``x`` of GPT-2's ``0.5 * x * (1 + tanh(c * (x + 0.044715 * x ** 3)))``: the tanh's
    argument is a mul whose add adds ``x`` to a multiple of ``x ** 3``."""
    arg = tanh.args[0] if tanh.args else None
    if not _is(arg, _MULS):
        return None
    inner = next((a for a in arg.args if _is(a, _ADDS)), None)  # type: ignore[union-attr]
    if inner is None:
        return None
    return next((a for a in inner.args if isinstance(a, Node) and not _is(a, _MULS)), None)


def _scaled_root(sigmoid: Node) -> object:
    """``y`` of CLIP's quick GELU ``y * sigmoid(1.702 * y)``: the sigmoid's argument is ``y``
    times a number; else the sigmoid's own argument."""
    arg = sigmoid.args[0] if sigmoid.args else None
    if _is(arg, _MULS):
        tensors = [a for a in arg.args if isinstance(a, Node)]  # type: ignore[union-attr]
        numbers = [a for a in arg.args if isinstance(a, (int, float))]  # type: ignore[union-attr]
        if len(tensors) == 1 and len(numbers) == 1:
            return tensors[0]
    return arg


def find_sites(graph: Graph) -> list[Site]:
    """Every site of the three kinds in ``graph``, in graph order."""
    out: list[Site] = []
    for node in graph.nodes:
        if _is(node, {"layer_norm"}) and node.args and _is(node.args[0], _ADDS):
            out.append(Site("add+layer_norm", (node.args[0].name, node.name), node.name))
        elif _is(node, {"rms_norm"}) and node.args and _is(node.args[0], _ADDS):
            out.append(Site("add+rms_norm", (node.args[0].name, node.name), node.name))
        elif _is(node, {"rsqrt", torch.rsqrt}):
            src = _rms_input(node)
            if src is not None and _is(src, _ADDS):
                out.append(Site("add+rms_norm", (src.name, node.name), node.name))
        elif _is(node, _ACTS) and node.args:
            name = _name(node)
            src = (_tanh_gelu_root(node) if name == "tanh"
                   else _scaled_root(node) if name == "sigmoid" else node.args[0])  # fmt: skip
            if name == "tanh" and src is None:
                continue  # a plain tanh (BERT's pooler), no GELU
            src = _through_views(src)
            if _is(src, _ADDS):
                out.append(Site("bias+activation", (src.name, node.name), node.name))  # type: ignore[union-attr]
            elif _has_bias(src):
                out.append(Site("bias+activation", (node.name,), node.name))
    return out


def coverage(sites: list[Site], fired: Iterable[Iterable[str]]) -> dict[str, tuple[int, int]]:
    """Per kind: (sites found, sites whose nodes one fired match holds)."""
    matches = [set(nodes) for nodes in fired]
    out = {k: (0, 0) for k in KINDS}
    for s in sites:
        found, covered = out[s.kind]
        hit = any(set(s.nodes) <= m for m in matches)
        out[s.kind] = (found + 1, covered + hit)
    return out
