"""The one FX tracer of PassNet: every torch call that runs in ``model.py`` stays a graph node.

Plain ``torch.fx.symbolic_trace`` runs a torch call whose arguments hold no Proxy
(``torch.ones(...)``, ``torch.arange(n)``, ``torch.tensor(1.0)``) once, at trace time, and
stores the result as a constant. The traced graph then skips work that ``model.py`` does on
every call: a candidate traced that way is timed against a reference that still does it, and
gets a speedup for free (eager against itself measured 1.6-1.7x on a Falcon causal-mask task).
Dynamo, which produced ``model.py``, recorded those calls as graph nodes; this tracer keeps
them as nodes too, so the dataset's cuts, the reference and every candidate agree.
"""

from __future__ import annotations

import contextlib
import operator
import types
from collections.abc import Iterator
from typing import Any

import torch
import torch.fx


class _TorchView:
    """Stands in for the ``torch`` module while tracing, so that every torch call is a node."""

    def __init__(self, real: types.ModuleType, tracer: torch.fx.Tracer) -> None:
        self._real, self._tracer = real, tracer

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._real, name)
        if isinstance(value, types.ModuleType):
            return _TorchView(value, self._tracer)
        if callable(value) and not isinstance(value, type):
            return _Recorder(value, self._tracer)
        if value is torch.Size:
            return _SizeOf(self._tracer)
        return value


class _SizeOf:
    """``torch.Size([s0, s1])`` with traced sizes becomes a node (the real type otherwise);
    Dynamo writes it into model.py for dynamic shapes (torchvision's FCN)."""

    def __init__(self, tracer: torch.fx.Tracer) -> None:
        self._tracer = tracer

    def __call__(self, *args: Any) -> Any:
        found: list = []
        torch.fx.node.map_aggregate(args, found.append)
        if any(isinstance(a, torch.fx.Proxy) for a in found):
            return self._tracer.create_proxy("call_function", torch.Size, args, {})
        return torch.Size(*args)

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, torch.Size)


class _Recorder:
    """A torch callable that becomes a graph node when called; its callable attributes record
    too, so an operator packet keeps its overloads (``torch.ops.aten.sym_size.int``)."""

    def __init__(self, value: Any, tracer: torch.fx.Tracer) -> None:
        self._value, self._tracer = value, tracer

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._tracer.create_proxy("call_function", self._value, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._value, name)
        return (
            _Recorder(attr, self._tracer) if callable(attr) and not isinstance(attr, type) else attr
        )


class NodeTracer(torch.fx.Tracer):
    """``torch.fx.Tracer`` that records constant-argument torch calls (see ``_TorchView``).

    The swap of ``torch`` applies to the module namespace of ``forward`` (a GraphNet
    ``model.py``); code that names torch otherwise traces as under plain ``symbolic_trace``."""

    def trace(self, root: Any, concrete_args: Any = None) -> torch.fx.Graph:
        forward = getattr(root, "forward", root)
        namespace = getattr(getattr(forward, "__func__", forward), "__globals__", {})
        real = namespace.get("torch")
        with _item_assignment():
            if real is not torch:
                return super().trace(root, concrete_args)
            namespace["torch"] = _TorchView(torch, self)
            try:
                return super().trace(root, concrete_args)
            finally:
                namespace["torch"] = real


def _setitem(self: torch.fx.Proxy, key: Any, value: Any) -> None:
    self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})


@contextlib.contextmanager
def _item_assignment() -> Iterator[None]:
    """``x[i] = y`` on a traced tensor becomes an ``operator.setitem`` node (FX keeps it: it
    is side-effectful). Dynamo writes such assignments into model.py (timm's ConViT, Swin);
    plain ``symbolic_trace`` fails on them ("'Proxy' object does not support item
    assignment")."""
    had = "__setitem__" in vars(torch.fx.Proxy)
    if had:
        yield
        return
    torch.fx.Proxy.__setitem__ = _setitem  # type: ignore[attr-defined]
    try:
        yield
    finally:
        del torch.fx.Proxy.__setitem__


def trace_module(module: torch.nn.Module) -> torch.fx.GraphModule:
    """``module`` as a GraphModule, one placeholder per forward argument, torch calls kept."""
    graph = NodeTracer().trace(module)
    return torch.fx.GraphModule(module, graph, type(module).__name__)
