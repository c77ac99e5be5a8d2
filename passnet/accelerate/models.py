"""The model of ``passnet accelerate``: a zoo entry, or a user's ``module.py:factory``.

Zoo models build offline from installed code with random weights (passnet/dataset/zoo.py).
A factory is any function in a Python file returning ``(model, inputs)``, inputs a tuple of
positional arguments or a dict of keyword arguments; if it takes a ``batch`` parameter, the
``--batch`` value is passed to it.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from passnet.dataset.zoo import WIDTH_KEYS, Shape, ZooError, hidden_width, resolve

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


class ModelError(Exception):
    """MODEL names no zoo entry or no usable ``module.py:factory``."""


@dataclass
class LoadedModel:
    """A model in eval mode on its device, with the inputs of one call."""

    name: str
    model: torch.nn.Module
    args: tuple
    kwargs: dict[str, Any] = field(default_factory=dict)
    shape: str = ""

    def __call__(self, fn: Any = None) -> Any:
        return (self.model if fn is None else fn)(*self.args, **self.kwargs)


def load_model(
    spec: str,
    *,
    batch: int | None = None,
    size: int | None = None,
    device: str = "cpu",
    dtype: str = "float32",
    hidden: int | None = None,
) -> LoadedModel:
    """Build ``spec`` (a zoo name, or ``path/to/module.py:factory``) on ``device`` in ``dtype``;
    ``hidden``: a transformers zoo model's hidden size instead of its own."""
    if dtype not in DTYPES:
        raise ModelError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
    if ":" in spec and spec.split(":", 1)[0].endswith(".py"):
        if hidden is not None:
            raise ModelError("--hidden applies to transformers zoo models, not a factory")
        loaded = _from_factory(spec, batch)
    else:
        with hidden_width(hidden) as applied:
            loaded = _from_zoo(spec, batch, size)
        if hidden is not None and not applied:
            raise ModelError(f"{loaded.name}: no hidden size to set (--hidden applies to "
                             f"transformers zoo models whose config has one of "
                             f"{', '.join(WIDTH_KEYS)})")  # fmt: skip
        if hidden is not None:
            loaded.shape += f"-h{hidden}"
    model = loaded.model.to(device=device, dtype=DTYPES[dtype]).eval()
    loaded.model = model
    loaded.args = tuple(_move(a, device, DTYPES[dtype]) for a in loaded.args)
    loaded.kwargs = {k: _move(v, device, DTYPES[dtype]) for k, v in loaded.kwargs.items()}
    return loaded


def _move(value: Any, device: str, dtype: torch.dtype) -> Any:
    if isinstance(value, torch.Tensor):
        value = value.to(device)
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (tuple, list)):
        return type(value)(_move(v, device, dtype) for v in value)
    return value


def _from_zoo(name: str, batch: int | None, size: int | None) -> LoadedModel:
    try:
        zm = resolve(name)
    except ZooError as e:
        raise ModelError(f"{e} (or give path/to/module.py:factory)") from e
    if why := zm.unavailable():
        raise ModelError(f"{zm.name}: {why}")
    base = zm.shapes[0]
    shape = Shape(batch or base.batch, size or base.size)
    model = zm.build(shape)
    return LoadedModel(zm.name, model, tuple(zm.inputs(model, shape)), {}, shape.key)


def _from_factory(spec: str, batch: int | None) -> LoadedModel:
    file, func = spec.rsplit(":", 1)
    path = Path(file)
    if not path.is_file():
        raise ModelError(f"{file}: no such file (MODEL is a zoo name or module.py:factory)")
    name = f"_passnet_user_model_{abs(hash(path.resolve()))}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ModelError(f"{file}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as e:
        raise ModelError(f"{file}: import failed: {type(e).__name__}: {e}") from e
    factory = getattr(module, func, None)
    if not callable(factory):
        raise ModelError(f"{file}: no function {func!r} (expected {func}() -> (model, inputs))")
    takes_batch = "batch" in inspect.signature(factory).parameters
    result = factory(batch=batch) if takes_batch and batch is not None else factory()
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise ModelError(f"{spec}: must return (model, inputs), got {type(result).__name__}")
    model, inputs = result
    if not isinstance(model, torch.nn.Module):
        raise ModelError(f"{spec}: the model is a {type(model).__name__}, not a torch.nn.Module")
    if isinstance(inputs, dict):
        return LoadedModel(spec, model, (), dict(inputs))
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)):
        raise ModelError(
            f"{spec}: inputs must be a tuple, list or dict, not {type(inputs).__name__}"
        )
    return LoadedModel(spec, model, tuple(inputs))
