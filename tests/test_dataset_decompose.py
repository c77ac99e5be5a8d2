"""Decomposition of a real GraphNet graph the project never captured itself (done criterion).

Every fusible subgraph's Inductor kernel count must match the prefix-analysis definition:
op ``a`` opens a kernel (``K(a + 1) > K(a)``), the count does not grow up to ``b``
(``K(b) = K(a + 1)``), the recorded count is ``K(b) - K(a)`` and the cut subgraph compiled on its
own launches exactly that many kernels. Every produced variant must run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from conftest import BERT, MLP_IRIS
from conftest import fixture_path as fx

from passnet.dataset.decompose import (
    GraphView,
    KernelCounter,
    eager_kernel_ops,
    fusible_ranges,
    ngram_counts,
    single_op_ranges,
    typical_ranges,
)
from passnet.dataset.hashing import structural_hash
from passnet.dataset.kernels import count_in_code, count_kernels, eager_launches
from passnet.dataset.variants import DTYPES, dtype_variant, map_range, shape_bucket
from passnet.graph.sample import load_module, load_sample, materialize, run_sample
from passnet.graph.subgraph import cut_subgraph


@pytest.fixture(scope="module")
def bert() -> tuple[GraphView, list, KernelCounter]:
    view = GraphView(load_sample(fx(BERT)))
    counter = KernelCounter(max_compiles=24)
    ranges, _ = fusible_ranges(view, counter, window=12)
    return view, ranges, counter


def _kernels_of_sample(path: Path, codegen_only: bool = True) -> int:
    sample = load_sample(path)
    module = load_module(sample)
    gm = torch.fx.symbolic_trace(module)
    return count_kernels(gm, materialize(sample), codegen_only=codegen_only).total


def test_fusible_kernel_counts_match_prefix_definition(bert, tmp_path: Path) -> None:
    view, ranges, counter = bert
    assert ranges, "prefix analysis found no fusible subgraph in BERT"
    assert counter.compiles <= 24
    fresh = KernelCounter(max_compiles=100)  # recompute the prefixes without the memo
    for i, r in enumerate(ranges):
        assert r.end - r.start >= 2 and eager_kernel_ops(r.ops) > r.kernels >= 1
        s = r.window
        k_a, k_a1, k_b = (fresh(view, s, e) for e in (r.start, r.start + 1, r.end))
        assert k_a1 > k_a and k_b == k_a1 and k_b - k_a == r.kernels, r
        cut = cut_subgraph(view.sample, r.start, r.end, tmp_path / f"fusible{i}")
        assert cut.sources["start"] == r.start and cut.sources["end"] == r.end
        assert _kernels_of_sample(cut.path) == r.kernels
        assert structural_hash(cut) == view.range_hash(r.start, r.end)


def test_codegen_only_count_equals_a_real_compile(bert, tmp_path: Path) -> None:
    view, ranges, _ = bert
    r = min(ranges, key=lambda r: r.end - r.start)
    cut = cut_subgraph(view.sample, r.start, r.end, tmp_path / "real")
    assert _kernels_of_sample(cut.path, codegen_only=False) == r.kernels


def test_every_variant_runs(bert, tmp_path: Path) -> None:
    view, ranges, _ = bert
    for i, r in enumerate(ranges[:2]):
        cut = cut_subgraph(view.sample, r.start, r.end, tmp_path / f"cut{i}")
        for dtype in DTYPES[1:]:
            variant = dtype_variant(cut, dtype, tmp_path / f"cut{i}_{dtype}")
            outputs = run_sample(load_sample(variant.path), seed=5)
            assert all(o.dtype == getattr(torch, dtype) for o in outputs if o.is_floating_point())
        assert 0 <= shape_bucket(cut) <= 9


def test_single_and_typical_subgraphs(bert, tmp_path: Path) -> None:
    view, _, _ = bert
    singles = single_op_ranges(view, limit=8)
    assert len(singles) == 8
    assert len({view.range_hash(r.start, r.end) for r in singles}) == 8
    # BERT's two encoder layers repeat: their op sequences are "typical"
    typical = typical_ranges(view, ngram_counts([view.ops]), limit=2)
    assert typical and all(4 <= r.end - r.start <= 64 for r in typical)
    r = typical[0]
    cut = cut_subgraph(view.sample, r.start, r.end, tmp_path / "typical")
    assert run_sample(cut)


def test_tiny_graph_without_fusion(tmp_path: Path) -> None:
    """mlp-iris (linear, relu, linear; a SymInt argument): no fusible range, only singles."""
    view = GraphView(load_sample(fx(MLP_IRIS)))
    ranges, truncated = fusible_ranges(view, KernelCounter(max_compiles=8))
    assert ranges == [] and not truncated
    singles = [r.ops[0].rsplit(".", 1)[-1] for r in single_op_ranges(view)]
    assert singles == ["linear", "relu", "linear"]  # the two linears differ in shape


def test_map_range_aligns_sibling_captures() -> None:
    base = ["add", "getitem", "embedding", "add", "layer_norm"]
    sibling = ["add", "expand", "getitem", "embedding", "add", "layer_norm"]
    assert map_range(base, sibling, 2, 5) == (3, 6)
    assert map_range(base, ["mul", "mul"], 2, 5) is None


def test_count_in_code() -> None:
    code = (
        "class Runner:\n    def call(self, args):\n"
        "        cpp_fused_add_0(buf0, arg0_1)\n"
        "        extern_kernels.mm(buf0, arg1_1, out=buf1)\n"
        "        buf2 = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(a, b, c)\n"
        "        triton_poi_fused_relu_1.run(buf1, 16, stream=stream0)\n"
        "        buf3 = empty_strided_cpu((1, ), (1, ), torch.float32)\n"
        "        return (buf3, )\n\nrunner = Runner(partitions=[])\n"
    )
    counts = count_in_code(code)
    assert (counts.generated, counts.extern) == (2, 2)


class _Layout(torch.nn.Module):
    def forward(self, t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        c = t.contiguous().reshape(t.shape[0], -1).contiguous()
        return c, torch.relu(c) + 1


def test_eager_launches_counts_what_a_cut_sample_computes() -> None:
    """Eager costs counted on the inputs as the cut sample lays them out: a transposed
    (permuted dense) tensor keeps its strides, so contiguous() copies it; a gapped slice is
    recorded contiguous, so there contiguous() is free and the range has nothing to fuse."""
    gm = torch.fx.symbolic_trace(_Layout())
    layout_only = torch.fx.symbolic_trace(lambda t: t.contiguous().reshape(2, -1).contiguous())
    transposed = torch.randn(3, 2, 4).transpose(1, 2)
    gapped = torch.randn(3, 4, 4)[:, :, ::2]
    assert eager_launches(layout_only, [transposed]) == 1  # the copy
    assert eager_launches(gm, [transposed]) == 3  # copy, relu, add
    assert eager_launches(layout_only, [gapped]) == 0
    assert eager_launches(gm, [gapped]) == 2  # relu, add: the views compute nothing


@pytest.mark.gpu
def test_prefix_analysis_on_cuda(tmp_path: Path) -> None:
    """The same definition with Triton kernels: prefix deltas, standalone and real compiles agree."""
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    view = GraphView(load_sample(fx(BERT)))
    counter = KernelCounter(device="cuda", max_compiles=24)
    ranges, _ = fusible_ranges(view, counter, window=12)
    assert ranges
    for i, r in enumerate(ranges[:3]):
        gm, inputs = view.module(r.start, r.end)
        real = count_kernels(gm, inputs, device="cuda", codegen_only=False).total
        assert real == r.kernels == counter(view, r.start, r.end, check=True)
        cut = cut_subgraph(view.sample, r.start, r.end, tmp_path / f"cuda{i}")
        assert run_sample(cut, device="cuda")


def test_ranges_that_read_a_tuple_hash_and_count(tmp_path: Path) -> None:
    """A range whose input is ``split``'s tuple (mmpose rsn_18 on the GraphNet corpus) hashes
    like any other: the decomposition of that graph failed with 'Object of type Tensor is not
    JSON serializable' when the kernel counter hashed such a prefix."""
    from passnet.dataset.hashing import value_spec
    from passnet.graph.sample import TensorMeta, write_sample

    code = (
        "import torch\n\n\nclass GraphModule(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        parts = torch.split(x, 2, dim=1)\n"
        "        a = parts[0] * 2\n"
        "        b = parts[1] + 1\n"
        "        c = a * b\n"
        "        return (c,)\n"
    )
    meta = TensorMeta(name="x", shape=[3, 4], dtype="torch.float32", mean=0.0, std=1.0)
    view = GraphView(write_sample(tmp_path / "split", code, [meta], {}))
    n = len(view.ops)
    hashes = {(i, j): view.range_hash(i, j) for i in range(n) for j in range(i + 1, n + 1)}
    assert len(set(hashes.values())) == len(hashes)  # every range its own hash
    spec = value_spec((torch.ones(2), 3))
    assert spec[0] == "seq" and spec[2] == ["scalar", "int", 3]
    KernelCounter(max_compiles=8)(view, 1, n)  # the prefix after the split: raised before


def test_a_vmap_level_in_the_graph_is_never_cut_open(tmp_path: Path) -> None:
    """Hugging Face masks built with vmap leave ``_vmap_increment_nesting`` .. ``decrement``
    calls in Dynamo's graph (whisper-base in the GraphNet corpus). A prefix that ended between
    them left the worker inside vmap, and 13 later graphs of that worker failed ("vmap: called
    random operation while in randomness error mode"). Such ranges are neither counted nor
    cut, and a level something leaves open is undone."""
    from passnet.dataset.decompose import functorch_levels_restored
    from passnet.graph.sample import TensorMeta, write_sample

    code = (
        "import torch\n\n\nclass GraphModule(torch.nn.Module):\n"
        "    def forward(self, x, y):\n"
        "        a = x * 2.0\n"
        "        b = a + y\n"
        "        lazy = torch._functorch.vmap.lazy_load_decompositions()\n"
        "        nest = torch._C._functorch._vmap_increment_nesting(3, 'error')\n"
        "        child = torch._C._functorch._add_batch_dim(torch.arange(3), 0, 1)\n"
        "        batched = child * 2\n"
        "        out = torch._C._functorch._remove_batch_dim(batched, 1, 3, 0)\n"
        "        dec = torch._C._functorch._vmap_decrement_nesting()\n"
        "        c = b.relu() * 3.0\n"
        "        d = c + out.sum()\n"
        "        return (d,)\n"
    )
    metas = [TensorMeta(name=n, shape=[4, 8], dtype="torch.float32", mean=0.0, std=1.0)
             for n in ("x", "y")]  # fmt: skip
    view = GraphView(write_sample(tmp_path / "vmap", code, metas, {}))
    depth = torch._C._functorch.get_dynamic_layer_stack_depth()
    ops = [o.rsplit(".", 1)[-1] for o in view.ops]
    inc, dec = ops.index("_vmap_increment_nesting"), ops.index("_vmap_decrement_nesting")
    assert view.balanced(0, inc) and view.balanced(0, len(ops)) and view.balanced(dec + 1, len(ops))
    assert not view.balanced(0, inc + 1) and not view.balanced(inc + 1, dec + 2)
    assert not view.cuttable(0, inc + 2)
    counter = KernelCounter(max_compiles=40)
    assert counter(view, 0, inc + 1) is None and counter.compiles == 0
    ranges, _ = fusible_ranges(view, counter, window=len(ops))
    assert all(view.balanced(r.start, r.end) for r in ranges)
    assert torch._C._functorch.get_dynamic_layer_stack_depth() == depth
    torch.randn(2)  # a random op works: no level left open
    with functorch_levels_restored():
        torch._C._functorch._vmap_increment_nesting(2, "error")
    assert torch._C._functorch.get_dynamic_layer_stack_depth() == depth
    torch.randn(2)
