"""What a forward argument means, read from how ``model.py`` uses it: the valid range of its values.

A meta records a value's statistics, not its meaning, and statistics rounded to 3 decimals lose
it: a dropout probability recorded as mean 0.000 drawn with noise goes negative (F.dropout
raises), an eps of 0.001 recorded as 0.000 goes negative (batch_norm raises). GraphNet samples
pass such values as forward arguments (``p.item()`` then ``dropout(x, p=item)``), so the call
they end up in says what they are. :func:`value_ranges` reads model.py's ``ast`` (nothing is
executed), follows each argument through renames and value-preserving calls (``.item()``,
``.to(...)``, ``float(...)``, views) and returns, per argument, the range its role demands:

* the ``eps`` of a normalisation: positive;
* a batch/instance norm ``running_var``: non-negative;
* a dropout ``p`` / ``dropout_p``, a norm ``momentum``, a ``bernoulli`` probability: [0, 1];
* the indices of ``embedding`` / ``index_select``: [0, size - 1] of the indexed dimension,
  when that tensor is itself a forward argument (its meta has the shape).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from passnet.graph.source import parse_source


@dataclass(frozen=True)
class ValueRange:
    """Inclusive bounds (``None``: unbounded); ``positive``: the low bound 0 is excluded."""

    low: float | None = None
    high: float | None = None
    positive: bool = False
    why: str = ""

    def meet(self, other: ValueRange) -> ValueRange:
        lows = [v for v in (self.low, other.low) if v is not None]
        highs = [v for v in (self.high, other.high) if v is not None]
        return ValueRange(
            max(lows) if lows else None,
            min(highs) if highs else None,
            self.positive or other.positive,
            "; ".join(w for w in (self.why, other.why) if w),
        )


EPS = ValueRange(0.0, None, positive=True)
NON_NEGATIVE = ValueRange(0.0, None)
PROBABILITY = ValueRange(0.0, 1.0)

# Parameter names, in positional order: torch.nn.functional's signatures, and ATen's
# (torch.batch_norm, torch._C._nn.*, torch.ops.aten.*) where they differ.
_FUNCTIONAL: dict[str, tuple[str, ...]] = {
    "batch_norm": ("input", "running_mean", "running_var", "weight", "bias", "training",
                   "momentum", "eps"),
    "instance_norm": ("input", "running_mean", "running_var", "weight", "bias",
                      "use_input_stats", "momentum", "eps"),
    "layer_norm": ("input", "normalized_shape", "weight", "bias", "eps"),
    "group_norm": ("input", "num_groups", "weight", "bias", "eps"),
    "rms_norm": ("input", "normalized_shape", "weight", "eps"),
    "scaled_dot_product_attention": ("query", "key", "value", "attn_mask", "dropout_p"),
    "embedding": ("input", "weight"),
    "index_select": ("input", "dim", "index"),
    "bernoulli": ("input", "p"),
    **dict.fromkeys(
        ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
         "feature_alpha_dropout"),
        ("input", "p", "training", "inplace"),
    ),
}  # fmt: skip
_ATEN: dict[str, tuple[str, ...]] = _FUNCTIONAL | {
    "batch_norm": ("input", "weight", "bias", "running_mean", "running_var", "training",
                   "momentum", "eps"),
    "native_batch_norm": ("input", "weight", "bias", "running_mean", "running_var",
                          "training", "momentum", "eps"),
    "instance_norm": ("input", "weight", "bias", "running_mean", "running_var",
                      "use_input_stats", "momentum", "eps"),
    "embedding": ("weight", "indices"),
}  # fmt: skip
_ROLES = {"eps": EPS, "running_var": NON_NEGATIVE, "momentum": PROBABILITY, "p": PROBABILITY,
          "dropout_p": PROBABILITY}  # fmt: skip
# Calls whose result holds the same values as their receiver (or sole argument).
_SAME_VALUES = {"item", "to", "float", "double", "half", "bfloat16", "long", "int", "type",
                "type_as", "contiguous", "clone", "detach", "view", "reshape", "flatten",
                "squeeze", "unsqueeze", "expand", "expand_as"}  # fmt: skip


def _dotted(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _signature(func: ast.expr) -> tuple[str, tuple[str, ...]] | None:
    path = _dotted(func)
    if not path:
        return None
    name = path.rsplit(".", 1)[-1]
    if name.endswith("_") and name[:-1] in _FUNCTIONAL:  # in-place dropout_ etc.
        name = name[:-1]
    functional = "functional" in path or path.startswith("F.")
    if isinstance(func, ast.Attribute) and not (path.startswith(("torch.", "F."))):
        return None  # a method (x.index_select(...)): the receiver is not an argument here
    params = (_FUNCTIONAL if functional else _ATEN).get(name)
    return (name, params) if params else None


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(stmt, field, []) or [])


class _Reader:
    def __init__(self, args: Sequence[str], shapes: Mapping[str, Sequence[int]]) -> None:
        self.alias: dict[str, str] = {a: a for a in args}
        self.shapes = shapes
        self.ranges: dict[str, ValueRange] = {}

    def root(self, node: ast.expr | None) -> str | None:
        """The forward argument whose values ``node`` holds, if any."""
        if isinstance(node, ast.Name):
            return self.alias.get(node.id)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in _SAME_VALUES:
                return self.root(node.func.value)
            if isinstance(node.func, ast.Name) and node.func.id in ("float", "int"):
                return self.root(node.args[0]) if len(node.args) == 1 else None
        return None

    def add(self, node: ast.expr | None, rng: ValueRange) -> None:
        if (arg := self.root(node)) is not None:
            old = self.ranges.get(arg)
            self.ranges[arg] = rng if old is None else old.meet(rng)

    def call(self, call: ast.Call) -> None:
        found = _signature(call.func)
        if found is None:
            return
        name, params = found
        given = dict(zip(params, call.args, strict=False))
        given |= {k.arg: k.value for k in call.keywords if k.arg}
        where = f"{name} at line {call.lineno}"
        for param, role in _ROLES.items():
            if param in given:
                self.add(given[param], ValueRange(role.low, role.high, role.positive,
                                                  f"{param} of {where}"))  # fmt: skip
        if name == "bernoulli" and "p" not in given:
            self.add(given.get("input"), ValueRange(0.0, 1.0, why=f"input of {where}"))
        if name == "embedding":
            self._index(given.get("input", given.get("indices")), given.get("weight"), 0, where)
        if name == "index_select" and isinstance(dim := given.get("dim"), ast.Constant):
            self._index(given.get("index"), given.get("input"), dim.value, where)

    def _index(self, index: ast.expr | None, table: ast.expr | None, dim, where: str) -> None:
        shape = self.shapes.get(self.root(table) or "")
        if isinstance(dim, int) and shape and -len(shape) <= dim < len(shape):
            size = shape[dim]
            self.add(index, ValueRange(0, max(size - 1, 0), why=f"index of {where}"))

    def statement(self, stmt: ast.stmt) -> None:
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.expr):
            for node in ast.walk(value):
                if isinstance(node, ast.Call):
                    self.call(node)
        if isinstance(stmt, ast.Assign):
            source = self.root(stmt.value)
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    if source is None:
                        self.alias.pop(target.id, None)
                    else:
                        self.alias[target.id] = source


def value_ranges(
    code: str | ast.Module, args: Sequence[str], shapes: Mapping[str, Sequence[int]]
) -> dict[str, ValueRange]:
    """The range each forward argument's role in ``GraphModule.forward`` demands (see module
    docstring); arguments with no recognised role are left out. ``shapes``: argument shapes,
    for index bounds. An unparsable model.py gives no ranges (loading it reports the error)."""
    try:
        tree = parse_source(code) if isinstance(code, str) else code
    except SyntaxError:
        return {}
    cls = next((n for n in tree.body if getattr(n, "name", "") == "GraphModule"), None)
    forward = next(
        (n for n in getattr(cls, "body", []) if getattr(n, "name", "") == "forward"), None
    )
    if not isinstance(forward, ast.FunctionDef):
        return {}
    reader = _Reader(args, shapes)
    for stmt in _statements(forward.body):
        reader.statement(stmt)
    return reader.ranges
