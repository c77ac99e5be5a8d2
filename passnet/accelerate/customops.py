"""A pass's replacement as a ``torch.library`` custom op, so Inductor compiles around it.

Inductor retraces a graph with fake tensors; a replacement that launches a Triton kernel cannot
run on those, and a plain Python call would be traced through. A custom op is opaque instead:
Inductor keeps it as one call (an extern kernel) and fuses the ops around it. Its fake
implementation is the rule's own *pattern* run on the fake inputs, so shapes, dtypes and
strides are eager's by construction. The real implementation is the library's guarded call
(``replacement_args``, the replacement, the pattern itself if a guard raises ValueError), and
the result is made to agree with that promise: an output aliasing an input is
copied (custom ops may not return views), an output whose strides differ from the pattern's is
copied into the pattern's layout (found once per input layout on the meta device), and a
shape or dtype the pattern does not produce is an error naming the rule. One op is registered
per rule, argument signature and binding of the rule's free literals (``passnet::<rule>_<hash>``:
the match's literals are constants of its op); inference only (no autograd formula). A rule
whose pattern writes one of its inputs in place (writes.py) declares that argument mutated
(``Tensor(a0!) a0``, ``mutates_args``): functionalization and Inductor then keep the write, in
the caller's tensor where the input is a graph input, and order that input's later reads
after it.

Where the replacement can be traced (tritonops.py: ``cached`` launches and allocation only, on
CUDA) the op is a ``torch.library.triton_op`` instead, which Inductor traces into and launches
itself; the opaque op is the fallback, and each fired site records which it got
(``OpReplacement.launch``: ``"inductor"`` or ``"custom-op"``, with the reason).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import dataclass
from typing import Any

import torch
from torch.fx import Node

from passnet.accelerate import tritonops
from passnet.accelerate.library import LibraryRule, binding_key
from passnet.passes.matcher import Match, Replacement

NAMESPACE = "passnet"
_counter = itertools.count()
_NAMES: set[str] = set()  # op names registered in this process
# (id(rule), schema, binding) -> (rule, op, launch, why): rule kept alive
_OPS: dict[tuple[int, str, str], tuple[Any, Any, str, str]] = {}


@dataclass
class OpReplacement(Replacement):
    """A match's call through a registered op: ``launch`` says who launches its kernels
    (``"inductor"``: a triton op Inductor traced; ``"custom-op"``: the opaque op, ``why``)."""

    launch: str = "custom-op"
    why: str = ""


def _example(node: Node) -> Any:
    """The value Dynamo (``example_value``) or make_fx (``val``) recorded for a node."""
    return node.meta.get("example_value", node.meta.get("val"))


def _arg_type(value: Any) -> str | None:
    if isinstance(value, torch.Tensor):
        return "Tensor"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, torch.SymInt)):
        return "SymInt"
    if isinstance(value, (float, torch.SymFloat)):
        return "float"
    return None


def op_target(r: LibraryRule, m: Match) -> Replacement | str:
    """The custom op to call for one match, or why the rule's plain function must be used."""
    where = f"{r.label} at node {m.outputs[0].name}"
    types = []
    for node in m.inputs:
        kind = _arg_type(_example(node))
        if kind is None:
            what = type(_example(node)).__name__ if _example(node) is not None else "value"
            return f"{where}: input '{node.name}' is a {what} (no recorded tensor, int or float), which a custom op cannot take"
        types.append(kind)
    for i in r.writes:
        if types[i] != "Tensor":
            return (f"{where}: input '{m.inputs[i].name}', which the rule writes in place, is "
                    f"a {types[i]}, not a tensor")  # fmt: skip
    outs = [_example(n) for n in m.outputs]
    if not all(isinstance(o, torch.Tensor) for o in outs):
        return f"{where}: an output of the match is not a tensor"
    ret = "Tensor" if len(outs) == 1 else f"({', '.join(['Tensor'] * len(outs))})"
    schema = f"({', '.join(_arg(t, i, i in r.writes) for i, t in enumerate(types))}) -> {ret}"
    key = (id(r.rule), schema, binding_key(m.bound))
    if key not in _OPS:
        examples = [_example(n) for n in m.inputs]
        try:
            _OPS[key] = (r.rule, *_register(r, schema, types, len(outs), dict(m.bound), examples))
        except Exception as e:  # noqa: BLE001 - any refusal means: run this graph eagerly
            return f"{where}: torch.library refused the op {schema}: {type(e).__name__}: {e}"
    _, op, launch, why = _OPS[key]
    return OpReplacement(op, r.rule.name, None, keywords=False, launch=launch, why=why)


def _arg(kind: str, i: int, written: bool) -> str:
    """One argument of the op's schema: ``Tensor(a0!) a0`` for an input the rule writes."""
    return f"Tensor(a{i}!) a{i}" if written else f"{kind} a{i}"


def mutated_args(r: LibraryRule) -> tuple[str, ...]:
    """The op's arguments the rule's replacement writes in place (writes.py): the op takes the
    match's inputs in the pattern's order, ``a0, a1, ...``."""
    return tuple(f"a{i}" for i in sorted(r.writes))


def _register(
    r: LibraryRule, schema: str, types: list[str], n_out: int, bound: dict[str, Any],
    examples: list[Any],
) -> tuple[Any, str, str]:  # fmt: skip
    """(op, launch, why) for one signature and one binding of the rule's free literals
    (``bound``): a triton op where the replacement traces, else the opaque custom op. Both
    declare the inputs the rule writes (``mutated_args``), so functionalization and Inductor
    keep the write and order the input's later reads after it."""
    name = _op_name(r, schema, bound)
    mutates = mutated_args(r)
    layouts: dict[tuple, list | None] = {}
    pattern = r.pattern_for(bound)

    def traced_conform(out: Any, args: tuple) -> Any:
        outs = list(out) if n_out > 1 else [out]
        expected = _layouts(pattern, args, layouts)
        fixed = tuple(_conform_traced(o, args, None if expected is None else expected[i])
                      for i, o in enumerate(outs))  # fmt: skip
        return fixed if n_out > 1 else fixed[0]

    why = tritonops.traceable_here(examples)
    if not why:
        qualname = f"{NAMESPACE}::{name}_t"
        eager = _eager_impl(r, n_out, bound, pattern, layouts)
        try:
            tritonops.register(r, qualname, types, n_out, bound, eager, traced_conform, examples,
                               mutates)  # fmt: skip
            return getattr(getattr(torch.ops, NAMESPACE), f"{name}_t").default, "inductor", ""
        except tritonops.NotTraceable as e:
            why = str(e)
        except Exception as e:  # noqa: BLE001 - torch.library refusing it: the opaque op
            why = f"{r.label}: no triton op: {type(e).__name__}: {str(e)[:300]}"
    impl = _eager_impl(r, n_out, bound, pattern, layouts)

    def fake(*args: Any) -> Any:
        out = pattern(*args)
        outs = list(out) if n_out > 1 else [out]
        fresh = tuple(o.new_empty_strided(o.size(), o.stride()) for o in outs)
        return fresh if n_out > 1 else fresh[0]

    op = torch.library.custom_op(f"{NAMESPACE}::{name}", impl, mutates_args=mutates,
                                 schema=schema)  # fmt: skip
    op.register_fake(fake)
    return getattr(getattr(torch.ops, NAMESPACE), name).default, "custom-op", why


def _op_name(r: LibraryRule, schema: str, bound: dict[str, Any]) -> str:
    """``<rule>_<hash>``: the hash of the pass folder's sources, the signature and the binding,
    so one name means one implementation in every process. Compile caches key a graph by its
    ops' names (AOTAutograd's cache does for triton ops, whose kernels Inductor inlines): a
    counter would give another library's rule the same name in the next process. A name taken
    in this process (the same rule loaded twice) gets a counter too."""
    h = hashlib.sha256(f"{schema}|{binding_key(bound)}".encode() + r.sources())
    name = f"{re.sub(r'[^0-9A-Za-z_]', '_', r.rule.name)}_{h.hexdigest()[:12]}"
    if name in _NAMES:
        name += f"_{next(_counter)}"
    _NAMES.add(name)
    return name


def _eager_impl(
    r: LibraryRule, n_out: int, bound: dict[str, Any], pattern: Any, layouts: dict
) -> Any:
    """The op on real tensors: the library's guarded call, outputs made the pattern's."""

    def impl(*args: Any) -> Any:
        out = r.call(*args, **bound)  # a guard's ValueError runs the pattern instead (library.py)
        outs = list(out) if n_out > 1 else [out]
        if len(outs) != n_out:
            raise RuntimeError(
                f"{r.label}: replacement returned {len(outs)} values, pattern {n_out}"
            )
        expected = _layouts(pattern, args, layouts)
        fixed = tuple(_conform(o, args, None if expected is None else expected[i], r.label)
                      for i, o in enumerate(outs))  # fmt: skip
        return fixed if n_out > 1 else fixed[0]

    return impl


def _layouts(pattern: Any, args: tuple, cache: dict[tuple, list | None]) -> list | None:
    """(shape, stride, dtype) of each pattern output for these input layouts (meta device),
    cached per layout; sizes that are symbols (a trace under a shape environment, where a
    ``SymInt`` does not hash) are worked out every time."""
    key = tuple(
        (tuple(a.shape), a.stride(), a.dtype) if isinstance(a, torch.Tensor) else a for a in args
    )
    try:
        hit = cache.get(key, _MISSING)
    except TypeError:  # unhashable: a symbolic size
        return _layouts_of(pattern, args)
    if hit is _MISSING:
        hit = cache[key] = _layouts_of(pattern, args)
    return hit  # type: ignore[return-value]


_MISSING = object()


def _layouts_of(pattern: Any, args: tuple) -> list | None:
    try:
        metas = [
            torch.empty_strided(a.shape, a.stride(), dtype=a.dtype, device="meta")
            if isinstance(a, torch.Tensor)
            else a
            for a in args
        ]
        out = pattern(*metas)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        return [(tuple(o.shape), o.stride(), o.dtype) for o in outs]
    except Exception:  # noqa: BLE001 - an op without a meta kernel: no layout check
        return None


def _conform_traced(out: Any, args: tuple, expected: tuple | None) -> torch.Tensor:
    """``_conform`` on fake tensors (no data pointers): a copy where the output is an input or
    a view of one, or its strides are not the pattern's."""
    if not isinstance(out, torch.Tensor):
        raise RuntimeError(f"replacement returned a {type(out).__name__}, not a tensor")
    aliased = any(isinstance(a, torch.Tensor) and torch._C._is_alias_of(out, a) for a in args)
    if expected is None:
        return out.clone() if aliased else out
    shape, stride, dtype = expected
    if tuple(out.shape) != shape or out.dtype != dtype:
        raise RuntimeError(f"replacement returned {tuple(out.shape)} {out.dtype}, "
                           f"its pattern gives {shape} {dtype}")  # fmt: skip
    if aliased or not _same_strides(shape, out.stride(), stride):
        return torch.empty_strided(shape, stride, dtype=dtype, device=out.device).copy_(out)
    return out


def _same_strides(shape: tuple, a: tuple, b: tuple) -> bool:
    return all(n <= 1 or x == y for n, x, y in zip(shape, a, b, strict=True))


def _conform(out: Any, args: tuple, expected: tuple | None, label: str) -> torch.Tensor:
    if not isinstance(out, torch.Tensor):
        raise RuntimeError(f"{label}: replacement returned a {type(out).__name__}, not a tensor")
    aliased = any(
        isinstance(a, torch.Tensor)
        and a.untyped_storage().data_ptr() == out.untyped_storage().data_ptr()
        for a in args
    )
    if expected is None:
        return out.clone() if aliased else out
    shape, stride, dtype = expected
    if tuple(out.shape) != shape or out.dtype != dtype:
        raise RuntimeError(
            f"{label}: replacement returned {tuple(out.shape)} {out.dtype}, "
            f"its pattern gives {shape} {dtype}"
        )
    if aliased or not _same_strides(shape, out.stride(), stride):
        fixed = torch.empty_strided(shape, stride, dtype=dtype, device=out.device)
        return fixed.copy_(out)
    return out
