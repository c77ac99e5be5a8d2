"""What the synthesizer understands: FX nodes classified into a few op kinds, or a reason.

Each supported node becomes an :class:`Op` with its tensor operands in a fixed order and its
literals bound by name (positional and keyword spellings of one call look the same here).
Kinds: ``pw`` (pointwise, broadcasting), ``cast`` (dtype change), ``id`` (same values: dropout
in eval, contiguous, zero padding), ``bn`` (eval batch norm, per channel), ``ln``/``gn``/
``softmax``/``mean``/``sum`` (reductions over the last dim), ``linear`` (a ``tl.dot`` of the
row with the weight), ``gather`` (an embedding lookup, :mod:`passnet.synth.indices`); views, getitem, cat and constant fills are classified in
:mod:`passnet.synth.ops_shape`. The :class:`Op` record and the argument binding live in
:mod:`passnet.synth.op_model` (re-exported here).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch
from torch.fx import Node

from passnet.passes.calls import call_name as canonical_name  # the matcher's own op naming
from passnet.synth.op_model import (  # noqa: F401 - re-exported: the synthesizer's op table
    _F,
    FLOATS,
    INTEGERS,
    REDUCTIONS,
    ROW_OPS,
    VIEWS,
    Op,
    bind,
    scalar,
    varargs,
)
from passnet.synth.ops_shape import view_op

_BINARY = {
    "add": ("operator.add", "torch.add", "Tensor.add"),
    "sub": ("operator.sub", "torch.sub", "Tensor.sub"),
    "mul": ("operator.mul", "torch.mul", "Tensor.mul"),
    "div": ("operator.truediv", "torch.div", "Tensor.div", "torch.true_divide"),
}
_UNARY = {
    "neg": ("operator.neg", "torch.neg", "Tensor.neg"),
    "relu": (_F + "relu", "torch.relu", "Tensor.relu"),
    "silu": (_F + "silu",),
    "sigmoid": ("torch.sigmoid", "Tensor.sigmoid", _F + "sigmoid"),
    "tanh": ("torch.tanh", "Tensor.tanh", _F + "tanh"),
    "exp": ("torch.exp", "Tensor.exp"),
    "rsqrt": ("torch.rsqrt", "Tensor.rsqrt"),
    "sqrt": ("torch.sqrt", "Tensor.sqrt"),
    "cos": ("torch.cos", "Tensor.cos"),
    "sin": ("torch.sin", "Tensor.sin"),
}
_LOOKUP = {k: (name, 2) for name, keys in _BINARY.items() for k in keys}
_LOOKUP |= {k: (name, 1) for name, keys in _UNARY.items() for k in keys}
_CASTS = {"Tensor.float": torch.float32, "Tensor.half": torch.float16,
          "Tensor.bfloat16": torch.bfloat16}  # fmt: skip


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _pointwise(key: str, node: Node) -> Op | str | None:
    name, arity = _LOOKUP.get(key, (None, 0))
    if name is None:
        return None
    if arity == 2:
        names = ["input", "other", "alpha"] if name in ("add", "sub") else ["input", "other"]
        if name == "div" and key != "operator.truediv":
            names.append("rounding_mode")
        b = bind(node, names, {"alpha": 1, "rounding_mode": None})
        if b is None or b.get("alpha", 1) != 1 or b.get("rounding_mode") is not None:
            return f"{name} with alpha or rounding_mode"
        a, c = b["input"], b["other"]
        if not all(isinstance(x, Node) or _number(x) for x in (a, c)):
            return f"{name} of a non-tensor, non-number operand"
        return Op("pw", name, [a, c])
    b = bind(node, ["input", "inplace"], {"inplace": False})
    if b is None or not isinstance(b["inplace"], bool):
        return f"{name} with unexpected arguments"
    return Op("pw", name, [b["input"]], {"inplace": True} if b["inplace"] else {})


def _activation(key: str, node: Node) -> Op | str | None:
    """Pointwise functions with literals: pow, gelu, hardtanh/relu6, hardsigmoid/hardswish,
    leaky_relu, clamp; None for any other call."""
    if key in ("operator.pow", "torch.pow", "Tensor.pow"):
        b = bind(node, ["input", "exponent"], {})
        if b is None or not isinstance(b["input"], Node) or not _number(b["exponent"]):
            return "pow with a tensor exponent"
        return Op("pw", "pow", [b["input"]], {"exponent": float(b["exponent"])})
    if key == _F + "gelu":
        b = bind(node, ["input", "approximate"], {"approximate": "none"})
        if b is None or b["approximate"] not in ("none", "tanh"):
            return "gelu with an unknown approximation"
        return Op("pw", "gelu_tanh" if b["approximate"] == "tanh" else "gelu", [b["input"]])
    if key in (_F + "hardtanh", _F + "relu6"):
        six = key.endswith("relu6")
        names = ["input", "inplace"] if six else ["input", "min_val", "max_val", "inplace"]
        b = bind(node, names, {"min_val": -1.0, "max_val": 1.0, "inplace": False})
        if b is None or not isinstance(b["inplace"], bool):
            return "hardtanh with unexpected arguments"
        lo, hi = (0.0, 6.0) if six else (b["min_val"], b["max_val"])
        attrs = {"min": float(lo), "max": float(hi)} | ({"inplace": True} if b["inplace"] else {})
        return Op("pw", "clamp", [b["input"]], attrs)
    if key in (_F + "hardsigmoid", _F + "hardswish"):  # MobileNetV3's gate and activation
        name = key.rsplit(".", 1)[-1]
        b = bind(node, ["input", "inplace"], {"inplace": False})
        if b is None or not isinstance(b["inplace"], bool):
            return f"{name} with unexpected arguments"
        return Op("pw", name, [b["input"]], {"inplace": True} if b["inplace"] else {})
    if key == _F + "leaky_relu":
        b = bind(node, ["input", "negative_slope", "inplace"],
                  {"negative_slope": 0.01, "inplace": False})  # fmt: skip
        if b is None or not _number(b["negative_slope"]) or not isinstance(b["inplace"], bool):
            return "leaky_relu with unexpected arguments"
        attrs = {"slope": float(b["negative_slope"])} | ({"inplace": True} if b["inplace"] else {})
        return Op("pw", "leaky_relu", [b["input"]], attrs)
    if key in ("torch.prelu", _F + "prelu", "Tensor.prelu"):  # slope: one, or per channel
        b = bind(node, ["input", "weight"], {})
        if b is None or not all(isinstance(b[k], Node) for k in ("input", "weight")):
            return "prelu with a constant weight"
        return Op("prelu", "prelu", [b["input"], b["weight"]])
    if key in ("torch.clamp", "Tensor.clamp", "torch.clip", "Tensor.clip"):
        b = bind(node, ["input", "min", "max"], {"min": None, "max": None})
        if b is None or not all(v is None or _number(v) for v in (b["min"], b["max"])):
            return "clamp with tensor bounds"
        return Op("pw", "clamp", [b["input"]], {"min": b["min"], "max": b["max"]})
    return None


def _special(key: str, node: Node, rank: int) -> Op | str | None:  # noqa: C901 - a table
    if (act := _activation(key, node)) is not None:
        return act
    if key in _CASTS:
        return (
            Op("cast", "cast", [node.args[0]], {"dtype": _CASTS[key]})
            if len(node.args) == 1 and not node.kwargs
            else "cast with arguments"
        )
    if key == "Tensor.type_as":
        b = bind(node, ["input", "other"], {})
        if b is None or not isinstance(b["other"], Node):
            return "type_as without a tensor"
        return Op("cast", "cast", [b["input"]], {"like": b["other"]})
    if key == "Tensor.to":
        b = bind(node, ["input", "dtype", "non_blocking", "copy"],
                  {"non_blocking": False, "copy": False})  # fmt: skip
        if b is None or not isinstance(b["dtype"], torch.dtype) or b["copy"]:
            return "to() with a device or tensor argument"
        return Op("cast", "cast", [b["input"]], {"dtype": b["dtype"]})
    if key == _F + "dropout":
        b = bind(node, ["input", "p", "training", "inplace"],
                  {"p": 0.5, "training": True, "inplace": False})  # fmt: skip
        if b is None or b["inplace"] or (b["training"] is not False and b["p"] != 0):
            return "dropout in training mode"
        return Op("id", "dropout", [b["input"]])
    if key in ("Tensor.contiguous", "Tensor.clone", "torch.clone"):
        b = bind(node, ["input", "memory_format"], {"memory_format": torch.contiguous_format})
        if b is None or b["memory_format"] not in (torch.contiguous_format,
                                                   torch.preserve_format):  # fmt: skip
            return f"{key} to another memory format"
        return Op("id", "copy", [b["input"]])
    if key in ("Tensor.masked_fill", "torch.masked_fill"):
        b = bind(node, ["input", "mask", "value"], {})
        v = b["value"] if b else None
        if b is None or not isinstance(b["mask"], Node) or not scalar(v):
            return "masked_fill with a tensor value"
        return Op("pw", "masked_fill", [b["input"], b["mask"]], {"value": float(v)})
    if key == "torch.tensor":
        b = bind(node, ["data", "dtype", "device", "requires_grad", "pin_memory"],
                  {"dtype": None, "device": None, "requires_grad": False, "pin_memory": False})  # fmt: skip
        if b is None or not scalar(b["data"]) or b["dtype"] not in FLOATS:
            return "tensor() of other than a float scalar with a float dtype"
        return Op("pw", "const", [float(b["data"])], {"dtype": b["dtype"]})
    if key == _F + "linear":
        b = bind(node, ["input", "weight", "bias"], {"bias": None})
        if b is None or not isinstance(b["weight"], Node) or not (
            b["bias"] is None or isinstance(b["bias"], Node)
        ):
            return "linear with unexpected arguments"
        return Op("linear", "linear", [b["input"], b["weight"], b["bias"]])
    if key in (_F + "embedding", "torch.embedding"):
        return _embedding(key, node)
    if key in ("torch.index_select", "Tensor.index_select"):  # rows (or slices) by index
        b = bind(node, ["input", "dim", "index"], {})
        if b is None or not all(isinstance(b[k], Node) for k in ("input", "index")):
            return "index_select of a constant"
        if not isinstance(b["dim"], int) or not -rank <= b["dim"] < rank:
            return "index_select along an unknown dim"
        return Op("gather", "index_select", [b["input"], b["index"]], {"dim": b["dim"] % rank})
    if key == _F + "pad":
        b = bind(node, ["input", "pad", "mode", "value"], {"mode": "constant", "value": None})
        if b is None or b["mode"] != "constant" or any(p != 0 for p in b["pad"]):
            return "pad with non-zero padding"
        return Op("id", "copy", [b["input"]])
    return _reduction(key, node, rank)


def _embedding(key: str, node: Node) -> Op | str:
    """A lookup of weight rows by integer indices (``gather``: weight first, then indices);
    ``padding_idx`` only matters to the gradient, ``max_norm`` rewrites the weight in place."""
    if key == "torch.embedding":
        b = bind(node, ["weight", "input", "padding_idx", "scale_grad_by_freq", "sparse"],
                 {"padding_idx": -1, "scale_grad_by_freq": False, "sparse": False})  # fmt: skip
    else:
        b = bind(node, ["input", "weight", "padding_idx", "max_norm", "norm_type",
                        "scale_grad_by_freq", "sparse"],
                 {"padding_idx": None, "max_norm": None, "norm_type": 2.0,
                  "scale_grad_by_freq": False, "sparse": False})  # fmt: skip
    if b is None or b.get("max_norm") is not None:
        return "embedding with max_norm (it renormalises the weight in place)"
    if not isinstance(b["weight"], Node) or not isinstance(b["input"], Node):
        return "embedding of a constant"
    return Op("gather", "embedding", [b["weight"], b["input"]])


def _trailing(dim: Any, rank: int) -> int | None:
    """How many trailing dims ``dim`` names (``-1``, ``[-2, -1]``, ``(2, 3)`` of rank 4), or
    None when it names others (or none): the synthesizer reduces along its row, and trailing
    dims are one row once merged."""
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    if not dims or rank < 1 or any(not isinstance(d, int) or isinstance(d, bool) for d in dims):
        return None
    norm = {d % rank for d in dims if -rank <= d < rank}
    if len(norm) != len(dims) or norm != set(range(rank - len(dims), rank)):
        return None
    return len(dims)


def _one_dim(dim: Any, rank: int) -> int | None:
    """The one dim ``dim`` names (``1``, ``-1``, ``[2]``), normalised; None otherwise."""
    if isinstance(dim, (list, tuple)) and len(dim) == 1:
        dim = dim[0]
    if not isinstance(dim, int) or isinstance(dim, bool) or not -rank <= dim < rank:
        return None
    return dim % rank


def _axis(dim: Any, rank: int) -> int | None:
    """The one dim ``dim`` names, normalised, when it is not the last: the kernel's row then
    walks that dim (``kernel._axis_op``)."""
    d = _one_dim(dim, rank)
    return d if d != rank - 1 else None


def _reduction(key: str, node: Node, rank: int) -> Op | str | None:
    if key == _F + "layer_norm":
        b = bind(node, ["input", "normalized_shape", "weight", "bias", "eps"],
                  {"weight": None, "bias": None, "eps": 1e-5})  # fmt: skip
        if b is None or len(b["normalized_shape"]) != 1:
            return "layer_norm over more than the last dim"
        return Op(
            "ln",
            "layer_norm",
            [b["input"], b["weight"], b["bias"]],
            {"eps": float(b["eps"]), "size": int(b["normalized_shape"][0])},
        )
    if key == _F + "group_norm":
        b = bind(node, ["input", "num_groups", "weight", "bias", "eps"],
                  {"weight": None, "bias": None, "eps": 1e-5})  # fmt: skip
        if b is None or rank < 3:
            return "group_norm on other than [N, C, ...] input"
        return Op(
            "gn",
            "group_norm",
            [b["input"], b["weight"], b["bias"]],
            {"eps": float(b["eps"]), "groups": int(b["num_groups"])},
        )
    if key == _F + "batch_norm":
        b = bind(node, ["input", "running_mean", "running_var", "weight", "bias", "training",
                         "momentum", "eps"],
                  {"weight": None, "bias": None, "training": False, "momentum": 0.1,
                   "eps": 1e-5})  # fmt: skip
        if b is None or b["training"] or not isinstance(b["running_mean"], Node) or rank < 2:
            return "batch_norm in training mode"
        args = [b[k] for k in ("input", "running_mean", "running_var", "weight", "bias")]
        return Op("bn", "batch_norm", args, {"eps": float(b["eps"])})
    if key in (_F + "softmax", "torch.softmax", "Tensor.softmax"):
        names = (
            ["input", "dim", "_stacklevel", "dtype"]
            if key.startswith(_F)
            else ["input", "dim", "dtype"]
        )
        b = bind(node, names, {"dim": None, "_stacklevel": 3, "dtype": None})
        d = _one_dim(b["dim"], rank) if b is not None else None
        if d is None:
            return "softmax over an unknown dim"
        attrs = {"dtype": b["dtype"]} | ({} if d == rank - 1 else {"axis": d})  # type: ignore[index]
        return Op("softmax", "softmax", [b["input"]], attrs)  # type: ignore[index]
    if key == _F + "normalize":  # x / max(||x||_p, eps) along one dim (eager: 3 kernels)
        b = bind(node, ["input", "p", "dim", "eps", "out"],
                  {"p": 2.0, "dim": 1, "eps": 1e-12, "out": None})  # fmt: skip
        d = _one_dim(b["dim"], rank) if b is not None else None
        if b is None or d is None or b["out"] is not None or b["p"] not in (1, 2):
            return "normalize other than an L1 or L2 norm over one dim"
        attrs = {"p": int(b["p"]), "eps": float(b["eps"])}
        return Op("normalize", "normalize", [b["input"]],
                  attrs | ({} if d == rank - 1 else {"axis": d}))  # fmt: skip
    if key == _F + "adaptive_avg_pool2d":  # to 1 x 1, eager computes mean((-1, -2), True)
        b = bind(node, ["input", "output_size"], {})
        if b is None or rank not in (3, 4) or b["output_size"] not in (1, (1, 1), [1, 1]):
            return "adaptive_avg_pool2d to other than 1 x 1"
        return Op("mean", "adaptive_avg_pool2d", [b["input"]], {"keepdim": True, "dims": 2})
    if key == _F + "max_pool2d":
        return _max_pool2d(node, rank)
    if key == _F + "interpolate":
        return _interpolate(node, rank)
    if key in ("torch.mean", "Tensor.mean", "torch.sum", "Tensor.sum"):
        name = key.split(".")[-1]
        b = bind(node, ["input", "dim", "keepdim", "dtype"],
                  {"dim": None, "keepdim": False, "dtype": None})  # fmt: skip
        k = _trailing(b["dim"], rank) if b is not None else None
        axis = _axis(b["dim"], rank) if b is not None and k is None else None
        if b is None or (k is None and axis is None) or b["dtype"] is not None:
            return f"{name} over several dims other than the trailing ones"
        attrs = {"keepdim": bool(b["keepdim"]), "dims": k or 1}
        return Op(name, name, [b["input"]], attrs | ({} if axis is None else {"axis": axis}))
    return view_op(key, node, rank)


def _pair(v: Any) -> tuple[int, int] | None:
    """An int or a pair of ints as a pair (pooling's kernel_size, stride, padding, dilation)."""
    v = (v, v) if isinstance(v, int) else tuple(v) if isinstance(v, (tuple, list)) else None
    ok = v is not None and len(v) == 2 and all(type(x) is int for x in v)
    return v if ok else None  # type: ignore[return-value]


def _max_pool2d(node: Node, rank: int) -> Op | str:
    """A max over each window of the last two dims, padding never chosen (eager pads with
    -inf): exact in every dtype, so the window's values are simply compared."""
    b = bind(node, ["input", "kernel_size", "stride", "padding", "dilation", "ceil_mode",
                    "return_indices"],
             {"stride": None, "padding": 0, "dilation": 1, "ceil_mode": False,
              "return_indices": False})  # fmt: skip
    if b is None or b["return_indices"] or rank not in (3, 4):
        return "max_pool2d with indices or of another rank than [N, C, H, W]"
    k, p, d = _pair(b["kernel_size"]), _pair(b["padding"]), _pair(b["dilation"])
    s = k if b["stride"] in (None, [], ()) else _pair(b["stride"])
    if None in (k, s, p, d) or min(*k, *s, *d) < 1 or min(p) < 0:  # type: ignore[misc]
        return "max_pool2d with window arguments other than ints"
    return Op("maxpool", "max_pool2d", [b["input"]],
              {"kernel": k, "stride": s, "padding": p, "dilation": d,
               "ceil_mode": bool(b["ceil_mode"])})  # fmt: skip


def _interpolate(node: Node, rank: int) -> Op | str:
    """Bilinear resizing of [N, C, H, W] to a literal size: four taps per output, weighed as
    eager's upsample_bilinear2d weighs them (``windows.bilinear``)."""
    b = bind(node, ["input", "size", "scale_factor", "mode", "align_corners",
                    "recompute_scale_factor", "antialias"],
             {"size": None, "scale_factor": None, "mode": "nearest", "align_corners": None,
              "recompute_scale_factor": None, "antialias": False})  # fmt: skip
    size = _pair(b["size"]) if b is not None else None
    if b is None or b["mode"] != "bilinear" or b["antialias"] or rank != 4:
        return "interpolate other than bilinear over [N, C, H, W]"
    if size is None or b["scale_factor"] is not None or min(size) < 1:
        return "interpolate to other than a literal size"
    return Op("interp", "interpolate", [b["input"]],
              {"size": size, "align_corners": bool(b["align_corners"])})


def classify(node: Node, rank_of: Any) -> Op | str:
    """The node as an :class:`Op`, or why the synthesizer cannot handle it ("unsupported op
    X" or a narrower reason). ``rank_of(node)`` gives a tensor node's rank (-1: not a tensor)."""
    key = canonical_name(node)
    short = key.rsplit(".", 1)[-1]
    if node.op not in ("call_function", "call_method"):
        return f"unsupported op {short}"
    first = node.args[0] if node.args else None
    if isinstance(first, (tuple, list)) and first:  # torch.cat's sequence: the rank of its items
        first = first[0]
    rank = rank_of(first) if isinstance(first, Node) else -1
    if node.target in (operator.iadd, operator.imul, operator.isub, operator.itruediv):
        return f"in-place {short}"
    try:
        op = _pointwise(key, node) or _special(key, node, rank)
    except (TypeError, ValueError, ZeroDivisionError, IndexError):
        op = f"{short} with unexpected arguments"
    if op is None:
        return f"unsupported op {short}"
    if isinstance(op, str):
        return op
    tensors = [a for a in op.args if isinstance(a, Node)] + (
        [op.attrs["like"]] if "like" in op.attrs else []
    )
    if rank_of(node) < 0 or any(rank_of(a) < 0 for a in tensors):
        return f"{short} on a non-tensor value"
    if not isinstance(op.args[0], Node) and op.kind != "pw":
        return f"{short} of a constant"
    return op
