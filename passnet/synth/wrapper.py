"""The replacement wrapper of a synthesised rule: check the inputs, allocate, launch.

Everything the wrapper works out before launching (rank checks, guards, broadcast sizes,
output sizes, the strides it passes, block sizes and the grid) depends on the inputs'
shapes, strides, dtypes and device type only, so it is a *plan* computed once per input
signature (``passnet.passes.plans.plan_cache``, a dict lookup per call); a call then costs the
key, the lookup, the allocations and the launch. Kernels whose outputs may be views of their
inputs keep the plain form, every step on every call (the views are made per call).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from torch.fx import Node

from passnet.synth.alias import alias_lines
from passnet.synth.kernel import Kernel
from passnet.synth.shapes import MAX_ROW, atom, prod


def tuple_source(items: list[str]) -> str:
    """Python source of a tuple of the expressions ``items``."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _pow2(x: str) -> str:
    """The smallest power of two >= ``x`` (>= 1), inline: ``triton.next_power_of_2`` and
    ``triton.cdiv`` are Python calls that cost more host time than the arithmetic."""
    return f"1 << ({x} - 1).bit_length()"


_MAX_CALL = re.compile(r"max\([^()]*\)")


def _hoist_max(lines: list[str], start: int) -> list[str]:
    """Give each distinct broadcast size ``max(s0[k], s1[k])`` in ``lines[start:]`` a local
    computed once (``m0 = max(...)``), inserted at ``start``: the wrapper runs on every call."""
    found = list(dict.fromkeys(m for line in lines[start:] for m in _MAX_CALL.findall(line)))
    if not found:
        return lines
    names = {expr: f"m{k}" for k, expr in enumerate(found)}
    body = [_MAX_CALL.sub(lambda m: names[m.group(0)], line) for line in lines[start:]]
    return lines[:start] + [f"    {v} = {k}" for k, v in names.items()] + body


@dataclass(frozen=True)
class Tuning:
    """A launch shape chosen on the device (``passnet.synth.tune``): elements per program of a
    flat phase, the BLOCK_M x BLOCK_N budget and row cap of a row phase, and warps. A tuned
    module uses it on every device; an untuned one picks per device at run time."""

    flat_block: int = 1024
    row_tile: int = 4096
    max_rows: int = 64
    num_warps: int = 4


def _grid_lines(fname: str, k: Kernel, tuning: Tuning | None = None) -> list[str]:
    """Per phase: its size, block sizes and program count ``g<i>``."""
    lines = []
    multi = len(k.phases) > 1
    lo = 16 if k.dots else 1  # tl.dot's smallest tile side
    for i, ph in enumerate(k.phases):
        sfx = f"_{i}" if multi else ""
        dom = ph.domain
        if ph.mode == "flat":
            lines.append(f"    numel{sfx} = {prod(dom, k.shapes.n).expr}")
            if tuning is not None:
                lines.append(f"    BLOCK{sfx} = {tuning.flat_block}")
            else:
                lines.append(f"    BLOCK{sfx} = 1024 if in0.is_cuda else "
                             f"min({_pow2(f'numel{sfx}')}, 65536)")  # fmt: skip
            lines.append(f"    g{i} = (numel{sfx} + BLOCK{sfx} - 1) // BLOCK{sfx}")
            continue
        n = dom[-1]
        lines.append(f"    n_rows{sfx} = {prod(dom[:-1], k.shapes.n).expr}")
        if n.literal is not None:
            lines.append(f"    BLOCK_N{sfx} = {1 << max(n.literal - 1, 0).bit_length()}")
        else:
            lines.append(f"    BLOCK_N{sfx} = {_pow2(atom(n.expr))}")
            lines.append(f"    if BLOCK_N{sfx} > {MAX_ROW}:")
            lines.append(f'        raise ValueError("{fname}: rows longer than {MAX_ROW} elements")')
        if tuning is not None:
            lines.append(f"    BLOCK_M{sfx} = max({lo}, min({tuning.max_rows}, "
                         f"{tuning.row_tile} // BLOCK_N{sfx}))")  # fmt: skip
            lines.append(f"    g{i} = (n_rows{sfx} + BLOCK_M{sfx} - 1) // BLOCK_M{sfx}")
            continue
        lines.append("    if in0.is_cuda:")
        lines.append(f"        BLOCK_M{sfx} = max({lo}, min(64, 4096 // BLOCK_N{sfx}))")
        lines.append("    else:")
        lines.append(f"        BLOCK_M{sfx} = max({lo}, min({_pow2(f'n_rows{sfx}')}, "
                     f"65536 // BLOCK_N{sfx}))")
        lines.append(f"    g{i} = (n_rows{sfx} + BLOCK_M{sfx} - 1) // BLOCK_M{sfx}")
    return lines


def _checks(fname: str, k: Kernel) -> list[str]:
    """The rank check (its two lines first), then the guards: lines over ``s<j>``."""
    shapes = k.shapes
    ranks = [f"len(s{j}) != {len(shapes.dims[node])}" for j, node in enumerate(k.inputs)]
    lines = [f"    if {' or '.join(ranks)}:",
             f'        raise ValueError("{fname}: an input of another rank than generated for")']
    if shapes.guards:
        lines.append("    if not (" + "\n            and ".join(shapes.guards) + "):")
        lines.append(f'        raise ValueError("{fname}: shapes outside those generated for")')
    return lines


def _size(k: Kernel, node: Node) -> str:
    """An output's size tuple, over ``s<j>``."""
    dims = k.shapes.dims[node]
    return tuple_source([d.expr for d in dims]) if dims else "()"


def _alloc(i: int, k: Kernel, size: str) -> str:
    """Output ``i`` allocated: on ``in0``'s device, in its dtype (an input's: that input's
    ``new_empty``, which takes its dtype and device)."""
    dtype = k.shapes.dtypes[k.outputs[i]].python()
    if re.fullmatch(r"in\d+\.dtype", dtype):
        return f"    y{i} = {dtype.split('.')[0]}.new_empty({size})"
    return f"    y{i} = in0.new_empty({size}, dtype={dtype})"


def _returns(k: Kernel) -> str:
    outs = [f"y{i}" for i in range(len(k.outputs))]
    return f"    return {outs[0] if len(outs) == 1 else tuple_source(outs)}"


def _plain_wrapper(
    fname: str, kname: str, k: Kernel, n_inputs: int, args: list[str], tuning: Tuning | None,
    wrap: bool = True,
) -> str:  # fmt: skip
    """Everything on every call: the form for kernels whose outputs may be views of their
    inputs (those are made per call, from the tensors themselves)."""
    lines = [_def(fname, n_inputs, wrap)]
    lines += [f"    s{j} = in{j}.shape" for j in range(n_inputs)]
    after_ranks = len(lines) + 2
    lines += _checks(fname, k)
    if k.aliases:
        lines += alias_lines(k.aliases)
    strided = sorted({j for j, _ in k.strides.values()})
    lines += [f"    t{j} = in{j}.stride()" for j in strided]
    lines += [_alloc(i, k, _size(k, o)) for i, o in enumerate(k.outputs)]
    lines += _grid_lines(fname, k, tuning)
    grid = " + ".join(f"g{i}" for i in range(len(k.phases)))
    lines.append(f"    if {grid} > 0:")
    lines.append(f"        {kname}[({grid},)](")
    lines += [f"            {a}," for a in args]
    if tuning is not None:
        lines.append(f"            num_warps={tuning.num_warps},")
    lines.append("        )")
    lines.append(_returns(k))
    return "\n".join(_hoist_max(lines, after_ranks)) + "\n"


def _def(fname: str, n_inputs: int, wrap: bool) -> str:
    inputs = ", ".join(f"in{j}" for j in range(n_inputs))
    return ("@torch.fx.wrap\n" if wrap else "") + f"def {fname}({inputs}):"


def wrapper_source(
    fname: str, kname: str, k: Kernel, n_inputs: int, args: list[str], tuning: Tuning | None,
    wrap: bool = True,
) -> str:  # fmt: skip
    """The replacement ``fname`` launching ``kname`` with ``args`` (the kernel's parameters'
    expressions, in order); ``wrap``: decorated with ``torch.fx.wrap`` (a rule's replacement,
    not one kernel's wrapper behind a rank dispatch)."""
    planned = None if k.aliases else _planned_wrapper(fname, kname, k, n_inputs, args, tuning,
                                                      wrap)  # fmt: skip
    return planned or _plain_wrapper(fname, kname, k, n_inputs, args, tuning, wrap)


_KEYWORD = re.compile(r"(\w+)=(?!=)(.*)")
_TENSOR_ARG = re.compile(r"(in|y)\d+")


def _plan_lines(fname: str, k: Kernel, args: list[str], tuning: Tuning | None) -> list[str]:
    """The plan function's body over ``s<j>`` (and ``t<j>``, ``in<j>.dtype``, ``in0.is_cuda``):
    checks, then ``return (output sizes..., grid, launch?, int args, keyword args)``."""
    lines = _checks(fname, k) + _grid_lines(fname, k, tuning)
    sizes = [_size(k, o) for o in k.outputs]
    keywords = [m.groups() for a in args if (m := _KEYWORD.fullmatch(a))]
    if tuning is not None:
        keywords.append(("num_warps", str(tuning.num_warps)))
    ints = [a for a in args if not _TENSOR_ARG.fullmatch(a) and not _KEYWORD.fullmatch(a)]
    grid = " + ".join(f"g{i}" for i in range(len(k.phases)))
    consts = "{" + ", ".join(f'"{name}": {value}' for name, value in keywords) + "}"
    lines.append(f"    return ({', '.join(sizes)}, ({grid},), {grid} > 0, "
                 f"{tuple_source(ints) if ints else '()'}, {consts})")  # fmt: skip
    return _hoist_max(lines, 2)  # after the rank check


def _planned_wrapper(
    fname: str, kname: str, k: Kernel, n_inputs: int, args: list[str], tuning: Tuning | None,
    wrap: bool,
) -> str | None:  # fmt: skip
    """A plan function memoised by input signature and the wrapper that looks it up (module
    docstring); None when the plan would read anything but metadata."""
    body = "\n".join(_plan_lines(fname, k, args, tuning))
    body = re.sub(r"\bin(\d+)\.dtype\b", r"d\1", body).replace("in0.is_cuda", "cuda")
    if re.search(r"\bin\d+\b", body):
        return None
    used = [(f"s{j}", f"in{j}.shape") for j in range(n_inputs)]
    used += [(f"t{j}", f"in{j}.stride()") for j in range(n_inputs)
             if re.search(rf"\bt{j}\[", body)]  # fmt: skip
    used += [(f"d{j}", f"in{j}.dtype") for j in range(n_inputs) if re.search(rf"\bd{j}\b", body)]
    used += [("cuda", "in0.is_cuda")] if re.search(r"\bcuda\b", body) else []
    plan = f"_{fname}_plan"
    out = [f"@plan_cache\ndef {plan}({', '.join(p for p, _ in used)}):", body, "", ""]
    sizes = [f"o{i}" for i in range(len(k.outputs))]
    out.append(_def(fname, n_inputs, wrap))
    key = ", ".join(e for _, e in used) + ("," if len(used) == 1 else "")
    out.append(f"    {', '.join(sizes)}, grid, launch, ints, consts = {plan}[{key}]")
    out += [_alloc(i, k, size) for i, size in enumerate(sizes)]
    tensors = [a for a in args if _TENSOR_ARG.fullmatch(a)]
    out.append("    if launch:")
    out.append(f"        {kname}[grid]({', '.join(tensors)}, *ints, **consts)")
    out.append(_returns(k))
    return "\n".join(out) + "\n"
