"""Decompose a graph into fusible, typical and single-op subgraphs (SPEC section 3).

Compute nodes ``n_0 .. n_{N-1}`` are the traced graph's ops in execution order.

**Fusible (prefix analysis).** Analysis runs in windows of at most ``window`` ops starting at
``s``. ``K(k)`` is the number of kernels Inductor runs for the prefix ``[s, s + k)`` of the
window (:mod:`passnet.dataset.kernels`, on the chosen device); ``K(0) = 0``. Op ``p`` *opens* a
kernel when ``K(p + 1) > K(p)``; the ops after it up to the next opening op do not grow the
count. Such a run ``[p, q)`` is a fusible subgraph when it holds at least two ops that launch a
kernel in eager PyTorch (views, getitem and eval-mode dropout launch none) and more of them than
its ``K(q) - K(p)`` kernels, and when the run cut out on its own compiles to exactly
``K(q) - K(p)`` kernels too (checked; a mismatch is dropped). ``K`` is computed lazily by
bisection (``K`` is monotone in practice: equal ends fill the interval), memoised per graph
and across graphs by the structural hash of the prefix, and capped at ``max_compiles`` Inductor
runs per graph; the next window starts at the last, possibly truncated, run of the previous one.

**Typical.** Op-name n-grams of 4-64 ops counted over many graphs; at each position the longest
n-gram seen at least ``min_count`` times is taken, and the scan jumps past it.

**Single-op.** Each op that launches an eager kernel, once per structural hash.
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx

from passnet.dataset.hashing import graph_key, value_spec
from passnet.dataset.kernels import KernelCountError, count_kernels, eager_launches
from passnet.graph.sample import Sample, SampleError, materialize
from passnet.graph.subgraph import COMPUTE_OPS, op_name, trace

KINDS = ("fusible", "typical", "single")
EAGER_FREE_OPS = frozenset(
    "view reshape permute transpose getitem getattr size expand unsqueeze squeeze flatten "
    "unflatten t split chunk narrow select unbind dropout alias detach _log_api_usage_once "
    "expand_as view_as dim".split()
)
"""Op names (last dotted component) that launch no kernel in eager PyTorch (dropout: eval)."""


class BudgetExhausted(Exception):
    """The per-graph cap on prefix compiles is reached; ``known`` is K(0..m) found so far."""

    def __init__(self, known: list[int] | None = None) -> None:
        super().__init__("prefix compile budget exhausted")
        self.known = known or []


@dataclass(frozen=True)
class Range:
    """Compute nodes ``[start, end)`` of a graph, found as ``kind``."""

    kind: str
    start: int
    end: int
    kernels: int | None = None  # Inductor kernels by prefix analysis (fusible only)
    ops: tuple[str, ...] = ()
    window: int | None = None  # start of the prefix-analysis window (fusible only)


def short_op(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def eager_kernel_ops(ops: Iterable[str]) -> int:
    """How many of ``ops`` launch a kernel in eager PyTorch."""
    return sum(1 for o in ops if short_op(o) not in EAGER_FREE_OPS)


_NESTING = {"_vmap_increment_nesting": 1, "_vmap_decrement_nesting": -1,
            "_grad_increment_nesting": 1, "_grad_decrement_nesting": -1,
            "_jvp_increment_nesting": 1, "_jvp_decrement_nesting": -1}  # fmt: skip
"""functorch's level calls as Dynamo writes them into graphs (Hugging Face's vmap-built
attention masks): a range that opens a level without closing it leaves the process inside
vmap, where every later random op fails."""


@contextlib.contextmanager
def functorch_levels_restored() -> Iterator[None]:
    """Undo any functorch level that what runs inside leaves open (a cut of a graph between
    its ``_vmap_increment_nesting`` and ``_vmap_decrement_nesting``), so one graph cannot
    poison the worker for the next."""
    functorch = torch._C._functorch
    depth = functorch.get_dynamic_layer_stack_depth()
    try:
        yield
    finally:
        if functorch.get_dynamic_layer_stack_depth() != depth:
            functorch.pop_dynamic_layer_stack_and_undo_to_depth(depth)


class GraphView:
    """A traced sample with every intermediate value of one eager run (seed ``seed``)."""

    def __init__(self, sample: Sample, seed: int = 0) -> None:
        self.sample = sample
        self.gm = trace(sample)
        self.nodes = [n for n in self.gm.graph.nodes if n.op in COMPUTE_OPS]
        self.ops = [op_name(n, self.gm) for n in self.nodes]
        self._order = {n: i for i, n in enumerate(self.gm.graph.nodes)}
        self._depth = [0]  # functorch nesting depth before each op (and after the last)
        for o in self.ops:
            self._depth.append(self._depth[-1] + _NESTING.get(short_op(o), 0))
        interp = torch.fx.Interpreter(self.gm, garbage_collect_values=False)
        try:
            with torch.no_grad(), functorch_levels_restored():
                interp.run(*materialize(sample, seed=seed))
        except Exception as e:
            raise SampleError(sample.model_path, f"running the graph failed: {e}") from e
        self.values: dict[torch.fx.Node, Any] = interp.env

    def __len__(self) -> int:
        return len(self.nodes)

    def boundary(self, start: int, end: int) -> tuple[list, list, list]:
        chosen = self.nodes[start:end]
        inside = set(chosen)
        inputs = sorted(
            {a for n in chosen for a in n.all_input_nodes if a not in inside},
            key=self._order.__getitem__,
        )
        outputs = [n for n in chosen if any(u not in inside for u in n.users)] or [chosen[-1]]
        return chosen, inputs, outputs

    def balanced(self, start: int, end: int) -> bool:
        """The range opens and closes functorch levels in pairs and starts outside any (run
        on its own, it leaves the process as it found it and sees no batched tensors)."""
        depth = self._depth
        return depth[start] == 0 and depth[end] == 0 and min(depth[start : end + 1]) == 0

    def cuttable(self, start: int, end: int) -> bool:
        """Balanced (``balanced``), and every value the range reads from outside is a tensor
        or an int/float/bool."""
        if not self.balanced(start, end):
            return False
        _, inputs, outputs = self.boundary(start, end)
        ok = (torch.Tensor, int, float, bool)
        return all(isinstance(self.values.get(n), ok) for n in inputs) and all(
            isinstance(self.values.get(n), torch.Tensor) for n in outputs
        )

    def module(self, start: int, end: int) -> tuple[torch.fx.GraphModule, list]:
        """Compute nodes ``[start, end)`` as a standalone GraphModule and its real inputs."""
        chosen, inputs, outputs = self.boundary(start, end)
        graph = torch.fx.Graph()
        env: dict[torch.fx.Node, torch.fx.Node] = {}
        for n in inputs:
            env[n] = graph.placeholder(n.name)
        for n in chosen:
            env[n] = graph.node_copy(n, lambda a: env[a])
        graph.output(tuple(env[n] for n in outputs))
        return torch.fx.GraphModule(self.gm, graph), [self.values[n] for n in inputs]

    def range_hash(self, start: int, end: int) -> str:
        """Structural hash of the range as a standalone graph (what its cut sample hashes to)."""
        gm, inputs = self.module(start, end)
        return graph_key(gm, [value_spec(v) for v in inputs]).structural


@dataclass
class KernelCounter:
    """Inductor kernel counts of ranges, memoised in ``cache`` (hash -> count) and capped."""

    device: str = "cpu"
    max_compiles: int = 64
    cache: dict[str, int | None] = field(default_factory=dict)
    on_new: Callable[[str, int | None], None] | None = None
    compiles: int = 0

    def __call__(self, view: GraphView, start: int, end: int, *, check: bool = False) -> int | None:
        """Kernels of ``[start, end)``; a prefix (not a ``check``) counts against the cap."""
        if end <= start:
            return 0
        key = f"{self.device}:torch-{torch.__version__}:{view.range_hash(start, end)}"
        if key in self.cache:
            return self.cache[key]
        if not view.balanced(start, end):  # compiling it would run an open vmap level
            return None
        if not check:
            if self.compiles >= self.max_compiles:
                raise BudgetExhausted
            self.compiles += 1
        try:
            gm, inputs = view.module(start, end)
            with functorch_levels_restored():
                value: int | None = count_kernels(gm, inputs, device=self.device).total
        except KernelCountError:
            value = None
        self.cache[key] = value
        if self.on_new:
            self.on_new(key, value)
        return value


def prefix_counts(view: GraphView, start: int, width: int, counter: KernelCounter) -> list[int]:
    """``K(0..width)`` of the window at ``start`` (bisection, see the module docstring).

    Raises BudgetExhausted when the cap is hit; an uncompilable prefix raises KernelCountError.
    """
    known: dict[int, int] = {0: 0}

    def get(k: int) -> int:
        if k not in known:
            value = counter(view, start, start + k)
            if value is None:
                raise KernelCountError(f"prefix [{start}, {start + k}) does not compile")
            known[k] = value
        return known[k]

    stack = [(0, width)]
    try:
        while stack:
            lo, hi = stack.pop()
            if hi - lo <= 1:
                get(hi)
                continue
            if get(lo) == get(hi):
                for k in range(lo + 1, hi):
                    known[k] = known[lo]
                continue
            mid = (lo + hi) // 2
            stack += [(mid, hi), (lo, mid)]
    except BudgetExhausted as e:
        contiguous = []
        while len(contiguous) in known:
            contiguous.append(known[len(contiguous)])
        raise BudgetExhausted(contiguous) from e
    return [known[k] for k in range(width + 1)]


def runs(counts: list[int]) -> list[tuple[int, int]]:
    """Runs ``[p, q)`` (window-relative) that start at an op opening a kernel."""
    opens = [p for p in range(len(counts) - 1) if counts[p + 1] > counts[p]]
    return [
        (p, opens[i + 1] if i + 1 < len(opens) else len(counts) - 1) for i, p in enumerate(opens)
    ]


def fusible_ranges(
    view: GraphView, counter: KernelCounter, window: int = 16
) -> tuple[list[Range], bool]:
    """Fusible ranges of the graph and whether the analysis was cut short by the budget."""
    found: list[Range] = []
    start, n = 0, len(view)
    while start < n:
        width = min(window, n - start)
        try:
            counts = prefix_counts(view, start, width, counter)
        except BudgetExhausted as e:  # keep the runs that were completed before the cap
            found += _window_ranges(view, counter, start, e.known, runs(e.known)[:-1])
            return found, True
        except KernelCountError:
            start += max(1, width // 2)  # an uncompilable stretch: move on
            continue
        window_runs = runs(counts)
        complete = window_runs if start + width >= n else window_runs[:-1]
        found += _window_ranges(view, counter, start, counts, complete)
        last = window_runs[-1][0] if window_runs and start + width < n else width
        start += last if last > 0 else width
    return found, False


def _window_ranges(
    view: GraphView, counter: KernelCounter, start: int, counts: list[int], window_runs: list
) -> list[Range]:
    found = []
    for p, q in window_runs:
        a, b, delta = start + p, start + q, counts[q] - counts[p]
        ops = tuple(view.ops[a:b])
        eager = eager_kernel_ops(ops)
        if b - a < 2 or eager < 2 or eager <= delta or not view.cuttable(a, b):
            continue
        if counter(view, a, b, check=True) != delta:  # the cut alone must agree with the prefix
            continue
        if eager_launches(*view.module(a, b)) <= delta:  # eager on the sample as cut (its
            continue  # layouts) launches no more than Inductor: nothing to fuse
        found.append(Range("fusible", a, b, delta, ops, window=start))
    return found


def single_op_ranges(view: GraphView, limit: int = 64) -> list[Range]:
    """One range per distinct (structural hash) op launching an eager kernel, at most ``limit``."""
    seen, found = set(), []
    for i, name in enumerate(view.ops):
        if short_op(name) in EAGER_FREE_OPS or not view.cuttable(i, i + 1):
            continue
        key = view.range_hash(i, i + 1)
        if key not in seen:
            seen.add(key)
            found.append(Range("single", i, i + 1, None, (name,)))
        if len(found) >= limit:
            break
    return found


def ngram_counts(
    op_lists: Iterable[list[str]], min_len: int = 4, max_len: int = 64
) -> collections.Counter:
    """How often each op-name sequence of ``min_len..max_len`` ops occurs over the graphs."""
    counts: collections.Counter = collections.Counter()
    for ops in op_lists:
        seq = tuple(short_op(o) for o in ops)
        for i in range(len(seq)):
            for length in range(min_len, min(max_len, len(seq) - i) + 1):
                counts[seq[i : i + length]] += 1
    return counts


def typical_ranges(
    view: GraphView,
    counts: collections.Counter,
    *,
    min_count: int = 2,
    min_len: int = 4,
    max_len: int = 64,
    limit: int = 16,
) -> list[Range]:
    """Greedy longest frequent op sequences (module docstring), at most ``limit``."""
    seq = tuple(short_op(o) for o in view.ops)
    found, i = [], 0
    while i < len(seq) and len(found) < limit:
        best = 0
        for length in range(min(max_len, len(seq) - i), min_len - 1, -1):
            if counts.get(seq[i : i + length], 0) >= min_count and view.cuttable(i, i + length):
                best = length
                break
        if best and eager_kernel_ops(seq[i : i + best]) >= 2:
            found.append(Range("typical", i, i + best, None, tuple(view.ops[i : i + best])))
            i += best
        else:
            i += 1
    return found
