"""Ops that convert, copy, gather or make data: casts, eval dropout, copies, constant fills,
concatenation and lookups by integer index (embedding, index_select)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from torch.fx import Node

from passnet.synth.indices import INT_RESULTS
from passnet.synth.ir import BinOp, Const, Expr, Int, call, cmp, float_text, where
from passnet.synth.op_model import FLOATS, INTEGERS, F, Op, bind, scalar, varargs
from passnet.synth.registry import OpDef, Step, register
from passnet.synth.shapes import Dim, DType, Shapes, Unfusable, lit, promote, total

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map

_CASTS = {"Tensor.float": torch.float32, "Tensor.half": torch.float16,
          "Tensor.bfloat16": torch.bfloat16, "Tensor.int": torch.int32,
          "Tensor.long": torch.int64, "Tensor.bool": torch.bool}  # fmt: skip


@register
class Cast(OpDef):
    """A dtype change (``.float()``, ``.to(dtype)``, ``type_as``, ``.to(other)``): rounded to
    the new dtype; to bool a flag (1.0 / 0.0); to int64/int32 an integer result (truncated
    toward zero, as eager converts: ``passnet.synth.indices``). ``.to(device)`` alone returns
    the operand itself (a view here)."""

    name, targets, elementwise = "cast", (*_CASTS, "Tensor.type_as", "Tensor.to"), True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        if key in _CASTS:
            if len(node.args) != 1 or node.kwargs:
                return "cast with arguments"
            return self.op([node.args[0]], {"dtype": _CASTS[key]})
        if key == "Tensor.type_as":
            b = bind(node, ["input", "other"], {})
            if b is None or not isinstance(b["other"], Node):
                return "type_as without a tensor"
            return self.op([b["input"]], {"like": b["other"]})
        return _bind_to(self, node)

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        if "dtype" in op.attrs:
            return DType(op.attrs["dtype"], None, actual)
        if "like" not in op.attrs:  # a move to the device it is on: the operand's dtype
            return super().dtype(shapes, node, op, actual)
        like = shapes.dtypes[op.attrs["like"]]
        return DType(like.literal, like.index, actual)

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        if self.view(op):
            return super().lower(b, node, op, m)  # the operand, through ``source``
        if self.flag(op):
            return b.let(where(cmp("!=", b.value(op.args[0], m), 0.0), 1.0, 0.0))
        return b.round(b.value(op.args[0], m), node)

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        return (op.args[0], m) if self.view(op) else None

    def view(self, op: Op) -> bool:
        return not op.attrs  # ``.to(device)``: eager returns the operand itself

    def moves_values(self, op: Op) -> bool:
        return self.view(op)

    def int_lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        x = op.args[0]
        vals = b.shapes.dtypes[x].vals
        exact = set(vals) <= set(INTEGERS) and torch.bool not in vals  # (a bool: a flag)
        got = b.indices(x, m) if exact else b.value(x, m)
        return b.let(got.to(b.shapes.dtypes[node].triton()))

    def int_result(self, op: Op) -> bool:
        return op.attrs.get("dtype") in INT_RESULTS

    def reads_exactly(self, op: Op, value: Node) -> bool:
        return op.attrs.get("dtype") in (*FLOATS, torch.bool)

    def flag(self, op: Op) -> bool:
        return op.attrs.get("dtype") is torch.bool


def _bind_to(cast: Cast, node: Node) -> Op | str:
    """``Tensor.to`` in its three forms: ``to(dtype)``, ``to(device, dtype)`` (the device the
    graph runs on: the loader maps a sample's device literals to it) and ``to(other)``;
    ``copy=True`` and a memory format are refused."""
    rest, kwargs = list(node.args[1:]), dict(node.kwargs)
    device, dtype, like = kwargs.pop("device", None), kwargs.pop("dtype", None), None
    if rest and isinstance(rest[0], (torch.device, str)):
        device = rest.pop(0)
    if rest and isinstance(rest[0], torch.dtype):
        dtype = rest.pop(0)
    elif rest and isinstance(rest[0], Node) and device is None and dtype is None:
        like = rest.pop(0)
    flags = dict(zip(["non_blocking", "copy"], rest, strict=False)) | kwargs
    if len(rest) > 2 or set(flags) - {"non_blocking", "copy", "memory_format"}:
        return "to() with unexpected arguments"
    if flags.get("copy") or flags.get("memory_format") not in (None, torch.preserve_format):
        return "to() with a copy or a memory format"
    if dtype is not None and not isinstance(dtype, torch.dtype):
        return "to() with an unexpected dtype"
    if like is not None:
        return cast.op([node.args[0]], {"like": like})
    return cast.op([node.args[0]], {"dtype": dtype} if dtype is not None else {})


@register
class Dropout(OpDef):
    """Dropout with training False or p = 0: eager returns its input."""

    name, targets, is_view, elementwise = "dropout", (F + "dropout",), True, True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "p", "training", "inplace"],
                 {"p": 0.5, "training": True, "inplace": False})  # fmt: skip
        if b is None or b["inplace"] or (b["training"] is not False and b["p"] != 0):
            return "dropout in training mode"
        return self.op([b["input"]])

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        return op.args[0], m

    def moves_values(self, op: Op) -> bool:
        return True


@register
class Copy(OpDef):
    """``contiguous``, ``clone`` and zero padding: the same values, a copy in eager (a
    ``contiguous`` of a contiguous tensor is none: ``graph`` marks it ``noop``)."""

    name = "copy"
    targets = ("Tensor.contiguous", "Tensor.clone", "torch.clone", F + "pad")
    moves_layout = folds_into_reshape = elementwise = True

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        if key == F + "pad":
            b = bind(node, ["input", "pad", "mode", "value"], {"mode": "constant", "value": None})
            if b is None or b["mode"] != "constant" or any(p != 0 for p in b["pad"]):
                return "pad with non-zero padding"
            return self.op([b["input"]])
        b = bind(node, ["input", "memory_format"], {"memory_format": torch.contiguous_format})
        if b is None or b["memory_format"] not in (torch.contiguous_format,
                                                   torch.preserve_format):  # fmt: skip
            return f"{key} to another memory format"
        return self.op([b["input"]])

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        return op.args[0], m

    def forward(self, b: Builder, op: Op, m: Map, src: list[Dim], dst: list[Dim]) -> Map:
        return m

    def alias_step(self, node: Node, op: Op, shapes: Shapes) -> Step | None:
        return ("contiguous", None) if node.target == "contiguous" else None  # clone/pad copy

    def exact_on_integers(self, op: Op) -> bool:
        return True

    def moves_values(self, op: Op) -> bool:
        return True


_FILLS = {"Tensor.new_zeros": 0.0, "Tensor.new_ones": 1.0, "Tensor.new_full": None}
_MADE = {"torch.zeros": 0.0, "torch.ones": 1.0, "torch.full": None}
_MADE_KWARGS = {"dtype", "device", "layout", "requires_grad", "pin_memory"}


def _made_kwargs_ok(kwargs: dict[str, Any]) -> bool:
    """A creation op's keywords (torch.zeros, arange): none but ``_MADE_KWARGS``, no grad, a
    strided layout."""
    return not (set(kwargs) - _MADE_KWARGS or kwargs.get("requires_grad")
                or kwargs.get("layout") not in (None, torch.strided))  # fmt: skip


@register
class Fill(OpDef):
    """``x.new_zeros(sizes)``, ``new_ones``, ``new_full(sizes, v)``: a constant over literal
    sizes in ``x``'s dtype and device (``x`` is read for those only); ``torch.zeros``,
    ``ones`` and ``full`` of literal sizes in a float dtype (the default one if none is given)
    on the graph's device."""

    name, targets = "fill", (*_FILLS, *_MADE)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        name = key.rsplit(".", 1)[-1]
        if key in _MADE:
            return self._bind_made(key, name, node)
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
        return self.op([node.args[0]], {"sizes": sizes, "value": value}, name=name)

    def _bind_made(self, key: str, name: str, node: Node) -> Op | str:
        args: list[Any] = list(node.args)
        kwargs: dict[str, Any] = dict(node.kwargs)
        value = _MADE[key]
        if value is None:  # full(size, fill_value)
            if len(args) != 2 or not scalar(args[1]):
                return f"{name} with a tensor or missing fill value"
            value, args = float(args[1]), args[:1]
        sizes = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        dtype = kwargs.get("dtype") or torch.get_default_dtype()
        if not _made_kwargs_ok(kwargs):
            return f"{name} with unexpected arguments"
        if dtype not in FLOATS:
            return f"{name} of dtype {dtype}"
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in sizes):
            return f"{name} to a computed size"
        return self.op([], {"sizes": list(sizes), "value": value, "dtype": dtype}, name=name)

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        return [lit(v, shapes.n) for v in op.attrs["sizes"]]

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        if "dtype" in op.attrs:
            return DType(op.attrs["dtype"], None, actual)
        return super().dtype(shapes, node, op, actual)

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        v = Const(float_text(op.attrs["value"]))  # a block of it, in the phase's mask shape
        return b.let(where(b.name("mask"), v, v))


@register
class Arange(OpDef):
    """``torch.arange([start,] end[, step])`` of literal integers: ``start + step * i`` at the
    coordinate, computed in integers (position ids and causal masks read it as indices or
    compare it), in float32 where a float dtype is asked for; only where the kernel reads it,
    never as an output of its own."""

    name, targets = "arange", ("torch.arange",)

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        args: list[Any] = list(node.args)
        kwargs: dict[str, Any] = dict(node.kwargs)
        if not _made_kwargs_ok(kwargs) or not 1 <= len(args) <= 3:
            return "arange with unexpected arguments"
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in args):
            return "arange of other than literal integers"
        start, end, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        dtype = kwargs.get("dtype") or torch.int64
        if step == 0 or (dtype not in (*INT_RESULTS, *FLOATS)):
            return f"arange with step 0 or of dtype {dtype}"
        count = max(0, -(-(end - start) // step))
        return self.op([], {"start": start, "step": step, "count": count, "dtype": dtype})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        return [lit(op.attrs["count"], shapes.n)]

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        return DType(op.attrs["dtype"], None, actual)

    def exact_on_integers(self, op: Op) -> bool:
        return op.attrs["dtype"] in INT_RESULTS

    def int_lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        if node in b.outputs:  # stored, it is a phase of its own beside the kernel's work
            raise Unfusable(f"'{node.name}' (arange) is an output: eager's one kernel makes it")
        at = BinOp("*", Int(op.attrs["step"]), m[0]) if op.attrs["step"] != 1 else m[0]
        return b.let(BinOp("+", Int(op.attrs["start"]), at) if op.attrs["start"] else at)

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        return b.round(b.let(self.int_lower(b, node, op, m).to(Const("tl.float32"))), node)


@register
class Cat(OpDef):
    """``torch.cat((a, b, ...), dim)`` of tensors: each part at its own coordinate along
    ``dim`` (shifted by the sizes before it, clamped into the part so that every load stays
    in bounds), the part the coordinate falls in chosen by ``tl.where``. A concatenation
    copies values, so nothing is rounded (the rotary embedding's ``cat((-x2, x1), -1)``)."""

    name, targets = "cat", ("torch.cat", "torch.concat", "torch.concatenate")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["tensors", "dim"], {"dim": 0})
        if b is None and "axis" in node.kwargs:  # torch.concatenate's spelling
            b = {"tensors": node.args[0] if node.args else node.kwargs.get("tensors"),
                 "dim": node.kwargs["axis"]}  # fmt: skip
        seq = b["tensors"] if b else None
        if not isinstance(seq, (tuple, list)) or not seq or not all(
                isinstance(t, Node) for t in seq):  # fmt: skip
            return "cat of a non-tensor sequence"
        dim = b["dim"]  # type: ignore[index]
        if not isinstance(dim, int) or isinstance(dim, bool) or rank < 1 or not -rank <= dim < rank:
            return "cat with unexpected dim"
        return self.op(list(seq), {"dim": dim % rank})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        """Operands of one rank, equal but for ``dim``, each at least 1 there (the kernel
        clamps a coordinate into every operand, so none may be empty)."""
        parts = [shapes.dims[a] for a in op.args]
        d = op.attrs["dim"]
        if len({len(p) for p in parts}) != 1:
            raise Unfusable("cat of tensors of different ranks")
        for p in parts[1:]:
            for i, (a, c) in enumerate(zip(parts[0], p, strict=True)):
                if i != d and not shapes.equal(a, c):
                    raise Unfusable("cat of tensors whose other dims differ")
        if any(0 in p[d].vals for p in parts):
            raise Unfusable("cat of an empty tensor")
        return parts[0][:d] + [total([p[d] for p in parts], shapes.n)] + parts[0][d + 1 :]

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        return promote(shapes, op.name, [shapes.dtypes[a] for a in op.args], actual)

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        return self._pick(b, op, m, b.value)

    def int_lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        """Integer parts (index values: torch_geometric's edge index with self loops
        appended) concatenated as stored."""
        return self._pick(b, op, m, b.indices)

    def exact_on_integers(self, op: Op) -> bool:
        return True

    def moves_values(self, op: Op) -> bool:
        return True

    def _pick(self, b: Builder, op: Op, m: Map, read: Callable[[Node, Map], Expr]) -> Expr:
        """The part ``m`` falls in, each part read at its own coordinate by ``read``."""
        d, parts = op.attrs["dim"], op.args
        sizes = [b.shapes.dims[a][d] for a in parts]
        tok = m[d]
        if isinstance(tok, Int):  # a fixed coordinate (an int index after the cat): pick statically
            k = tok.value
            for a, size in zip(parts, sizes, strict=True):
                if all(k < v for v in size.vals):
                    return read(a, m[:d] + (Int(k),) + m[d + 1 :])
                if not all(k >= v for v in size.vals):
                    raise Unfusable("cat indexed at a part that differs between variants")
                k -= size.vals[0]
            raise Unfusable("cat indexed beyond its size")
        offsets = [b.dim(total(sizes[:i], b.shapes.n)) for i in range(len(parts))]
        vals = []
        for i, a in enumerate(parts):
            c = tok if i == 0 else b.let(call("tl.maximum", tok - offsets[i], 0))
            if i < len(parts) - 1:
                c = b.let(call("tl.minimum", c, b.dim(sizes[i]) - 1))
            vals.append(read(a, m[:d] + (c,) + m[d + 1 :]))
        out = vals[-1]
        for i in range(len(parts) - 2, -1, -1):
            out = b.let(where(cmp("<", tok, offsets[i + 1]), vals[i], out))
        return out


@register
class Embedding(OpDef):
    """A lookup of weight rows by integer indices (weight first, then indices): the weight's
    row named by the index at ``m[:-1]``; ``padding_idx`` only matters to the gradient,
    ``max_norm`` rewrites the weight in place (refused)."""

    name, targets = "embedding", (F + "embedding", "torch.embedding")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b: dict[str, Any] | None
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
        return self.op([b["weight"], b["input"]])

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x = shapes.dims[op.args[0]]
        if len(x) != 2:
            raise Unfusable("embedding's weight is not [rows, features]")
        return list(shapes.dims[op.args[1]]) + [x[1]]

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        return b.value(op.args[0], (b.indices(op.args[1], m[:-1]), m[-1]))

    def index_operand(self, op: Op) -> int | None:
        return 1


@register
class IndexSelect(OpDef):
    """``x.index_select(dim, index)``: the source read at the index's value along ``dim``."""

    name, targets = "index_select", ("torch.index_select", "Tensor.index_select")

    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        b = bind(node, ["input", "dim", "index"], {})
        if b is None or not all(isinstance(b[k], Node) for k in ("input", "index")):
            return "index_select of a constant"
        if not isinstance(b["dim"], int) or not -rank <= b["dim"] < rank:
            return "index_select along an unknown dim"
        return self.op([b["input"], b["index"]], {"dim": b["dim"] % rank})

    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        x, idx, d = shapes.dims[op.args[0]], shapes.dims[op.args[1]], op.attrs["dim"]
        if len(idx) != 1:
            raise Unfusable("index_select's index is not one-dimensional")
        return x[:d] + [idx[0]] + x[d + 1 :]

    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        d = op.attrs["dim"]
        return b.value(op.args[0], (*m[:d], b.indices(op.args[1], (m[d],)), *m[d + 1 :]))

    def index_operand(self, op: Op) -> int | None:
        return 1
