"""The alias path: outputs that eager returns as views of an input, returned as views.

A group whose every output is a chain of views and ``contiguous()`` calls from one of its
inputs (``x.contiguous().reshape(1, 16, -1).contiguous()``, a head merge's ``reshape,
transpose, contiguous, reshape``) costs eager no kernel when the layouts allow it:
``contiguous()`` of a contiguous tensor returns that tensor, and a reshape is a view of a
contiguous tensor or to the tensor's own shape. The wrapper then does what eager does, checked
at run time with metadata alone (``is_contiguous``, ``shape``), and returns views of the
input; otherwise it launches the kernel, which copies where eager copies. The output aliases
the input exactly when eager's would, and no kernel is launched that eager does not launch.

Which layout an input arrives in is decided by the op that produced it, at run time and per
device: on the H200 the memory-efficient attention kernel (float32) returns its [B, H, S, D]
output as a transposed view of a [B, S, H, D] buffer, so the head merge after it is all views
there, while cuDNN and flash (half precision) and the CPU's math kernel return it contiguous
and the merge copies. The test is emitted
where some analysed variant is all views with its inputs contiguous or in that transposed
layout.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import torch
from torch.fx import Node

from passnet.synth.ir import (
    Attr,
    BinOp,
    Call,
    Expr,
    Index,
    Int,
    Name,
    Size,
    Tensor,
    Tuple,
    cmp,
    conj,
    method,
)
from passnet.synth.lower import Builder
from passnet.synth.op_model import Op
from passnet.synth.registry import Step
from passnet.synth.stmts import Assign, If, Return, Stmt


def shared_outputs(
    outputs: list[Node], inside: set[Node], ops: Mapping[Node, Op | str]
) -> str | None:
    """Why a group cannot return its ``outputs`` as eager does: two of them are views of one
    value the group computes (or that value and a view of it: ``cat`` and ``cat[1]``), one
    memory in eager that the kernel would write as two (seen by whoever compares their
    storage or writes one in place); None when no two are. Views of an input are the alias
    path's (:func:`input_chains`)."""
    seen: dict[Node, Node] = {}
    for out in outputs:
        base = out  # back through the group's views to the value whose memory they are
        while base in inside and (src := _view_of(ops.get(base))) is not None:
            base = src
        if base not in inside:
            continue
        if base in seen:
            return (f"outputs '{seen[base].name}' and '{out.name}' are views of one value "
                    f"'{base.name}' in eager, which the kernel would write apart")  # fmt: skip
        seen[base] = out
    return None


def _view_of(op: Op | str | None) -> Node | None:
    """The tensor ``op`` is a view of in eager (None: it computes, or is no op)."""
    return op.args[0] if isinstance(op, Op) and op.view and isinstance(op.args[0], Node) else None


def input_chains(b: Builder) -> list[tuple[int, list[Step]]] | None:
    """Per output, (the input it is a view chain of, the chain's steps from that input); None
    when some output is computed (or is an input itself), or when eager copies on every
    analysed variant in every layout its inputs may arrive in (a head split's
    ``transpose(1, 2).contiguous()`` of a contiguous input): the run-time test would then
    only cost time."""
    chains = []
    for out in b.outputs:
        steps: list[Step] = []
        n: Any = out
        while n not in b.index:
            op = b.ops.get(n) if isinstance(n, Node) else None
            step = op.defn.alias_step(n, op, b.shapes) if op is not None else None
            if step is None:
                return None
            steps.append(step)
            n = op.args[0]  # type: ignore[union-attr]
        if not steps:
            return None
        chains.append((b.index[n], steps[::-1]))
    if not any(_all_views(b, chains, k) for k in range(b.shapes.n)):
        return None
    return chains


def _all_views(b: Builder, chains: list[tuple[int, list[Step]]], k: int) -> bool:
    """Whether variant ``k``'s outputs are all views in eager for some layout of its inputs."""
    for j, steps in chains:
        shape = [d.vals[k] for d in b.shapes.dims[b.inputs[j]]]
        if not any(_views(t, steps, k) for t in _layouts(shape, steps, k)):
            return False
    return True


def _layouts(shape: list[int], steps: list[Step], k: int) -> Iterator[torch.Tensor]:
    """Layouts an input may arrive in (meta tensors): contiguous; and, where the chain's first
    permute follows only reshapes to the same shape, the layout that permute makes contiguous
    (an attention kernel's output on a GPU)."""
    yield torch.empty(shape, device="meta")
    if (first := _first_permute(steps)) is None:
        return
    n, perm = first
    if all([d.vals[k] for d in arg] == shape for _, arg in steps[:n]):
        inverse = sorted(range(len(perm)), key=perm.__getitem__)
        yield torch.empty([shape[p] for p in perm], device="meta").permute(*inverse)


def _first_permute(steps: list[Step]) -> tuple[int, tuple[int, ...]] | None:
    """The position and order of the chain's first permute, where only reshapes precede it."""
    for n, (verb, arg) in enumerate(steps):
        if verb == "permute":
            return n, tuple(arg)
        if verb != "view":
            return None
    return None


def _views(t: torch.Tensor, steps: list[Step], k: int) -> bool:
    """Whether eager runs the chain on ``t`` without a copy (the wrapper's tests, on meta)."""
    for verb, arg in steps:
        if verb == "contiguous" and not t.is_contiguous():
            return False
        if verb == "view":
            sizes = [d.vals[k] for d in arg]
            if not t.is_contiguous() and list(t.shape) != sizes:
                return False
            t = t.view(sizes)
        elif verb == "permute":
            t = t.permute(*arg)
        elif verb in ("unsqueeze", "squeeze"):
            t = getattr(t, verb)(arg)
    return True


def alias_lines(chains: list[tuple[int, list[Step]]]) -> list[Stmt]:
    """Wrapper statements that return the outputs as views of the inputs where eager would:
    one test before each step that needs a contiguous tensor (or, for a reshape, its own
    shape) and does not know it has one, each test's block holding the rest; falling through
    them all means the kernel copies."""
    items: list[Stmt | Expr] = []  # statements, and the tests that open a nested block
    results: list[Expr] = []
    for i, (j, steps) in enumerate(chains):
        value: Expr = Tensor(j)
        contiguous = False
        if (perm := _leading_permute(steps)) is not None:
            items.append(Assign((Name(f"st{j}"),), method(Tensor(j), "stride")))
            items.append(_dense(j, perm))
        for k, (verb, arg) in enumerate(steps):
            dims = Tuple(tuple(d.expr for d in arg), trailing=True) if verb == "view" else None
            if verb == "contiguous" and not contiguous:
                items.append(method(value, "is_contiguous"))
                contiguous = True
            elif verb == "view" and not contiguous:  # a view of a strided tensor: same shape only
                assert dims is not None  # a view's target shape is known
                same = cmp("==", Attr(value, "shape"), dims)
                items.append(BinOp("or", method(value, "is_contiguous"), same))
            if verb == "contiguous":
                continue
            new = Name(f"a{i}_{k}")
            if verb == "view":
                items.append(Assign((new,), method(value, "view", dims)))  # type: ignore[arg-type]
            elif verb == "permute":
                items.append(Assign((new,), method(value, "permute", *arg)))
                contiguous = contiguous and list(arg) == sorted(arg)
            else:  # unsqueeze / squeeze keep a contiguous tensor contiguous
                items.append(Assign((new,), method(value, verb, arg)))
            value = new
        results.append(value)
    body: list[Stmt] = [Return(results[0] if len(results) == 1
                               else Tuple(tuple(results), trailing=True))]  # fmt: skip
    for item in reversed(items):
        body = [If(item, tuple(body))] if isinstance(item, Expr) else [item, *body]
    return body


def _leading_permute(steps: list[Step]) -> tuple[int, ...] | None:
    """The chain's first permute when only reshapes of its rank come before it and a
    ``contiguous()`` after it: then the chain is all views only if the input permuted so is
    dense (with those reshapes to its own shape), which its strides tell without making a
    view: a contiguous attention output, as cuDNN and flash return it, fails at once."""
    if (first := _first_permute(steps)) is None:
        return None
    n, perm = first
    after = any(verb == "contiguous" for verb, _ in steps[n + 1 :])
    if after and list(perm) != sorted(perm) and all(len(a) == len(perm) for _, a in steps[:n]):
        return perm
    return None


def _dense(j: int, perm: tuple[int, ...]) -> Expr:
    """``in{j}.permute(perm).is_contiguous()`` from its sizes ``s{j}`` and strides ``st{j}``:
    each dim of size other than 1 has the product of the later dims' sizes as its stride."""
    terms: list[Expr] = [cmp("==", Call("len", (Name(f"s{j}"),)), len(perm))]
    later: Expr = Int(1)
    for p in reversed(perm):
        stride = Index(Name(f"st{j}"), Int(p))
        terms.append(BinOp("or", cmp("==", Size(j, p), 1), cmp("==", stride, later)))
        later = Size(j, p) if later == Int(1) else later * Size(j, p)
    return conj("and", terms)
