"""What each name of a pass is bound to, as far as the static policy needs to know.

The write rule (``policy_writes``) needs to know whether a name holds an object new in this call:
a name cannot tell whether the object behind it outlives the call (a local can alias a module
dict, a parameter can be a default or the harness's own object, a plan cache hands back the
same value every call). So every binding of a name in its scope is classified by the expression
bound: a literal or comprehension, ``list()``/``dict()``/``set()`` (a fresh container), a torch
allocation (a fresh tensor), a new number, string or size, a finfo/iinfo or device object, or
anything else. These are pure functions over the AST; the walker supplies name resolution.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from passnet.integrity.policy_allow import (
    CONSUMERS,
    ITERATORS,
    METADATA_CALLS,
    NEW_TENSOR,
    TENSOR_FIELDS,
    TORCH_ALLOC,
    TORCH_DTYPES,
    TRITON_DTYPES,
    VALUE_CALLS,
)

Resolve = Callable[[ast.AST | None], "str | None"]
#: Binding kinds: fresh objects, immutable values (numbers, strings, sizes), the metadata
#: objects whose fields are readable (finfo/iinfo, devices), and anything else.
CONTAINER, TENSOR, VALUE, INFO, DEVICE, OTHER = (
    "container",
    "tensor",
    "value",
    "info",
    "device",
    "other",
)
FRESH = frozenset({CONTAINER, TENSOR})


def _targets(node: ast.AST) -> list[tuple[ast.AST, ast.AST | None]]:
    """(target, value) pairs a statement binds; value None when unknown (loops, imports...)."""
    if isinstance(node, ast.Assign):
        return [(t, node.value) for t in node.targets]
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        return [(node.target, node.value)]
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [(node.target, None)]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [(node.optional_vars, None)]
    return []


def _pairs(target: ast.AST, value: ast.AST | None) -> list[tuple[str, ast.AST | None]]:
    """Names bound by one target, each with its own value where a display unpacks evenly."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Starred):
        return _pairs(target.value, None)
    if not isinstance(target, (ast.Tuple, ast.List)):
        return []  # a subscript or attribute: a write, not a binding
    even = (
        isinstance(value, (ast.Tuple, ast.List))
        and len(value.elts) == len(target.elts)
        and not any(isinstance(e, ast.Starred) for e in value.elts)
    )
    values = value.elts if even else [None] * len(target.elts)  # type: ignore[union-attr]
    return [p for t, v in zip(target.elts, values, strict=True) for p in _pairs(t, v)]


def values_of(nodes: list[ast.AST]) -> dict[str, list[ast.AST | None]]:
    """Every name bound by an assignment, loop or ``with`` in a scope -> the values bound."""
    out: dict[str, list[ast.AST | None]] = {}
    for node in nodes:
        for target, value in _targets(node):
            for name, v in _pairs(target, value):
                out.setdefault(name, []).append(v)
    return out


def kinds_of(
    values: dict[str, list[ast.AST | None]],
    params: set[str],
    others: set[str],
    qual: Resolve,
    builtin: Callable[[ast.AST], str],
) -> dict[str, set[str]]:
    """Every name bound in a scope -> the kinds of its bindings (``values``: see
    :func:`values_of`; ``others``: names bound by defs, classes, imports, except clauses)."""
    kinds: dict[str, set[str]] = {n: {OTHER} for n in params | others}
    pairs = [(name, v) for name, vs in values.items() for v in vs]
    for _ in range(4):  # names bound from names: iterate to a fixed point
        new = {n: set(k) for n, k in kinds.items() if n in params | others}
        for name, value in pairs:
            new.setdefault(name, set()).add(kind(value, kinds, qual, builtin))
        if new == kinds:
            break
        kinds = new
    return kinds


def kind(
    expr: ast.AST | None,
    kinds: dict[str, set[str]],
    qual: Resolve,
    builtin: Callable[[ast.AST], str],
) -> str:
    """The kind of object ``expr`` evaluates to (``kinds``: the scope's names so far)."""
    if isinstance(expr, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return CONTAINER
    if isinstance(expr, ast.Call):
        if builtin(expr.func) in {"list", "dict", "set"}:
            return CONTAINER
        q = qual(expr.func)
        if q in TORCH_ALLOC or getattr(expr.func, "attr", None) in NEW_TENSOR and q is None:
            return TENSOR
        if q in {"torch.finfo", "torch.iinfo"}:
            return INFO
        if q == "torch.device":
            return DEVICE
    if isinstance(expr, ast.Attribute) and expr.attr == "device":
        return DEVICE
    return VALUE if is_value(expr, kinds, qual, builtin) else OTHER


def is_value(
    expr: ast.AST | None,
    kinds: dict[str, set[str]],
    qual: Resolve,
    builtin: Callable[[ast.AST], str],
) -> bool:
    """Whether ``expr`` is a new number, string, size or tuple of them: no shared object
    (arithmetic makes a new one; a pass's class may not overload operators)."""

    def value(e: ast.AST | None) -> bool:
        return is_value(e, kinds, qual, builtin)

    if isinstance(expr, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.UnaryOp)):
        return True
    if isinstance(expr, ast.Name):
        return kinds.get(expr.id, {OTHER}) <= {VALUE}
    if isinstance(expr, (ast.Tuple, ast.BoolOp)):
        return all(value(e) for e in getattr(expr, "elts", None) or expr.values)  # type: ignore
    if isinstance(expr, ast.IfExp):
        return value(expr.body) and value(expr.orelse)
    if isinstance(expr, ast.Subscript):
        return value(expr.value)
    if isinstance(expr, ast.Attribute):
        return expr.attr in TENSOR_FIELDS
    if not isinstance(expr, ast.Call):
        return False
    name, q = builtin(expr.func), qual(expr.func) or ""
    if name in {"min", "max", "sum"}:  # these return one of their arguments
        return all(value(a) for a in expr.args) and not expr.keywords
    if (
        name in VALUE_CALLS
        or q.startswith("math.")
        or q in {"triton.cdiv", "triton.next_power_of_2"}
    ):
        return True
    return isinstance(expr.func, ast.Attribute) and expr.func.attr in METADATA_CALLS


def fresh(kinds: dict[str, set[str]], name: str, only: frozenset[str] = FRESH) -> bool:
    """Every binding of ``name`` in the scope is a fresh object (of the ``only`` kinds)."""
    found = kinds.get(name)
    return bool(found) and found <= only  # type: ignore[operator]


def write_root(obj: ast.AST, calls: bool = False) -> ast.AST:
    """The name a written chain starts from (``a`` in ``a.b[0].c``); with ``calls``, through
    method calls too (``a.get(k)[0]``: what a method returns may be the object's state)."""
    while True:
        if isinstance(obj, (ast.Attribute, ast.Subscript)):
            obj = obj.value
        elif calls and isinstance(obj, ast.Call) and isinstance(obj.func, ast.Attribute):
            obj = obj.func.value
        else:
            return obj


def literal_default(expr: ast.AST, qual: Resolve) -> bool:
    """Numbers, strings, bytes, None, booleans, tuples of them, or a dtype: immutable."""
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return isinstance(expr.operand, ast.Constant)
    if isinstance(expr, ast.Tuple):
        return all(literal_default(e, qual) for e in expr.elts)
    return qual(expr) in TORCH_DTYPES | TRITON_DTYPES


def stored_iterator(
    node: ast.AST,
    parents: dict[ast.AST, ast.AST],
    imported: Callable[[ast.AST], bool],
    builtin: Callable[[ast.AST], str],
) -> bool:
    """An iterator (``map``/``zip``/... call or generator expression) that is not consumed
    where it is made: kept in a name it carries its position, a counter, across calls.
    ``imported``: whether a call goes to an allowed import (``math.prod``), which consumes it."""
    made = isinstance(node, ast.GeneratorExp) or (
        isinstance(node, ast.Call) and builtin(node.func) in ITERATORS
    )
    if not made:
        return False
    parent = parents.get(node)
    if isinstance(parent, ast.Starred):  # f(*zip(a, b)): an argument all the same
        node, parent = parent, parents.get(parent)
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
        return parent.iter is not node
    if isinstance(parent, ast.keyword):
        return True
    if isinstance(parent, ast.Call) and node in parent.args:  # allowed imports consume too
        name = builtin(parent.func) or getattr(parent.func, "attr", "")
        return name not in CONSUMERS and not imported(parent.func)
    return True
