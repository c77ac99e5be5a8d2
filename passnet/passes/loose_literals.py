"""Literals a pattern and a graph may disagree on, because they cannot change the result.

Literals must be equal, except two that provably change neither the result nor anything
outside the match (``LooseLiterals.loose``):

* ``momentum`` of ``batch_norm`` (``F.batch_norm``, ``torch.batch_norm``) when ``training`` is
  the literal False on both sides: eval-mode batch norm never reads it.
* ``inplace`` of an activation (``F.relu``, ``relu6``, ``hardtanh``, ``hardswish``,
  ``hardsigmoid``, ``silu``, ``leaky_relu``, ``elu``, ``celu``, ``selu``, ``mish``,
  ``threshold``; not dropout) when, on both sides, its input is *private* to the match: made
  inside it by an op that always allocates its result (``_FRESH``, or an activation with
  ``inplace=False``), or by an in-place op (``x += y``, ``relu(x, inplace=True)``, ``x.add_(y)``)
  on such a private tensor, every link of that chain read by its one user alone. Then the
  in-place write lands in memory nothing else reads, and the two spellings compute the same.
  The graph's side may also take its input from outside the match if that chain is private to
  the whole graph (torchvision's ``conv2d`` then ``relu(inplace=True)``: the convolution's
  output is read by the activation alone, never a graph input or attribute): eager's write is
  then invisible whatever the pattern says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch.fx import Node

from passnet.graph.aliasing import shared_write
from passnet.passes.calls import INPLACE, short_name

_F = "torch.nn.functional."
_BATCH_NORM = {_F + "batch_norm", "torch.batch_norm"}
# Activations whose ``inplace`` flag changes only where the result is written, never its values.
_INPLACE_FLAG = {_F + n for n in (
    "relu relu6 hardtanh hardswish hardsigmoid silu leaky_relu elu celu selu mish threshold "
    "_threshold").split()}  # fmt: skip
# Ops whose result is always a new tensor, never one of their inputs or a view of one (unless
# an ``out=`` is given). Not here, so never private: views, casts and ``contiguous`` (may return
# their input), dropout (returns its input in eval), pad, anything unlisted.
_FRESH = {
    *(_F + n for n in (
        "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d linear "
        "bilinear batch_norm instance_norm layer_norm group_norm max_pool1d max_pool2d "
        "max_pool3d avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d adaptive_avg_pool2d "
        "adaptive_avg_pool3d softmax log_softmax gelu sigmoid tanh").split()),
    *("torch." + n for n in (
        "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d batch_norm "
        "layer_norm group_norm instance_norm addmm mm bmm matmul add sub mul div relu sigmoid "
        "tanh").split()),
    *("operator." + n for n in "add sub mul truediv matmul neg".split()),
    *("Tensor." + n for n in "add sub mul div matmul relu sigmoid tanh softmax".split()),
}  # fmt: skip


def _computed(n: Node) -> bool:
    """A node the graph computes (not an input, parameter or buffer it was handed)."""
    return n.op not in ("placeholder", "get_attr")


def _arg(args: list[tuple[str, Any]], name: str, missing: Any = None) -> Any:
    """The value of parameter ``name`` in ``normalized_args`` output, else ``missing``."""
    return next((v for label, v in args if label.rstrip("=") == name), missing)


class LooseLiterals:
    """The matcher's exceptions to "literals must be equal", given the matcher's (cached)
    argument normaliser and op naming."""

    def __init__(
        self, args_of: Callable[[Node], list[tuple[str, Any]]], key_of: Callable[[Node], str]
    ) -> None:
        self.args_of, self.key_of = args_of, key_of

    def loose(self, pn: Node, gn: Node, name: str, rev: dict) -> str | None:
        """None if argument ``name`` of matched ``pn``/``gn`` may differ (module docstring);
        else why it may not, for the closest-miss text ('' where no rule covers it).

        Called after the arguments before ``name`` have matched, so ``rev`` already binds the
        nodes upstream of ``gn`` (its input included) to their pattern counterparts."""
        key = self.key_of(gn)
        if name == "momentum" and key in _BATCH_NORM:
            training = _arg(self.args_of(pn), "training"), _arg(self.args_of(gn), "training")
            if all(t is False for t in training):
                return None
            return "momentum may differ only where training=False on both sides"
        if name == "inplace" and key in _INPLACE_FLAG:

            def inside(n: Node) -> bool:
                return n in rev and rev[n].op != "placeholder"

            why = self._private_input(gn, inside, "graph")
            if why is not None and self._private_input(gn, _computed, "graph") is None:
                return None  # private to the whole graph: the write is seen by nothing
            why = why or self._private_input(pn, lambda n: n.op != "placeholder", "pattern")
            if why is None:
                return None
            return (
                "inplace may differ only where the activation's input is made inside the match "
                f"and read by nothing else; {why}"
            )
        return ""

    def _private_input(self, node: Node, inside: Callable[[Node], bool], side: str) -> str | None:
        """None if ``node``'s input tensor is private to the match (module docstring), else why
        not. ``inside``: whether a node of this side is a compute node of the match."""
        why = shared_write(node, self.args_of(node)[0][1], inside,
                           lambda v: "fresh" if self._fresh(v) else self._aliased(v))  # fmt: skip
        if why is None:
            return None
        v = why.node
        if why.kind == "literal":
            return f"the {side}'s input is the literal {v!r}"
        if why.kind == "input":
            return f"{side} node '{v.name}' is an input of the match, not made inside it"
        if why.kind == "read":
            other = why.other.name if why.other is not None else "another node"
            return f"{side} node '{v.name}' also feeds '{other}'"
        return (f"{side} node '{v.name}' ({short_name(self.key_of(v))}) may share memory with "
                "another tensor")  # fmt: skip

    def _fresh(self, v: Node) -> bool:
        """Whether ``v``'s result is a new tensor, never an input of ``v`` or a view of one."""
        if v.op not in ("call_function", "call_method") or v.target in INPLACE:
            return False  # operator.iadd returns its first argument
        args = self.args_of(v)
        if _arg(args, "out") is not None:
            return False
        key = self.key_of(v)
        if key in _INPLACE_FLAG:
            return _arg(args, "inplace") is False
        return key in _FRESH

    def _aliased(self, v: Node) -> Any:
        """The argument whose memory an in-place op ``v`` writes and returns, else None."""
        if v.op == "call_function" and v.target in INPLACE:
            return v.args[0]  # x += y
        if v.op == "call_method" and str(v.target).endswith("_") and v.args:
            if not str(v.target).endswith("__"):
                return v.args[0]  # x.add_(y), x.relu_()
        if self.key_of(v) in _INPLACE_FLAG and _arg(self.args_of(v), "inplace") is True:
            return self.args_of(v)[0][1]
        return None
