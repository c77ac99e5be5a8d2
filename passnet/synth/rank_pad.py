"""Rank padding: a flat kernel generated for rank-R inputs also serves lower ranks.

A rule synthesised from 5-D graphs (a video ResNet's batch_norm + add + ReLU) matches the same
ops in a 2-D ResNet, whose inputs are 4-D: without this its kernel refuses them and the site
runs the pattern. Where every op of the kernel computes each element from its operands'
elements at the same coordinates (``OpDef.elementwise``: broadcasting aligns trailing dims)
or per channel along dim 1 (eval-mode ``batch_norm``), the computation on rank-r inputs is
the rank-R computation on the same inputs with R - r dims of size 1 inserted after dim 1:
dim 1 stays the channel, trailing-aligned operands keep their place, and a contiguous output
has the same memory either way. The plan (computed once per input signature) inserts those
dims into the full-rank inputs' shapes and strides and drops them from the output sizes, so a
call costs what it costs at rank R.

Inputs of lower rank than R (per-channel statistics, a bias over the last dims) are left as
they are, which is right only where they cover none of the dims from 2 on that the inserted
ones split: the plan pads rank r only when r >= 2 + the largest such input's rank.
"""

from __future__ import annotations

from passnet.synth.ir import BinOp, Call, Expr, Index, Int, Name, Tuple, cmp, conj
from passnet.synth.kernel import Kernel
from passnet.synth.registry import registered
from passnet.synth.stmts import Assign, If, Stmt

CHANNEL_OPS = frozenset({"batch_norm"})  # per channel along dim 1
AT = 2  # where the size-1 dims go: after the batch and channel dims
PAD = Name("p")  # how many the plan inserted (0 at the generated rank)


def pad_floor(k: Kernel, tensors: list[int]) -> int | None:
    """The lowest rank the plan pads up to the generated one (``tensors``: the inputs that are
    tensors), or None where the kernel cannot serve another rank this way."""
    if len(k.phases) != 1 or k.phases[0].mode != "flat" or k.aliases or k.writes:
        return None
    defs = registered()
    if not all(op in CHANNEL_OPS or (op in defs and defs[op].elementwise) for op in k.ops):
        return None
    ranks = [len(k.shapes.dims[k.inputs[j]]) for j in tensors]
    rank = max(ranks, default=0)
    if any(len(k.shapes.dims[o]) != rank for o in k.outputs):
        return None
    floor = max([AT] + [AT + r for r in ranks if r < rank])
    return floor if floor < rank else None


def _padded(x: Name, fill: int) -> Expr:
    """``x[:2] + (fill,) * p + x[2:]``."""
    ones = BinOp("*", Tuple((Int(fill),)), PAD)
    return BinOp("+", BinOp("+", Index(x, f":{AT}"), ones), Index(x, f"{AT}:"))


def padding(k: Kernel, tensors: list[int], floor: int, strided: set[int]) -> list[Stmt]:
    """The plan's first statements: ``p``, and each full-rank input's shape (``s<j>``) and,
    where the plan reads them, strides (``t<j>``) with ``p`` size-1 dims at dim 2."""
    ranks = {j: len(k.shapes.dims[k.inputs[j]]) for j in tensors}
    rank = max(ranks.values())
    full = [j for j in tensors if ranks[j] == rank]  # the generated rank: the ones padded
    n = Call("len", (Name(f"s{full[0]}"),))
    lower = conj("and", [cmp(">=", n, floor), cmp("<", n, rank)])
    body: list[Stmt] = [Assign((PAD,), BinOp("-", Int(rank), n))]
    for j in full:
        body.append(Assign((Name(f"s{j}"),), _padded(Name(f"s{j}"), 1)))
        if j in strided:
            body.append(Assign((Name(f"t{j}"),), _padded(Name(f"t{j}"), 0)))
    return [If(lower, tuple(body), (Assign((PAD,), Int(0)),))]


def unpadded(size: Expr) -> Expr:
    """An output's size at the inputs' own rank: ``size[:2] + size[2 + p:]``."""
    return BinOp("+", Index(size, f":{AT}"), Index(size, f"{AT} + p:"))
