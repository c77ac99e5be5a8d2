"""Checked calls of a candidate: what every correctness call, and a hidden sample of the timed
calls, must satisfy (SPEC section 8). Built on ``passnet.integrity.runtime``.

A checked call runs the guarded twin of the candidate on inputs the pass cannot predict, then
checks that the outputs are plain tensors, were not written after the call returned, do not
reuse the storage of an earlier call's outputs, do not alias inputs (unless the reference's
do), that inputs are unchanged (unless the reference changes them the same way) and that no
element was left unwritten. ``TimedSampler`` hides checked calls among the timed calls at
secret positions and marks them (``last_checked``), so timing drops their samples.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from passnet.core.results import Comparison
from passnet.core.trees import leaves  # noqa: F401 - checks.leaves is part of this module's API
from passnet.integrity.runtime import SETTLE_S, Runtime, storage_key
from passnet.scores.compare import compare_outputs

KEEP_OUTPUTS = 8  # earlier outputs held alive, so a reused storage cannot be a coincidence


def clone_tree(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.detach().clone()
    if isinstance(obj, (tuple, list)):
        return type(obj)(clone_tree(x) for x in obj)
    return obj


def same(a: Any, b: Any) -> bool:
    """Exact equality, NaN equal to NaN; nested lists/tuples leaf by leaf; others by ==."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        la, lb = leaves(a), leaves(b)
        return len(la) == len(lb) and all(same(x, y) for x, y in zip(la, lb, strict=True))
    if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        return bool(a == b)
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return False
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(torch.equal(torch.nan_to_num(a, nan=0.5), torch.nan_to_num(b, nan=0.5))) and (
            bool(torch.equal(a.isnan(), b.isnan()))
        )
    return bool(torch.equal(a, b))


def changed(before: list[Any], after: list[Any]) -> set[int]:
    return {i for i, (b, a) in enumerate(zip(before, after, strict=True)) if not same(b, a)}


def alias_map(outputs: Any, inputs: list[Any]) -> dict[int, tuple[str, int]]:
    """For each output leaf sharing storage: ("input", i) or ("output", j), j earlier."""
    keys = {storage_key(t): i for i, t in enumerate(inputs) if storage_key(t) is not None}
    seen: dict[int, int] = {}
    found: dict[int, tuple[str, int]] = {}
    for j, t in enumerate(leaves(outputs)):
        key = storage_key(t)
        if key is None:
            continue
        if key in keys:
            found[j] = ("input", keys[key])
        elif key in seen:
            found[j] = ("output", seen[key])
        seen.setdefault(key, j)
    return found


def null_level(reference: Any) -> int | None:
    """Strictest level at which all-zero outputs pass (None: never; -10: reference is zero)."""
    zeros = [torch.zeros_like(r) if isinstance(r, torch.Tensor) else r for r in leaves(reference)]
    try:
        return compare_outputs(zeros, leaves(reference)).tightest_passing_t
    except Exception:  # noqa: BLE001 - e.g. NaN in the reference: zeros are no shortcut
        return None


def _nearly_same(a: Any, b: Any, rel: float = 1e-3) -> bool:
    """Equal up to ``rel`` of the larger magnitude (scale-free, unlike allclose's atol)."""
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return same(a, b)
    if a.shape != b.shape or not (a.is_floating_point() or a.is_complex()):
        return same(a, b)
    if a.numel() == 0:
        return True
    a64, b64 = a.detach().double().nan_to_num(), b.detach().double().nan_to_num()
    scale = max(float(a64.abs().max()), float(b64.abs().max()))
    return scale == 0 or float((a64 - b64).abs().max()) <= rel * scale


def reference_flags(ref_a: Any, ref_b: Any | None) -> list[str]:
    """Flags of a degenerate reference from its outputs on two different seeds: all-zero
    outputs pass a level t <= -1 (an absolute tolerance does the work), or the outputs barely
    depend on the inputs."""
    flags = []
    level = null_level(ref_a)
    if level is not None and level <= -1:
        flags.append("reference-near-zero")
    if ref_b is None:
        return flags
    la, lb = leaves(ref_a), leaves(ref_b)
    if len(la) == len(lb) and all(_nearly_same(x, y) for x, y in zip(la, lb, strict=True)):
        flags.append("reference-input-independent")
    return flags


def _constant(t: torch.Tensor) -> bool:
    flat = t.detach().reshape(-1)
    return same(flat, flat[:1].expand_as(flat))


@dataclass
class Trial:
    output: Any
    reference: Any
    comparison: Comparison


@dataclass
class CandidateChecker:
    """Checked calls of one candidate on one variant."""

    rt: Runtime
    fn: Callable[..., Any]  # the guarded twin (or the plain callable where none exists)
    reference: Callable[..., Any]
    device: torch.device
    kept: list[Any] = field(default_factory=list)
    calls: int = 0
    # (outputs, their snapshots, indices still to compare) of checked calls whose late-write
    # comparison waits for ``settle_late`` (a timed call settles after the device's lock),
    # and when the last of them returned
    unsettled: list[tuple[list, list, list[int]]] = field(default_factory=list)
    last_deferred: float = 0.0
    launch_counts: list[int] = field(default_factory=list)  # counted launches of each call
    ref_aliases: dict[int, tuple[str, int]] | None = None  # the reference's, from ``judge``

    def call(
        self, inputs: list[Any], fill: bool = True, defer: bool = False
    ) -> tuple[Any, list[Any], set[int]]:
        """One checked call; returns (outputs, pristine copy of the inputs, changed inputs).

        ``defer``: no settle now; outputs that share no storage with an input are compared
        with their snapshot in ``settle_late`` (a longer window: up to the end of timing),
        the others at once (the harness rewrites inputs right after the call)."""
        rt = self.rt
        pristine = clone_tree(inputs)
        before = rt.probe()
        rt.nan_fill_device()
        with rt.call_scope(fill=fill):
            out = self.fn(*inputs)
        self.launch_counts.append(rt.launches)
        outs = leaves(out)
        odd = [f"output {j}: {type(t).__name__}" for j, t in enumerate(outs)
               if isinstance(t, torch.Tensor) and type(t) is not torch.Tensor]  # fmt: skip
        if odd:
            rt.add("output-not-plain", "; ".join(odd) + " (must be a plain torch.Tensor)")
            rt.verify()
            return out, pristine, set()
        snap = [t.detach().clone() if isinstance(t, torch.Tensor) else t for t in outs]
        rt.after_call(before, steady=self.calls > 0, settle_s=0.0 if defer else SETTLE_S)
        self.calls += 1
        rt.verify()
        inputs_keys = {storage_key(t) for t in inputs}
        in_input = [storage_key(t) in inputs_keys for t in outs]
        self.late_writes(outs, snap, [j for j, a in enumerate(in_input) if a or not defer])
        if later := [j for j, a in enumerate(in_input) if defer and not a]:
            self.unsettled.append((outs, snap, later))
            self.last_deferred = time.monotonic()
        old = {storage_key(t) for o in self.kept for t in leaves(o)} - {None} - inputs_keys
        reused = [j for j, t in enumerate(outs) if storage_key(t) in old]
        if reused:
            rt.add("output-reused", f"output(s) {reused} returned in the storage of an earlier "
                   "call's output (a cached or stale result)")  # fmt: skip
        self.kept = [*self.kept, out][-KEEP_OUTPUTS:]
        return out, pristine, changed(pristine, inputs)

    def late_writes(self, outs: list, snaps: list, index: list[int]) -> None:
        """A ``late-write`` finding for outputs (of ``index``) that differ from their snapshot
        taken at return."""
        late = [j for j in index if not same(snaps[j], outs[j])]
        if late:
            self.rt.add("late-write", f"output(s) {late} changed after the call returned "
                        "(work left running on a thread or stream)")  # fmt: skip

    def wait_deferred(self) -> None:
        """Wait until the last deferred call has had ``SETTLE_S`` to settle."""
        wait = SETTLE_S - (time.monotonic() - self.last_deferred) if self.unsettled else 0.0
        if wait > 0:
            time.sleep(wait)

    def settle_late(self) -> None:
        """The deferred late-write comparisons, once the last deferred call has settled."""
        if not self.unsettled:
            return
        self.wait_deferred()
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        for outs, snaps, index in self.unsettled:
            self.late_writes(outs, snaps, index)
        self.unsettled = []

    def judge(
        self, out: Any, inputs: list, mutated: set[int], ref: Any, ref_inputs: list, ref_mut: set
    ) -> None:
        """Aliasing, input mutation and unwritten elements, measured against the reference
        run on the same values (its alias map is remembered for ``judge_known``)."""
        self.ref_aliases = alias_map(ref, ref_inputs)
        self._judge_against(out, inputs, mutated, ref, ref_inputs, ref_mut)

    def judge_known(self, out: Any, inputs: list, mutated: set[int], expected: Any) -> None:
        """``judge`` for a call whose reference outputs on the same values are known already
        (``expected``: the timed calls' value bank) and whose reference writes into none of
        its inputs: the alias map the last ``judge`` saw (the graph's, whatever the values),
        every changed input a finding, no reference run."""
        if self.ref_aliases is None:
            raise RuntimeError("judge_known before any judge: the reference's aliasing unknown")
        self._judge_against(out, inputs, mutated, expected, [], set())

    def _judge_against(self, out: Any, inputs: list, mutated: set[int], ref: Any,
                       ref_inputs: list, ref_mut: set) -> None:  # fmt: skip
        """The findings of ``judge``, against ``ref_aliases`` and ``ref``: outputs aliased
        otherwise, inputs changed where (or not as) the reference changes them, elements left
        unwritten."""
        theirs = self.ref_aliases or {}
        bad = {j: a for j, a in alias_map(out, inputs).items() if theirs.get(j) != a}
        if bad:
            desc = ", ".join(f"output {j} shares storage with {k} {i}" for j, (k, i) in bad.items())
            self.rt.add("output-aliasing", desc + " (the reference's does not)")
        for i in sorted(mutated):
            if i not in ref_mut or not same(inputs[i], ref_inputs[i]):
                self.rt.add("input-mutated", f"input {i} was changed by the candidate "
                            + ("differently from" if i in ref_mut else "but not by")
                            + " the reference")  # fmt: skip
        self._judge_unwritten(out, ref)

    def _judge_unwritten(self, out: Any, ref: Any) -> None:
        """NaN where the reference is finite: elements never written (fresh allocations are
        NaN-filled). One count per output on the device, read back together."""
        pairs = [(j, c, r) for j, (c, r) in enumerate(zip(leaves(out), leaves(ref), strict=False))
                 if isinstance(c, torch.Tensor) and isinstance(r, torch.Tensor)
                 and c.shape == r.shape and c.is_floating_point() and r.is_floating_point()]  # fmt: skip
        if not pairs:
            return
        counts = torch.stack([(c.isnan() & r.isfinite()).sum() for _, c, r in pairs]).tolist()
        for (j, c, _), n in zip(pairs, counts, strict=True):
            if n:
                self.rt.add("unwritten-output", f"output {j}: {n} of {c.numel()} elements "
                            "are NaN where the reference is finite (never written: fresh "
                            "allocations are NaN-filled)")  # fmt: skip

    def trial(self, inputs: list[Any]) -> Trial:
        """Checked call, then the reference on the same values, then the comparison."""
        out, pristine, mutated = self.call(inputs)
        ref_inputs = clone_tree(pristine)
        with torch.no_grad():
            ref = self.reference(*ref_inputs)
        self.judge(out, inputs, mutated, ref, ref_inputs, changed(pristine, ref_inputs))
        return Trial(out, ref, compare_outputs(out, ref))

    def ghost(self, inputs: list[Any], normal: Any,
              written: Callable[[], list[Any]] | None = None) -> None:  # fmt: skip
        """Replay with every Triton launch a no-op: the outputs must change, or what the
        replay leaves in its inputs (a kernel's result the graph writes into an input with
        ``setitem``, returning other values; on some inputs the write changes nothing, so
        whether the graph writes is not known ahead). ``written`` makes the inputs as a right
        call leaves them, after the replay (whose fresh outputs could otherwise land in the
        memory that call just freed, holding the right values)."""
        rt = self.rt
        replay = clone_tree(inputs)
        with rt.call_scope(ghost=True):
            try:
                out = self.fn(*replay)
                launches = rt.launches
            except Exception:  # noqa: BLE001 - failing without its kernels is what we expect
                return
        if launches == 0:
            # No visible kernel: fine for outputs that are views of inputs or constant fills;
            # anything else was computed where no guard looks (native code, a raw launcher).
            # Judged per replacement call where the guard wrapped them (the graph's eager ops
            # around a replacement compute its own outputs in plain sight), else per graph.
            if rt.guarded_calls:
                hidden = [f"{name}'s output(s) {idx}" for name, o, args in rt.unlaunched
                          if (idx := _unexplained(o, list(leaves(args))))]  # fmt: skip
            else:
                idx = _unexplained(out, replay)
                hidden = [f"output(s) {idx}"] if idx else []
            if hidden:
                rt.add("ghost-kernel", f"{'; '.join(hidden)} computed with no Triton launch and "
                       "no torch op the guard saw (native code or a raw kernel launcher)")  # fmt: skip
            else:
                rt.add(
                    "ghost-skipped",
                    "no Triton kernel launched: ghost replay not applicable",
                    fatal=False,
                )
            return
        unchanged = all(same(a, b) for a, b in zip(leaves(out), leaves(normal), strict=False))
        if unchanged and written is not None:
            unchanged = all(same(a, b) for a, b in zip(leaves(replay), leaves(written()),
                                                        strict=False))  # fmt: skip
        if unchanged:
            rt.add("ghost-kernel", f"outputs unchanged with all {launches} Triton launch(es) "
                   "turned into no-ops: the kernels do not produce the result")  # fmt: skip


def _unexplained(out: Any, inputs: list[Any]) -> list[int]:
    """Output leaves that are neither views of ``inputs`` nor constant fills (nor scalars)."""
    aliased = alias_map(out, inputs)
    return [j for j, t in enumerate(leaves(out)) if isinstance(t, torch.Tensor)
            and j not in aliased and t.numel() > 1 and not _constant(t)]  # fmt: skip


class TimedSampler:
    """Stands in for a side's callable in ``measure``: the same cheap bookkeeping on every
    side; on the candidate, calls at secret positions become checked calls (and are dropped
    from the statistics later) and a few outputs are kept for a re-check."""

    def __init__(
        self,
        fn: Callable[..., Any],
        per_run: int,
        positions: frozenset[int] = frozenset(),
        keep: frozenset[int] = frozenset(),
        check: Callable[[tuple], Any] | None = None,
    ) -> None:
        self.fn, self.per_run, self.positions, self.keep = fn, per_run, positions, keep
        self.check, self.n = check, 0
        self.kept: list[Any] = []
        self.last_checked = False  # the last call was a checked call (timing drops its sample)
        self.start: int | None = None  # call count at the current run's start (new_run)

    def new_run(self) -> None:
        """``measure`` starts a run: positions count from here, so a run extended past
        ``per_run`` calls (adaptive trial counts) checks only its first ``per_run``."""
        self.start = self.n

    def __call__(self, *args: Any) -> Any:
        pos = self.n - self.start if self.start is not None else self.n % self.per_run
        self.n += 1
        check = self.check if pos in self.positions else None
        self.last_checked = check is not None
        if check is not None:
            return check(args)
        out = self.fn(*args)
        if pos in self.keep:
            self.kept.append(out)
        return out


def secret_positions(
    warmup: int, per_run: int, n_check: int, n_keep: int, extend_to: int = 0
) -> tuple:
    """Disjoint secret call positions (within a run, after warmup) to check and to keep.

    ``extend_to``: a run may go on to that many calls (adaptive trial counts); each further
    block of ``per_run - warmup`` calls gets ``n_check`` checked positions of its own, so a
    candidate that changes behaviour after its first calls is still caught."""
    slots = list(range(warmup, per_run))
    n_check = min(n_check, max(0, len(slots) - 2))
    rng = secrets.SystemRandom()
    rng.shuffle(slots)
    check = set(slots[:n_check])
    block = per_run - warmup
    for start in range(per_run, extend_to, max(1, block)):
        more = list(range(start, min(start + block, extend_to)))
        rng.shuffle(more)
        check.update(more[: min(n_check, max(0, len(more) - 2))])
    return frozenset(check), frozenset(slots[n_check : n_check + n_keep])
