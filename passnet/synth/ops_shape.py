"""Ops that move or make data without arithmetic: views, getitem, cat and constant fills.

Classified here for :func:`passnet.synth.ops.classify`: the views ``reshape``, ``permute``,
``unsqueeze``, ``squeeze``, ``expand`` (pure index arithmetic in the kernel), ``getitem`` (ints,
unit-step slices, None, Ellipsis), ``cat`` (each operand at its shifted coordinate, the result
chosen by where) and ``fill`` (``new_zeros``/``new_ones``/``new_full`` over literal sizes).
"""

from __future__ import annotations

from typing import Any

import torch
from torch.fx import Node

from passnet.synth.op_model import Op, bind, scalar, varargs


def view_op(key: str, node: Node, rank: int) -> Op | str | None:
    if key in ("Tensor.view", "Tensor.reshape", "torch.reshape"):
        shape = varargs(node)
        if shape is None:
            return f"{key.split('.')[-1]} to a computed shape"
        return Op("reshape", "reshape", [node.args[0]], {"shape": shape})
    if key in ("Tensor.flatten", "torch.flatten"):
        b = bind(node, ["input", "start_dim", "end_dim"], {"start_dim": 0, "end_dim": -1})
        if b is None:
            return "flatten with unexpected arguments"
        start, end = b["start_dim"] % max(rank, 1), b["end_dim"] % max(rank, 1)
        return Op("reshape", "flatten", [b["input"]], {"flatten": (start, end)})
    if key in ("Tensor.permute", "torch.permute"):
        dims = varargs(node) if key.startswith("Tensor") else _varargs_fn(node)
        if dims is None or sorted(d % rank for d in dims) != list(range(rank)):
            return "permute with unexpected dims"
        return Op("permute", "permute", [node.args[0]], {"perm": [d % rank for d in dims]})
    if key in ("Tensor.transpose", "torch.transpose"):
        b = bind(node, ["input", "dim0", "dim1"], {})
        if b is None:
            return "transpose with unexpected arguments"
        perm = list(range(rank))
        a, c = b["dim0"] % rank, b["dim1"] % rank
        perm[a], perm[c] = perm[c], perm[a]
        return Op("permute", "transpose", [b["input"]], {"perm": perm})
    if key in ("Tensor.unsqueeze", "torch.unsqueeze", "Tensor.squeeze", "torch.squeeze"):
        name = key.split(".")[-1]
        b = bind(node, ["input", "dim"], {})
        if b is None or not isinstance(b["dim"], int):
            return f"{name} without one dim"
        out_rank = rank + 1 if name == "unsqueeze" else rank
        return Op(name, name, [b["input"]], {"dim": b["dim"] % out_rank})
    if key == "operator.getitem":
        return _getitem(node, rank)
    if key in ("Tensor.reshape_as", "Tensor.view_as", "Tensor.expand_as"):
        b = bind(node, ["input", "other"], {})
        if b is None or not isinstance(b["other"], Node):
            return f"{key.split('.')[-1]} without a tensor"
        kind = "expand" if key.endswith("expand_as") else "reshape"
        return Op(kind, kind, [b["input"]], {"like": b["other"]})  # the other's shape only
    if key == "Tensor.expand":
        sizes = varargs(node)
        if sizes is None or len(sizes) < rank:
            return "expand to a computed shape"
        return Op("expand", "expand", [node.args[0]], {"sizes": sizes})
    if key in ("torch.cat", "torch.concat", "torch.concatenate"):
        return _cat(node, rank)
    return _fill(key, node)


_FILLS = {"Tensor.new_zeros": 0.0, "Tensor.new_ones": 1.0, "Tensor.new_full": None}


def _fill(key: str, node: Node) -> Op | str | None:
    """``x.new_zeros(sizes)``, ``new_ones``, ``new_full(sizes, v)``: a constant over literal
    sizes in ``x``'s dtype and device (``x`` is read for those only)."""
    if key not in _FILLS:
        return None
    name = key.rsplit(".", 1)[-1]
    value = _FILLS[key]
    if value is None:  # new_full(size, fill_value)
        b = bind(node, ["input", "size", "fill_value"], {})
        if b is None or not scalar(b["fill_value"]):
            return f"{name} with a tensor or missing fill value"
        value, sizes = float(b["fill_value"]), b["size"]
    else:
        sizes = varargs(node)
    if isinstance(sizes, (tuple, list, torch.Size)):
        sizes = list(sizes)
    if not isinstance(sizes, list) or not all(isinstance(v, int) and v >= 0 for v in sizes):
        return f"{name} to a computed size or with a dtype or device"
    return Op("fill", name, [node.args[0]], {"sizes": sizes, "value": value})


def _cat(node: Node, rank: int) -> Op | str:
    """``torch.cat((a, b, ...), dim)`` of tensors: the rotary embedding's ``cat((-x2, x1), -1)``."""
    b = bind(node, ["tensors", "dim"], {"dim": 0})
    if b is None and "axis" in node.kwargs:  # torch.concatenate's spelling
        b = {"tensors": node.args[0] if node.args else node.kwargs.get("tensors"),
             "dim": node.kwargs["axis"]}  # fmt: skip
    seq = b["tensors"] if b else None
    if not isinstance(seq, (tuple, list)) or not seq or not all(isinstance(t, Node) for t in seq):
        return "cat of a non-tensor sequence"
    dim = b["dim"]  # type: ignore[index]
    if not isinstance(dim, int) or isinstance(dim, bool) or rank < 1 or not -rank <= dim < rank:
        return "cat with unexpected dim"
    return Op("cat", "cat", list(seq), {"dim": dim % rank})


def _getitem(node: Node, rank: int) -> Op | str:
    """Basic indexing (ints, unit-step slices, None, ...) with Ellipsis expanded and every
    dim of the source named, so the kernel maps coordinates item by item."""
    index = node.args[1] if len(node.args) == 2 else None
    items = list(index) if isinstance(index, tuple) else [index]
    if any(isinstance(i, Node) or isinstance(i, (list, torch.Tensor)) for i in items):
        return "getitem with tensor indices"
    for i in items:
        if isinstance(i, slice) and not (i.step in (None, 1) and all(
                v is None or (isinstance(v, int) and not isinstance(v, bool))
                for v in (i.start, i.stop))):  # fmt: skip
            return "getitem with a step or computed bounds"
        if not (i is None or i is Ellipsis or isinstance(i, slice) or (
                isinstance(i, int) and not isinstance(i, bool))):  # fmt: skip
            return "getitem with unexpected index"
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    if items.count(Ellipsis) > 1 or used > rank:
        return "getitem with unexpected index"
    full = slice(None, None, None)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at : at + 1] = [full] * (rank - used)
    else:
        items += [full] * (rank - used)
    return Op("getitem", "getitem", [node.args[0]], {"index": items})


def _varargs_fn(node: Node) -> list[Any] | None:
    dims = node.args[1] if len(node.args) == 2 else node.kwargs.get("dims")
    return list(dims) if isinstance(dims, (tuple, list)) else None
