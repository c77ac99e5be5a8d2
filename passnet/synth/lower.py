"""Lower a fused group to the body of one Triton kernel.

The kernel iterates over a *domain* D: the shape of the group's last value (of the input of
a final mean/sum). In ``flat`` mode (pointwise only) each program takes BLOCK elements of D
and unravels their index into coordinates; in ``row`` mode (any reduction over the last dim)
each program takes BLOCK_M rows of D with all N = D[-1] columns, so a reduction is one
``tl.sum``/``tl.max`` along axis 1.

Every value is computed *at a map*: the tuple of coordinate variables, as functions of D's
coordinates, at which the value is needed. Walking back from the outputs, a view changes the
map (a permute reorders it; a reshape ravels it over the view's dims and unravels it over the
source's, keeping common leading/trailing dims as they are), a broadcast drops or zeroes
coordinates, and a reduction asks for its operand along the row. Inputs are then loaded at
``sum(coord * stride)`` with the strides read at run time, so transposed, sliced or
broadcast inputs cost no copy. Pointwise results are rounded to their dtype after every op,
where eager materialises them, so float16/bfloat16 results match eager's rounding.
"""

from __future__ import annotations

import re

import torch
from torch.fx import Node

from passnet.synth.emit_ops import linear, norm, normalize_row, pointwise, reduce_row
from passnet.synth.indices import INT_RESULTS, index_nodes
from passnet.synth.op_model import INFIX, INTEGERS
from passnet.synth.ops import Op
from passnet.synth.pattern import literal
from passnet.synth.shapes import (
    Dim,
    Shapes,
    Unfusable,
    group_rows,
    grouped,
    merge_trailing,
    total,
)
from passnet.synth.windows import bilinear, max_pool

_IDENT = re.compile(r"[A-Za-z_]\w*")
Map = tuple[str, ...]


class Builder:
    """Emits the kernel body, one ``tK = expr`` line per new expression (memoised)."""

    def __init__(self, nodes: list[Node], ops: dict[Node, Op], inputs: list[Node],
                 outputs: list[Node], shapes: Shapes) -> None:  # fmt: skip
        self.nodes, self.ops, self.inputs, self.outputs = nodes, ops, inputs, outputs
        self.index = {n: i for i, n in enumerate(inputs)}
        self.shapes = shapes
        self.ints: dict[str, str] = {}  # shared by every phase: kernel parameters
        self.strides: dict[str, tuple[int, int]] = {}
        self.pointers: set[int] = set()
        self.dots = False  # a tl.dot was emitted (emit_ops.linear): blocks of 16 or more
        self.eager_cuda = False  # the kernel follows eager's CUDA arithmetic there (emit_ops)
        self.index_nodes = index_nodes(nodes, ops, outputs,  # type: ignore[arg-type]
                                       lambda n: set(shapes.dtypes[n].vals) <= set(INT_RESULTS))
        self.count = 0
        self.start_phase("flat", [])

    def start_phase(self, mode: str, domain: list[Dim]) -> None:
        """Forget every value: a phase iterates over its own domain (see kernel.py)."""
        self.mode, self.domain = mode, domain
        self.lines: list[str] = []
        self.exprs: dict[str, str] = {}
        self.col_vars: set[str] = {"cols"}
        self.row_vars: set[str] = {"rows", "offs"}  # offs: a flat phase's element index
        self.values: dict[tuple[Node, Map], str] = {}
        self.int_values: dict[tuple[Node, Map], str] = {}
        self.first_map: dict[Node, Map] = {}

    # -- expressions -------------------------------------------------------------------
    def let(self, expr: str) -> str:
        if expr in self.exprs:
            return self.exprs[expr]
        if _IDENT.fullmatch(expr) or expr == "0":
            return expr
        name = f"t{self.count}"
        self.count += 1
        self.exprs[expr] = name
        self.lines.append(f"{name} = {expr}")
        idents = set(_IDENT.findall(expr))
        if self.col_vars & idents:
            self.col_vars.add(name)
        if self.row_vars & idents:
            self.row_vars.add(name)
        return name

    def mask(self, tokens: tuple[str, ...] | list[str]) -> str:
        """The mask a tile indexed by ``tokens`` needs: rows, columns or both."""
        if self.mode == "flat":
            return "mask"
        rows = any(t in self.row_vars for t in tokens)
        cols = any(t in self.col_vars for t in tokens)
        return "mask" if rows and cols else "cmask" if cols else "rmask"

    def on_cols(self, token: str) -> bool:
        return token in self.col_vars

    def dim(self, d: Dim) -> str:
        if d.literal is not None:
            return str(d.literal)
        for name, expr in self.ints.items():
            if expr == d.expr:
                return name
        name = f"n{len(self.ints)}"
        self.ints[name] = d.expr
        return name

    def unravel(self, flat: str, dims: list[Dim]) -> list[str]:
        out: list[str] = []
        top = next((i for i, d in enumerate(dims) if d.literal != 1), len(dims))
        for i in range(len(dims) - 1, -1, -1):
            d = dims[i]
            if d.literal == 1:
                out.append("0")
            elif i == top:
                out.append(flat)
            else:
                out.append(self.let(f"{flat} % {self.dim(d)}"))
                flat = self.let(f"{flat} // {self.dim(d)}")
        return out[::-1]

    def ravel(self, coords: list[str] | tuple[str, ...], dims: list[Dim]) -> str:
        acc = "0"
        for tok, d in zip(coords, dims, strict=True):
            if d.literal == 1:
                continue
            if acc == "0":
                acc = tok
            elif tok == "0":
                acc = self.let(f"{acc} * {self.dim(d)}")
            else:
                acc = self.let(f"{acc} * {self.dim(d)} + {tok}")
        return acc

    # -- maps ------------------------------------------------------------------------------
    def reshape(self, m: Map, src: list[Dim], dst: list[Dim]) -> Map:
        """Coordinates in ``dst`` of the element at ``m`` in ``src`` (same numel, row-major)."""
        eq = self.shapes.equal
        p = 0
        while p < min(len(src), len(dst)) and eq(src[p], dst[p]):
            p += 1
        s = 0
        while s < min(len(src), len(dst)) - p and eq(src[-1 - s], dst[-1 - s]):
            s += 1
        mid_src, mid_dst = src[p : len(src) - s], dst[p : len(dst) - s]
        if len(mid_src) == 1 and len(mid_dst) == 1:
            mid = [m[p]]
        elif not mid_dst:
            mid = []
        else:
            mid = self.unravel(self.ravel(m[p : len(m) - s], mid_src), mid_dst)
        return tuple(m[:p]) + tuple(mid) + tuple(m[len(m) - s :])

    def index_map(self, m: Map, op: Op, src: list[Dim]) -> Map:
        """Coordinates in ``x`` of element ``m`` of ``x[index]`` (basic indexing)."""
        res: list[str] = []
        i = 0  # position in m
        for item in op.attrs["index"]:
            d = src[len(res)] if len(res) < len(src) else None
            if item is None:
                i += 1
            elif isinstance(item, int):
                k = item if item >= 0 else None
                res.append(str(k) if k else "0" if k == 0 else self.let(f"{self.dim(d)} - {-item}"))  # type: ignore[arg-type]
            else:
                start = item.start or 0
                first = str(start) if start >= 0 else self.let(f"{self.dim(d)} - {-start}")  # type: ignore[arg-type]
                tok = m[i] if first == "0" else self.let(f"{m[i]} + {first}")
                res.append(tok)
                i += 1
        return tuple(res)

    def cat(self, op: Op, m: Map) -> str:
        """``cat(parts, dim)`` at ``m``: each part computed at its own coordinate along ``dim``
        (shifted by the sizes before it, clamped into the part so that every load stays in
        bounds), the part the coordinate falls in chosen by ``tl.where``. A concatenation
        copies values, so nothing is rounded."""
        d, parts = op.attrs["dim"], op.args
        sizes = [self.shapes.dims[a][d] for a in parts]
        tok = m[d]
        if tok.isdigit():  # a fixed coordinate (an int index after the cat): pick statically
            k = int(tok)
            for a, size in zip(parts, sizes, strict=True):
                if all(k < v for v in size.vals):
                    return self.value(a, m[:d] + (str(k),) + m[d + 1 :])
                if not all(k >= v for v in size.vals):
                    raise Unfusable("cat indexed at a part that differs between variants")
                k -= size.vals[0]
            raise Unfusable("cat indexed beyond its size")
        offsets = [self.dim(total(sizes[:i], self.shapes.n)) for i in range(len(parts))]
        vals = []
        for i, a in enumerate(parts):
            c = tok if i == 0 else self.let(f"tl.maximum({tok} - {offsets[i]}, 0)")
            if i < len(parts) - 1:
                c = self.let(f"tl.minimum({c}, {self.dim(sizes[i])} - 1)")
            vals.append(self.value(a, m[:d] + (c,) + m[d + 1 :]))
        out = vals[-1]
        for i in range(len(parts) - 2, -1, -1):
            out = self.let(f"tl.where({tok} < {offsets[i + 1]}, {vals[i]}, {out})")
        return out

    def broadcast(self, m: Map, out: list[Dim], operand: Node) -> Map:
        dims = self.shapes.dims[operand]
        k = len(out) - len(dims)
        res = []
        for j, d in enumerate(dims):
            if d.all_one() and not out[k + j].all_one():
                if d.literal is None:
                    self.shapes.guard(f"{d.expr} == 1")
                res.append("0")
            else:
                res.append(m[k + j])
        return tuple(res)

    def _reduced(self, node: Node, m: Map) -> Map:
        """Where a mean/sum at ``m`` reads its operand: the kernel's row runs along the trailing
        dims it reduces (several merged into one row, split again by index arithmetic)."""
        op = self.ops[node]
        x, k = op.args[0], op.attrs["dims"]
        if any(self.on_cols(t) for t in m):
            raise Unfusable(f"{op.name} '{node.name}' is needed along the row it reduces")
        if "axis" in op.attrs:  # the row walks that dim: cols there, the rest as at m
            a = op.attrs["axis"]
            row = m[:a] + ("cols",) + m[a + (1 if op.attrs["keepdim"] else 0):]
            self.row_check(row, x, op.name, a)
            return row
        row = (m[:-k] if op.attrs["keepdim"] else m) + ("cols",)
        if k == 1:
            self.row_check(row, x, op.name)
            return row
        src = self.shapes.dims[x]
        merged = merge_trailing(src, k, self.shapes.n)
        if not self.shapes.equal(merged[-1], self.domain[-1]):
            raise Unfusable(f"{op.name} '{node.name}' reduces dims of another size than the row")
        return self.reshape(row, merged, src)

    def ancestors(self, roots: list[Node]) -> set[Node]:
        """``roots`` and the group's nodes they are computed from."""
        seen, todo = set(), list(roots)
        while todo:
            n = todo.pop()
            if n in seen or n not in self.ops:
                continue
            seen.add(n)
            todo += [a for a in self.ops[n].args if isinstance(a, Node)]
        return seen

    def group_check(self, node: Node, op: Op) -> None:
        """A group norm's row: one channel's last dim (a group per channel, [N, C, L]) or a
        whole group (``shapes.group_rows``); the phase's row must be that one."""
        x, g = self.shapes.dims[op.args[0]], op.attrs["groups"]
        if any(v % g for v in x[1].vals):
            raise Unfusable("group_norm's channels are not a multiple of its groups")
        whole = grouped(x, g)
        row = group_rows(x, g, self.shapes.n)[-1] if whole else x[-1]
        if not self.shapes.equal(row, self.domain[-1]):
            raise Unfusable(f"group_norm '{node.name}' needs another row than the kernel's")
        self.shapes.guard(f"{x[1].expr} % {g} == 0" if whole else f"{x[1].expr} == {g}")

    def row_check(self, m: Map, node: Node, what: str, axis: int = -1) -> None:
        """``m`` runs along the kernel's row at ``axis`` (only there), over as many elements."""
        a = axis % len(m)
        if m[a] != "cols" or any(self.on_cols(t) for i, t in enumerate(m) if i != a):
            raise Unfusable(f"{what} '{node.name}' reduces a dim that is not the kernel's row")
        if not self.shapes.equal(self.shapes.dims[node][a], self.domain[-1]):
            raise Unfusable(f"{what} '{node.name}' reduces a dim of another size than the row")

    # -- values ----------------------------------------------------------------------------
    def stride(self, j: int, d: int) -> str:
        """The kernel parameter holding input ``j``'s stride along dim ``d``."""
        name = f"x{j}_s{d}"
        self.strides[name] = (j, d)
        self.pointers.add(j)
        return name

    def load(self, j: int, m: Map, integer: bool = False) -> str:
        """Input ``j`` at ``m``, as float32 (``integer``: as stored, for indices)."""
        self.pointers.add(j)
        terms = [f"{tok} * {self.stride(j, d)}" for d, tok in enumerate(m) if tok != "0"]
        to, other = ("", "0") if integer else (".to(tl.float32)", "0.0")
        if not terms:
            return self.let(f"tl.load(x{j}){to}")
        off = self.let(" + ".join(terms))
        if not any(t in self.row_vars or t in self.col_vars for t in m):
            return self.let(f"tl.load(x{j} + {off}){to}")  # one fixed element: x[3]
        mask = self.mask(m)
        return self.let(f"tl.load(x{j} + {off}, mask={mask}, other={other}){to}")

    def round(self, value: str, node: Node) -> str:
        dt = self.shapes.dtypes[node]
        if all(str(v) == "torch.float32" for v in dt.vals):
            return value
        if dt.index is not None:
            self.pointers.add(dt.index)
        return self.let(f"_round({value}, {dt.triton()})")

    def value(self, node: Node, m: Map) -> str:
        key = (node, m)
        if key not in self.values:
            self.first_map.setdefault(node, m)
            if node in self.index:
                self.values[key] = self.load(self.index[node], m)
            elif node in self.index_nodes:  # an integer result (an output): exact, not float
                self.values[key] = self.indices(node, m)
            else:
                self.values[key] = self._compute(node, m)
        return self.values[key]

    def indices(self, node: Node, m: Map) -> str:
        """An index node (``passnet.synth.indices``) at ``m``, in integers: an input loaded as
        stored, a view followed to its source, integer add/sub/mul of indices and literals."""
        key = (node, m)
        if key in self.int_values:
            return self.int_values[key]
        if node in self.index:
            out = self.load(self.index[node], m, integer=True)
        elif node not in self.index_nodes:
            raise Unfusable(f"'{node.name}' is read as indices but is no integer index value")
        elif (src := self._source(node, m)) is not None:
            out = self.indices(*src)
        elif (op := self.ops[node]).kind == "cast":  # to int64/int32: truncated toward zero
            x = op.args[0]
            exact = set(self.shapes.dtypes[x].vals) <= set(INTEGERS)  # an integer operand
            got = self.indices(x, m) if exact else self.value(x, m)
            out = self.let(f"{got}.to({self.shapes.dtypes[node].triton()})")
        else:
            args = [self.indices(a, self.broadcast(m, self.shapes.dims[node], a))
                    if isinstance(a, Node) else str(int(a)) for a in op.args]  # fmt: skip
            out = self.let(f"{args[0]} {INFIX[op.name]} {args[1]}")
        self.int_values[key] = out
        return out

    def operand(self, a: object, node: Node, m: Map) -> str:
        if isinstance(a, Node):
            return self.value(a, self.broadcast(m, self.shapes.dims[node], a))
        return repr(float(a))  # type: ignore[arg-type]

    def param(self, a: object, m: Map) -> str | None:
        """A per-channel / per-column parameter (weight, bias, running stats) at ``m``."""
        if a is None:
            return None
        if not isinstance(a, Node) or len(self.shapes.dims[a]) != 1:
            raise Unfusable("a normalisation parameter that is not one-dimensional")
        return self.value(a, m)

    def prelu(self, op: Op, m: Map) -> str:
        """``x > 0 ? x : w * x`` as eager's kernel: ``w`` one slope for every element, or one
        per channel (dim 1, eager's rule; dim 0 of a 1-D input)."""
        x, w = op.args
        wd, xd = self.shapes.dims[w], self.shapes.dims[x]
        if len(wd) != 1:
            raise Unfusable("prelu's weight is not one-dimensional")
        channel = 1 if len(xd) > 1 else 0
        if wd[0].all_one():
            at: Map = ("0",)
        elif self.shapes.equal(wd[0], xd[channel]):
            at = (m[channel],)
        else:
            raise Unfusable("prelu's weight is neither one slope nor one per channel")
        v, a = self.value(x, m), self.value(w, at)
        return self.let(f"tl.where({v} > 0.0, {v}, {a} * {v})")

    def _passable(self, x: object) -> bool:
        """A reshape or copy inside the group that nothing else needs at its own map."""
        op = self.ops.get(x) if isinstance(x, Node) else None
        return (
            op is not None
            and x not in self.outputs
            and len(x.users) == 1
            and (op.kind == "reshape" or (op.kind == "id" and op.name == "copy"))
        )

    def _source(self, node: Node, m: Map) -> tuple[Node, Map] | None:
        """Where a view or a copy (``id``) reads its value at ``m``: its operand and the map
        there; None for an op that computes."""
        op, dims = self.ops[node], self.shapes.dims[node]
        x = op.args[0]
        if op.kind == "id":
            return x, m
        if op.kind == "reshape":
            while self._passable(x):  # reshape(reshape(y)) is one reshape of y
                x = self.ops[x].args[0]
            return x, self.reshape(m, dims, self.shapes.dims[x])
        if op.kind == "permute":
            src = ["0"] * len(m)
            for i, p in enumerate(op.attrs["perm"]):
                src[p] = m[i]
            return x, tuple(src)
        if op.kind == "getitem":
            return x, self.index_map(m, op, self.shapes.dims[x])
        if op.kind == "expand":  # new leading dims dropped, broadcast dims at 0
            src_dims = self.shapes.dims[x]
            k = len(m) - len(src_dims)
            return x, tuple("0" if d.all_one() and not dims[k + i].all_one()
                            else m[k + i] for i, d in enumerate(src_dims))  # fmt: skip
        if op.kind == "unsqueeze":
            d = op.attrs["dim"]
            return x, m[:d] + m[d + 1 :]
        if op.kind == "squeeze":
            d = op.attrs["dim"]
            same = len(self.shapes.dims[x]) == len(dims)
            return x, m if same else m[:d] + ("0",) + m[d:]
        return None

    def _compute(self, node: Node, m: Map) -> str:
        op = self.ops[node]
        x = op.args[0]
        if op.kind == "pw" and op.name == "const":  # torch.tensor(v, dtype): v as eager rounds it
            return literal(float(torch.tensor(op.args[0], dtype=op.attrs["dtype"])))
        if op.kind == "fill":  # a block of the constant, in the phase's mask shape
            v = literal(op.attrs["value"])
            return self.let(f"tl.where(mask, {v}, {v})")
        if op.kind == "pw":
            args = [self.operand(a, node, m) for a in op.args]
            return self.round(pointwise(self, op, args), node)
        if op.kind == "cast" and op.attrs.get("dtype") is torch.bool:  # a flag: 1.0 or 0.0
            return self.let(f"tl.where({self.value(x, m)} != 0.0, 1.0, 0.0)")
        if (src := self._source(node, m)) is not None:
            return self.value(*src)
        if op.kind == "cast":
            return self.round(self.value(x, m), node)
        if op.kind == "cat":
            return self.cat(op, m)
        if op.kind == "gather" and "dim" in op.attrs:  # index_select: m[d] through the index
            d = op.attrs["dim"]
            return self.value(x, (*m[:d], self.indices(op.args[1], (m[d],)), *m[d + 1 :]))
        if op.kind == "gather":  # embedding: the weight's row named by the index at m[:-1]
            return self.value(x, (self.indices(op.args[1], m[:-1]), m[-1]))
        if op.kind == "bn":
            if not self.shapes.equal(self.shapes.dims[op.args[1]][0], self.shapes.dims[x][1]):
                raise Unfusable("batch_norm statistics of another size than the channels")
            params = [self.param(a, (m[1],)) for a in op.args[1:]]
            return self.round(norm(self, op, self.value(x, m), params), node)
        if op.kind == "prelu":
            return self.round(self.prelu(op, m), node)
        if op.kind == "linear":
            return linear(self, node, op, m)
        if op.kind == "maxpool":
            return max_pool(self, op, m)
        if op.kind == "interp":
            return self.round(bilinear(self, op, m), node)
        if op.kind in ("mean", "sum"):
            return self.round(reduce_row(self, op, self.value(x, self._reduced(node, m))), node)
        if op.kind == "gn":
            self.group_check(node, op)
        else:
            self.row_check(m, node, op.name, op.attrs.get("axis", -1))
        if op.kind == "normalize":  # eager rounds the norm and its clamp to the dtype
            return self.round(normalize_row(self, op, self.value(x, m),
                                            lambda v: self.round(v, node)), node)  # fmt: skip
        v = self.value(x, m)
        if op.kind == "softmax" and op.attrs.get("dtype") is not None:
            v = self.round(v, node)
        channel = (m[-1],) if op.kind == "ln" else (m[1],)
        params = [self.param(a, channel) for a in op.args[1:]]
        return self.round(reduce_row(self, op, v, params), node)
