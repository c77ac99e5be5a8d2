"""The op registry: one :class:`OpDef` per supported op, registered with :func:`register`.

A registration is the whole of what the synthesizer knows about an op: the FX targets it
answers to and its argument binder (:meth:`OpDef.bind`, which makes the :class:`Op` record),
its shape rule, its dtype rule, its lowering into the kernel IR at a map of coordinates
(:meth:`OpDef.lower`, :mod:`passnet.synth.lower`), how many kernels eager launches for it,
and the few facts the rest of the pipeline asks about it (is it a view, which reduction it is,
how it moves coordinates). Classification (:func:`passnet.synth.ops.classify`) looks the
target up; shape inference, lowering and scheduling ask the op's ``defn``.

Adding an op is one registration::

    @register
    class Abs(Unary):
        name = "abs"
        targets = ("torch.abs", "Tensor.abs")

        def emit(self, b, a):
            return b.let(call("tl.abs", a))

Families share their rules through base classes (``Unary``, ``Pointwise``, ``Collapsing``
in :mod:`passnet.synth.opdefs`); a new reduction is a registration plus its IR pattern
(``Collapsing.combine``: the row's tile to one value per row).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

import torch
from torch.fx import Node

from passnet.synth.ir import Expr
from passnet.synth.op_model import Op, Reduction
from passnet.synth.shapes import Dim, DType, Shapes, Unfusable, merge_trailing, promote

if TYPE_CHECKING:
    from passnet.synth.lower import Builder, Map

Step = tuple[str, Any]
"""An alias-path step (``passnet.synth.alias``): ``("contiguous", None)``, ``("view", dims)``,
``("permute", perm)``, ``("unsqueeze", dim)`` or ``("squeeze", dim)``."""


class OpDef:
    """One supported op. Class attributes say what it is; methods are its rules. Defaults
    fit an op that computes one value per element of its first operand's shape."""

    name: ClassVar[str] = ""
    targets: ClassVar[tuple[str, ...]] = ()  # canonical call names (passnet.passes.calls)
    eager_kernels: ClassVar[int] = 1  # kernels eager launches for it
    is_view: ClassVar[bool] = False  # eager returns a view of its operand: no kernel
    needs_row: ClassVar[bool] = False  # lowered on a row phase's [BLOCK_M, BLOCK_N] tiles
    window: ClassVar[bool] = False  # reads a window of its operand per output (pool, resize)
    may_copy: ClassVar[bool] = False  # a reshape: eager copies where the layout cannot view
    moves_layout: ClassVar[bool] = False  # reshape / permute / copy: ``forward`` maps coords
    folds_into_reshape: ClassVar[bool] = False  # reshape(this(y)) reads y directly
    constant_operands: ClassVar[bool] = False  # its first operand may be a Python number
    idempotent: ClassVar[bool] = False  # f(f(x)) == f(x): an in-place write may be re-read
    parts: ClassVar[bool] = False  # a split (chunk): a tuple of pieces, each getitem a view
    elementwise: ClassVar[bool] = False  # each element from its operands' at its coordinates

    # -- classification --------------------------------------------------------------------
    def bind(self, key: str, node: Node, rank: int) -> Op | str | None:
        """The node as an :class:`Op` (``key`` its canonical target, ``rank`` its first
        operand's), a reason it is not supported, or None when the call is not this op's."""
        raise NotImplementedError(self.name)

    def op(self, args: list[Any], attrs: dict[str, Any] | None = None, name: str = "") -> Op:
        return Op(self, list(args), attrs or {}, name)

    def piece(self, split: Node, index: Any) -> Op | str:
        """For a split (``parts``): the getitem ``split[index]`` as an op of its own (a view
        of the split's operand), or why it is not supported."""
        raise NotImplementedError(self.name)

    def free(self, op: Op, label: str, value: Any) -> tuple[Any, str] | None:
        """Whether the literal argument ``label`` (its name as the matcher labels it:
        ``eps``, ``dim``, a position ``2`` where the call has no signature) with ``value``
        may be free in a generic rule (``passnet.synth.free``): (what the op's rules read it
        as, ``Shapes.freed``; a keyword to name it), or None to keep it literal."""
        return None

    # -- shapes and dtypes -----------------------------------------------------------------
    def shape(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        """The node's dims from its operands' (default: its first operand's)."""
        return list(operand_dims(shapes, op))

    def dtype(self, shapes: Shapes, node: Node, op: Op, actual: tuple[torch.dtype, ...]) -> DType:
        """The node's dtype (default: its first tensor operand's)."""
        return promote(shapes, op.name, [shapes.dtypes[a] for a in op.args[:1]
                                         if isinstance(a, Node)], actual)  # fmt: skip

    # -- lowering --------------------------------------------------------------------------
    def lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        """The node's value at map ``m`` in the kernel IR (default: its ``source``'s)."""
        src = self.source(b, node, op, m)
        if src is None:
            raise Unfusable(f"no lowering for {op.name}")
        return b.value(*src)

    def source(self, b: Builder, node: Node, op: Op, m: Map) -> tuple[Node, Map] | None:
        """Where a view or a copy reads its value at ``m``: its operand and the map there;
        None for an op that computes."""
        return None

    def forward(self, b: Builder, op: Op, m: Map, src: list[Dim], dst: list[Dim]) -> Map:
        """For a layout move: the coordinates in the result of the operand's element at ``m``."""
        raise NotImplementedError(self.name)

    def int_lower(self, b: Builder, node: Node, op: Op, m: Map) -> Expr:
        """The node at ``m`` computed in integers (an index value or an integer result)."""
        raise Unfusable(f"'{node.name}' is read as indices but {op.name} is not exact on them")

    # -- facts the pipeline asks -----------------------------------------------------------
    def view(self, op: Op) -> bool:
        return self.is_view and not op.attrs.get("copy")

    def reduction(self, op: Op) -> Reduction | None:
        """What it reduces (None: not a reduction)."""
        return None

    def row_domain(self, shapes: Shapes, node: Node, op: Op) -> list[Dim]:
        """The domain of a phase computing this collapsing reduction, its row last: the
        operand's dims, the trailing dims it reduces merged into one row."""
        red = op.reduction
        assert red is not None and red.collapses  # asked of collapsing reductions only
        return merge_trailing(shapes.dims[op.args[0]], red.dims, shapes.n)

    def alias_step(self, node: Node, op: Op, shapes: Shapes) -> Step | None:
        """The step eager takes without a copy when the layout allows (``alias.py``)."""
        return None

    def exact_on_integers(self, op: Op) -> bool:
        """Whether it gives exact integer results on integer operands (index values)."""
        return False

    def int_result(self, op: Op) -> bool:
        """Whether it makes an int64/int32 value from a float one (a cast)."""
        return False

    def index_operand(self, op: Op) -> int | None:
        """Which operand it reads as indices (an embedding's, index_select's)."""
        return None

    def reads_as_integers(self, op: Op, value: Node) -> bool:
        """Whether it reads ``value`` as stored integers (its indices; a comparison's
        operand), so that an integer ``value`` is computed in integers (``indices.py``)."""
        k = self.index_operand(op)
        return k is not None and op.args[k] is value and op.args[0] is not value

    def reads_exactly(self, op: Op, value: Node) -> bool:
        """Whether it reads the integer or bool tensor ``value`` in a way a float kernel
        reproduces exactly (a cast to a float dtype or to bool, a mask)."""
        return False

    def flag(self, op: Op) -> bool:
        """Whether its result is a bool flag (1.0 / 0.0 in the kernel; an output is stored
        as bool, ``Builder.store``)."""
        return False

    def moves_values(self, op: Op) -> bool:
        """Whether its elements are its tensor operands' own, moved by an index map (a view,
        a repeat, a copy, a cat): of bool operands, a bool value the kernel keeps as a flag."""
        return False


def operand_dims(shapes: Shapes, op: Op) -> list[Dim]:
    """The first operand's dims ([] for a number)."""
    return shapes.dims[op.args[0]] if isinstance(op.args[0], Node) else []


_BY_TARGET: dict[str, OpDef] = {}
_BY_NAME: dict[str, OpDef] = {}


def register(cls: type[OpDef]) -> type[OpDef]:
    """Class decorator: make the op's registration and answer its targets with it."""
    defn = cls()
    if not defn.name or not defn.targets:
        raise ValueError(f"{cls.__name__}: a registration needs a name and targets")
    for key in defn.targets:
        if key in _BY_TARGET:
            raise ValueError(f"{key} is registered twice ({_BY_TARGET[key].name}, {defn.name})")
    for key in defn.targets:
        _BY_TARGET[key] = defn
    _BY_NAME[defn.name] = defn
    return cls


def lookup(key: str) -> OpDef | None:
    """The registration answering canonical target ``key``."""
    return _BY_TARGET.get(key)


def registered() -> dict[str, OpDef]:
    """Every registration by name."""
    return dict(_BY_NAME)


@contextmanager
def scope() -> Iterator[None]:
    """Registrations made inside are forgotten on exit (tests add ops this way)."""
    targets, names = dict(_BY_TARGET), dict(_BY_NAME)
    try:
        yield
    finally:
        _BY_TARGET.clear()
        _BY_TARGET.update(targets)
        _BY_NAME.clear()
        _BY_NAME.update(names)
