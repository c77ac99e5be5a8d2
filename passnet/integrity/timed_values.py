"""Fresh input values for every timed call, and every timed output checked (SPEC section 8).

A pass that keeps state across calls can hand back the outputs of an earlier call when it
believes the inputs did not change, and one that can tell the checked timed calls from the
others can skip work on the rest. Both need a tell. Here there is none:

- A :class:`ValueBank` draws a few complete input sets from secret seeds on the device, just
  before timing, and runs the reference once on each (``expected``).
- Before every call of every timed side (warmup included), a :class:`Feed` writes one of the
  bank's sets into that side's own input tensors, chosen by a secret random sequence that
  never repeats the previous call's set. The tensors keep their identity, storage and version
  counter (:func:`write_values` writes through an alias with a counter of its own), so neither
  ``id``, ``data_ptr`` nor ``_version`` says that the values changed; a memo keyed on them
  returns the outputs of other values.
- Every candidate call's outputs are compared with the reference's on the same set
  (:func:`matches`, at the level the correctness trials reached; a slower full comparison
  only where that fails). Each side holds its calls' outputs (:class:`Held`) until the end
  of its block of calls, and the candidate's are compared there: comparing after every call
  put a comparison's host work (kernels, a synchronisation, its Python) between each pair of
  timed calls, and the next call ran on caches it had cooled, several microseconds slower on a
  launch-bound call, the reference paying none of it. Outputs held are distinct objects
  unless the pass hands one back again, which the comparison then sees.

Writing the inputs is harness work before ``t0``, the same for every side: the values come from
device memory the side's kernels read right after, as they would have on repeated inputs.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._pytree import tree_map

from passnet.core.tolerance import tolerance
from passnet.core.trees import leaves
from passnet.integrity.checks import clone_tree
from passnet.integrity.runtime import storage_key

MIN_SETS, MAX_SETS = 2, 8
BANK_BUDGET = {"cuda": 1 << 30, "cpu": 1 << 28}  # bytes the bank's sets and outputs may take
HOLD_BUDGET = 1 << 28  # bytes of outputs a side holds until its block of calls ends
STEPS_AHEAD = 512  # random bytes read at once for a Feed's steps
STACK_BYTES = 1 << 26  # bytes of one side's small tensors compared in one stack (``matches_many``)
STACK_ALONE = {"cuda": 1 << 20, "cpu": 1 << 13}  # larger tensors are compared on their own


def _nbytes(obj: Any) -> int:
    return sum(t.numel() * t.element_size() for t in leaves(obj) if isinstance(t, torch.Tensor))


def _budget(limit: int, device: torch.device) -> int:
    """``limit`` bytes, and at most an eighth of the free memory of a GPU."""
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return min(limit, free // 8)
    return limit


def bank_size(inputs: list[Any], outputs: Any, device: torch.device) -> int:
    """How many value sets fit the budget: at least two (the scheme needs a different set on
    consecutive calls), at most eight."""
    per_set = max(1, _nbytes(inputs) + _nbytes(outputs))
    budget = _budget(BANK_BUDGET["cuda" if device.type == "cuda" else "cpu"], device)
    return max(MIN_SETS, min(MAX_SETS, budget // per_set))


def storages(obj: Any) -> frozenset[int]:
    """The storages (by address, ``runtime.storage_key``) of ``obj``'s non-empty tensors."""
    return frozenset(k for t in leaves(obj) if (k := storage_key(t)) is not None)


def hold_count(outputs: Any, calls: int, device: torch.device) -> int:
    """How many calls' outputs a side holds before they are settled: a block's ``calls``
    where they fit ``HOLD_BUDGET`` (and an eighth of the free device memory), fewer where not,
    at least one."""
    return max(1, min(calls, _budget(HOLD_BUDGET, device) // max(1, _nbytes(outputs))))


class Held:
    """One side's timed outputs, held from its call until ``settle`` (the end of its block,
    or ``capacity`` calls): freeing none inside a block keeps the allocator's pattern the same
    on every side, and ``check`` (the candidate's) then sees the held calls' outputs with what
    each call was given (``keep``'s ``info``), all of them at once (a list of ``(out, info)``:
    one comparison for the lot, ``matches_many``), away from the timed windows."""

    def __init__(self, capacity: int,
                 check: Callable[[list[tuple[Any, Any]]], None] | None = None) -> None:  # fmt: skip
        self.capacity, self.check = max(1, capacity), check
        self.items: list[tuple[Any, Any]] = []

    def keep(self, out: Any, info: Any = None) -> None:
        self.items.append((out, info))
        if len(self.items) >= self.capacity:
            self.settle()

    def settle(self) -> None:
        items, self.items = self.items, []
        if self.check is not None and items:
            self.check(items)


def copy_shared(obj: Any, shared: frozenset[int]) -> Any:
    """``obj`` with each tensor over one of the ``shared`` storages (an input's: a view, an
    in-place result) replaced by a copy, so that it can be held past the next call's fresh
    values; the rest as it is. The copy is one device copy per such tensor, queued after the
    call: no comparison, no synchronisation between two timed calls."""

    def copy(leaf: Any) -> Any:
        return leaf.detach().clone() if storage_key(leaf) in shared else leaf

    with torch.no_grad():
        return tree_map(copy, obj)


def _alias(t: torch.Tensor) -> torch.Tensor:
    """A tensor over ``t``'s memory with its own version counter (writing it leaves ``t``'s)."""
    alias = torch.empty(0, dtype=t.dtype, device=t.device)
    return alias.set_(t.untyped_storage(), t.storage_offset(), t.size(), t.stride())


def aliases(dst: list[Any]) -> list[torch.Tensor | None]:
    """What ``write_values`` writes through: an alias of each non-empty tensor of ``dst``."""
    return [_alias(d) if isinstance(d, torch.Tensor) and d.numel() else None for d in dst]


def write_values(dst: list[Any], src: list[Any],
                 through: list[torch.Tensor | None] | None = None) -> None:  # fmt: skip
    """Copy ``src``'s tensor values into ``dst``'s tensors, leaving each destination's
    identity, storage and version counter as they were (``through``: ``aliases(dst)``, made
    once by a caller that writes the same tensors again and again)."""
    with torch.no_grad():
        copy_through(aliases(dst) if through is None else through, src)


def copy_through(through: list[torch.Tensor | None], src: list[Any]) -> None:
    """``src``'s tensor values into the ``aliases`` in ``through`` (under ``no_grad``, which
    ``write_values`` opens and a timing loop already holds)."""
    for alias, value in zip(through, src, strict=True):
        if alias is not None:
            alias.copy_(value)


class ValueBank:
    """Input sets drawn from secret seeds, and the reference's outputs on each."""

    def __init__(self, draw: Callable[[int], list[Any]], reference: Callable[..., Any],
                 size: int) -> None:  # fmt: skip
        self.values = [draw(secrets.randbits(31)) for _ in range(max(MIN_SETS, size))]
        with torch.no_grad():
            self.expected = [reference(*clone_tree(vs)) for vs in self.values]

    def __len__(self) -> int:
        return len(self.values)


class Feed:
    """One timed side's inputs: each call, a bank set other than the previous call's, by a
    secret random step. The steps are drawn ahead, a few hundred from one read of the
    system's random source: a draw per call put a system call (and its Python) between two
    timed calls, and the next call ran on the host caches it had cooled."""

    def __init__(self, bank: ValueBank, inputs: list[Any]) -> None:
        self.bank, self.inputs = bank, inputs
        self.through = aliases(inputs)  # the inputs' own storage, written every call
        self.current = -1  # the set the last call got (none yet)
        self._at = secrets.randbelow(len(bank))  # the first call's set is a step from here
        self._steps: list[int] = []

    def _step(self) -> int:
        """A uniform step in 1 .. len(bank) - 1 (never back to the same set)."""
        while not self._steps:
            span = len(self.bank) - 1
            limit = 256 - 256 % span  # rejection sampling: no modulo bias
            self._steps = [1 + b % span for b in secrets.token_bytes(STEPS_AHEAD) if b < limit]
        return self._steps.pop()

    def __call__(self) -> None:
        """Before a call: the next set into the side's inputs (``current`` names it), written
        through aliases (the timing loop runs under ``no_grad``)."""
        self.current = self._at = (self._at + self._step()) % len(self.bank)
        copy_through(self.through, self.bank.values[self.current])

    @property
    def expected(self) -> Any:
        """The reference's outputs on the set the last call got."""
        return self.bank.expected[self.current]


def matches(out: Any, expected: Any, level: int) -> bool:
    """Whether ``out`` passes tolerance level ``level`` against ``expected`` with the
    structure intact (same leaves, dtypes, shapes, devices; NaN only where the reference has
    it). Integer and bool tensors must be equal. One pair of ``matches_many``."""
    return matches_many([(out, expected)], level)[0]


def matches_many(pairs: list[tuple[Any, Any]], level: int) -> list[bool]:
    """``matches`` for every ``(out, expected)`` pair with one host synchronisation in all:
    each pair's tensors are compared on their device into a flag, and the flags are read
    together (a comparison read one by one waited for the device once per held call). Small
    tensors of one dtype, shape and device are stacked and compared in one go (``_flags``):
    a block's held calls are mostly such, and one comparison per call put a few kernel
    launches of host work per held call inside the timing lock."""
    ok = [True] * len(pairs)
    groups: dict[tuple, list[tuple[int, torch.Tensor, torch.Tensor]]] = {}
    for i, (out, expected) in enumerate(pairs):
        got, want = leaves(out), leaves(expected)
        if len(got) != len(want):
            ok[i] = False
            continue
        compared = []
        for c, r in zip(got, want, strict=True):
            if not isinstance(r, torch.Tensor):
                if isinstance(c, torch.Tensor) or c != r:
                    ok[i] = False
                    break
                continue
            if (type(c) is not torch.Tensor or c.dtype != r.dtype or c.shape != r.shape
                    or c.device != r.device):  # fmt: skip
                ok[i] = False
                break
            compared.append((c, r))
        if ok[i]:
            for c, r in compared:
                groups.setdefault((r.dtype, r.shape, r.device), []).append((i, c, r))
    owner: list[int] = []
    flags: list[torch.Tensor] = []
    for (dtype, _, _), members in groups.items():
        rtol, atol = tolerance(str(dtype), level) if dtype.is_floating_point else (0.0, 0.0)
        for chunk in _chunks(members):
            owner += [i for i, _, _ in chunk]
            flags.append(_flags(chunk, rtol, atol))
    if flags:
        device = flags[0].device
        for i, flag in zip(owner, torch.cat([f.to(device) for f in flags]).tolist(),
                           strict=True):  # fmt: skip
            ok[i] = ok[i] and bool(flag)
    return ok


def _chunks(members: list[tuple[int, torch.Tensor, torch.Tensor]]) -> list[list]:
    """``members`` (pairs of one dtype, shape and device) in stacks of at most ``STACK_BYTES``
    a side; a tensor larger than ``STACK_ALONE`` alone (stacking copies it: on a GPU that pays
    where a comparison costs launches more than bytes, on a CPU only for small tensors, whose
    comparisons stay in cache one by one)."""
    _, c0, _ = members[0]
    size = c0.numel() * c0.element_size()
    if size > STACK_ALONE["cuda" if c0.is_cuda else "cpu"]:
        return [[m] for m in members]
    per = max(1, STACK_BYTES // max(1, size))
    return [members[k : k + per] for k in range(0, len(members), per)]


def _flags(chunk: list[tuple[int, torch.Tensor, torch.Tensor]], rtol: float,
           atol: float) -> torch.Tensor:  # fmt: skip
    """One flag per pair of ``chunk``: all elements close (floats: ``isclose`` at ``rtol`` and
    ``atol``, NaN only where the reference has it) or equal (integers, bool)."""
    if len(chunk) == 1:
        got, want = chunk[0][1].unsqueeze(0), chunk[0][2].unsqueeze(0)
    else:
        got = torch.stack([c for _, c, _ in chunk])
        want = torch.stack([r for _, _, r in chunk])
    if want.is_floating_point():
        close = torch.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = torch.eq(got, want)
    return close.reshape(len(chunk), -1 if want[0].numel() else 0).all(1)
