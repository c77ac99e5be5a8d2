"""GraphNet meta files (weight_meta.py, input_meta.py): one class per forward argument.

Parsed with ``ast``, never executed, so reading a dataset runs none of its code; written in
upstream's class layout, which upstream tools exec. PassNet adds one optional attribute,
``stride``, for inputs whose layout is a permutation of a dense one (upstream ignores it).
"""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path
from typing import Any

import pydantic
import torch

from passnet.graph.source import parse_source


class SampleError(Exception):
    """A sample folder that cannot be read, materialised or run; names the file and the reason."""

    def __init__(self, file: Path | str, reason: str) -> None:
        self.file, self.reason = Path(file), reason
        super().__init__(f"{file}: {reason}")


def dtype_of(name: str) -> torch.dtype:
    """torch dtype of "float16" or "torch.float16"."""
    value = getattr(torch, name.removeprefix("torch."), None)
    if not isinstance(value, torch.dtype):
        raise ValueError(f"unknown dtype {name!r}")
    return value


def sample_stride(t: torch.Tensor) -> list[int] | None:
    """The strides a sample records for ``t``: a permuted dense layout (a transposed
    activation, channels-last) is kept, since eager and compilers pay for it differently
    (``contiguous()`` copies it); contiguous, expanded or gapped tensors are written contiguous."""
    stride = list(t.stride())
    return None if t.is_contiguous() or not _dense(list(t.shape), stride) else stride


def sample_layout(t: torch.Tensor) -> torch.Tensor:
    """A copy of ``t`` laid out as its cut sample will materialise it (``sample_stride``)."""
    keep = sample_stride(t) is not None  # clone's preserve_format keeps a dense layout as is
    return t.detach().clone(
        memory_format=torch.preserve_format if keep else torch.contiguous_format
    )


def _dense(shape: list[int], stride: list[int]) -> bool:
    """Every element has its own address and no address is skipped (some order of the dims)."""
    expected = 1
    for step, size in sorted((st, n) for n, st in zip(shape, stride, strict=True) if n != 1):
        if step != expected:
            return False
        expected *= size
    return math.prod(shape) > 0


class TensorMeta(pydantic.BaseModel):
    """One ``Program_weight_tensor_meta_*`` class: what a forward argument looks like."""

    model_config = pydantic.ConfigDict(extra="ignore")

    name: str
    shape: list[int]
    dtype: str
    device: str | None = None  # upstream always writes these three; its reader defaults them
    mean: float | None = None
    std: float | None = None
    min_val: float | int | None = None
    max_val: float | int | None = None
    data: list | None = None
    stride: list[int] | None = None  # PassNet extension (upstream ignores it): see sample_stride

    @pydantic.field_validator("dtype")
    @classmethod
    def _known_dtype(cls, value: str) -> str:
        return str(dtype_of(value))

    @pydantic.model_validator(mode="after")
    def _dense_stride(self) -> TensorMeta:
        if self.stride is not None and not (
            len(self.stride) == len(self.shape) and _dense(self.shape, self.stride)
        ):
            raise ValueError(f"stride {self.stride} is not a permuted dense layout of {self.shape}")
        return self

    @property
    def torch_dtype(self) -> torch.dtype:
        return dtype_of(self.dtype)


def _literal(node: ast.expr) -> Any:
    """Value of a literal expression, also ``inf``/``nan``, ``float("inf")`` and ``torch.x``."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    if isinstance(node, ast.Name) and node.id in ("inf", "nan"):
        return float(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_literal(node.operand)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "torch":
        return f"torch.{node.attr}"
    func = getattr(node, "func", None)
    if getattr(func, "id", None) == "float" and len(node.args) == 1 and not node.keywords:
        return float(_literal(node.args[0]))
    raise ValueError(f"not a literal: {ast.unparse(node)[:80]}")


def _pydantic_reason(error: pydantic.ValidationError) -> str:
    return "; ".join(
        f"missing field {'.'.join(map(str, e['loc']))}"
        if e["type"] == "missing"
        else f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
        for e in error.errors()
    )


def parse_meta_file(path: Path) -> list[TensorMeta]:
    """The meta classes of a weight_meta.py / input_meta.py, parsed without executing it."""
    try:
        tree = parse_source(path.read_text(encoding="utf-8"), str(path))
    except (SyntaxError, ValueError) as e:
        raise SampleError(path, f"unparsable: {e}") from e
    metas = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        attrs: dict[str, Any] = {}
        for stmt in node.body:
            if isinstance(stmt, (ast.Expr, ast.Pass)):  # docstring
                continue
            where = f"class {node.name}, line {stmt.lineno}"
            if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
                raise SampleError(path, f"{where}: not an attribute assignment")
            try:
                attrs[stmt.targets[0].id] = _literal(stmt.value)
            except (ValueError, TypeError) as e:
                raise SampleError(path, f"{where}: {e}") from e
        try:
            metas.append(TensorMeta(**attrs))
        except pydantic.ValidationError as e:
            raise SampleError(path, f"class {node.name}: {_pydantic_reason(e)}") from e
    return metas


def _number(value: Any, stat: bool = False) -> str:
    """A Python literal; statistics get upstream's 3 decimals, non-finite floats float("inf")."""
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'
    return f"{value:.3f}" if stat and value is not None else repr(value)


def _data(data: list | None) -> str:
    flat = torch.tensor(data).flatten().tolist() if data and isinstance(data[0], list) else data
    return "None" if flat is None else "[" + ", ".join(_number(x) for x in flat) + "]"


def format_metas(metas: list[TensorMeta]) -> str:
    """weight_meta.py text in upstream's class layout (upstream tools exec it)."""
    blocks, used = [], set()
    for meta in metas:
        cls = "Program_weight_tensor_meta_" + re.sub(r"\W", "_", meta.name)
        while cls in used:
            cls += "_"
        used.add(cls)
        lines = [
            f"class {cls}:",
            f"    name = {json.dumps(meta.name)}",
            f"    shape = {list(meta.shape)}",
            f'    dtype = "{meta.dtype}"',
            f"    device = {json.dumps(meta.device) if meta.device else None}",
            f"    mean = {_number(meta.mean, stat=True)}",
            f"    std = {_number(meta.std, stat=True)}",
            f"    data = {_data(meta.data)}",
        ] + ([f"    stride = {meta.stride}"] if meta.stride is not None else [])
        lines += [
            f"    {k} = {_number(v)}" for k, v in meta if k.endswith("_val") and v is not None
        ]
        blocks.append("\n".join(lines) + "\n")
    return "\n\n".join(blocks)


def format_constraints(metas: list[TensorMeta]) -> str:
    shapes = "".join(f"    ({list(m.shape)}, {json.dumps(m.name)}),\n" for m in metas)
    return (
        "dynamic_dim_constraint_symbols = []\n\n"
        "dynamic_dim_constraint_symbol2example_value = {}\n\n"
        "dynamic_dim_constraint_relations = []\n\n"
        f"dynamic_dim_constraint_input_shapes = [\n{shapes}]\n"
    )
