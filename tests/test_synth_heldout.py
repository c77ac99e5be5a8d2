"""passnet synth on patterns of families outside the bundled suite (issue 13, generalisation).

The held-out tasks (examples/heldout/, built from Llama, Mistral, Qwen2, OPT, DistilBERT and
ELECTRA) contain Llama's RMSNorm (``to(float32), pow, mean, add, rsqrt, mul, to, mul``), the
rotary embedding (``mul, getitem, getitem, neg, cat, mul, add``), SwiGLU gating and embedding
lookups summed and normalised (BERT-style word, position and token-type embeddings); the
in-process tests build each as a module the way Hugging Face writes it and check the
synthesised pass through Triton's interpreter, eager-faithful at the strict level.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
import torch
from helpers.synth import one_rule_pass

from passnet.core.results import Parameters
from passnet.dataset.task import load_task, write_task
from passnet.graph.sample import load_sample
from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.scores.compare import compare_outputs
from passnet.synth.driver import STRICT_T, synthesize_task
from passnet.synth.emit import module_source
from passnet.synth.graph import Group, analyse, select, trace_graph
from passnet.synth.printer import body_text

HELDOUT = Path(__file__).resolve().parents[1] / "examples" / "heldout"
INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"


def _rotate_half(x: torch.Tensor, half: int) -> torch.Tensor:
    x1 = x[..., :half]  # x.shape[-1] // 2, a literal in a Dynamo-captured graph
    x2 = x[..., half:]
    return torch.cat((-x2, x1), dim=-1)


class Rotary(torch.nn.Module):
    """transformers' apply_rotary_pos_emb for q and k: cos/sin unsqueezed over the heads."""

    half = 8

    def forward(self, q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor,
                sin: torch.Tensor) -> tuple:  # fmt: skip
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        return (
            q * cos + _rotate_half(q, self.half) * sin,
            k * cos + _rotate_half(k, self.half) * sin,
        )


class LlamaRMSNorm(torch.nn.Module):
    """LlamaRMSNorm after a residual add: float32 statistics, back to the input dtype."""

    def forward(self, x: torch.Tensor, r: torch.Tensor, w: torch.Tensor) -> tuple:
        h = x + r
        dtype = h.dtype
        v = h.to(torch.float32)
        v = v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6)
        return (w * v.to(dtype), h)


class SwiGLU(torch.nn.Module):
    """LlamaMLP's gating between the projections: silu(gate) * up."""

    def forward(self, gate: torch.Tensor, up: torch.Tensor) -> tuple:
        return (torch.nn.functional.silu(gate) * up,)


class CatParts(torch.nn.Module):
    """Three parts of different sizes along a middle dim, one computed, then a fixed index."""

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
        y = torch.cat([a * 2.0, torch.relu(b), c], 1)
        return (y + 1.0, y[:, 4] - a[:, 0])


class RotaryRepeatKV(torch.nn.Module):
    """k's rotary then repeat_kv of k and v (grouped-query attention, 2 kv heads x 3): eager's
    reshape of the expanded tensor copies, so the copies join the group."""

    half, rep = 8, 3

    def forward(self, k: torch.Tensor, v: torch.Tensor, cos: torch.Tensor,
                sin: torch.Tensor) -> tuple:  # fmt: skip
        k = k * cos.unsqueeze(1) + _rotate_half(k, self.half) * sin.unsqueeze(1)
        b, h, t, d = 2, 2, 5, 16
        k = k[:, :, None, :, :].expand(b, h, self.rep, t, d).reshape(b, h * self.rep, t, d)
        v = v[:, :, None, :, :].expand(b, h, self.rep, t, d).reshape(b, h * self.rep, t, d)
        return (v, k.transpose(2, 3))


class AddViewLayerNorm(torch.nn.Module):
    """OPT's final residual: [T, C] viewed as [1, T, C] before the LayerNorm."""

    def forward(self, x: torch.Tensor, y: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> tuple:
        return (torch.nn.functional.layer_norm((x + y).view((1, 6, 32)), (32,), w, b, 1e-5),)


class Embeddings(torch.nn.Module):
    """BERT/ELECTRA embeddings: word rows by token id, position rows by a slice of the
    position-id buffer, token-type rows by an expanded id tensor; summed, LayerNorm, dropout."""

    def forward(self, ids: torch.Tensor, word: torch.Tensor, pos_ids: torch.Tensor,
                pos: torch.Tensor, types: torch.Tensor, type_w: torch.Tensor, w: torch.Tensor,
                b: torch.Tensor) -> tuple:  # fmt: skip
        f = torch.nn.functional
        e = f.embedding(ids, word, 0, None, 2.0, False, False)
        e = e + f.embedding(types.expand(2, 7), type_w, None, None, 2.0, False, False)
        e = e + f.embedding(pos_ids[:, :7], pos, None, None, 2.0, False, False)
        return (f.dropout(f.layer_norm(e, (24,), w, b, 1e-12), 0.1, False, False),)


class OffsetPositions(torch.nn.Module):
    """OPT's learned positions: rows at ``positions + 2`` added to the token embeddings."""

    def forward(self, positions: torch.Tensor, table: torch.Tensor, x: torch.Tensor) -> tuple:
        return (x + torch.nn.functional.embedding(positions + 2, table),)


def _inputs(module: torch.nn.Module, dtype: torch.dtype) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)

    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g).to(dtype)

    def ints(high: int, *shape: int) -> torch.Tensor:
        return torch.randint(0, high, shape, generator=g)

    if isinstance(module, Embeddings):
        return [ints(50, 2, 7), r(50, 24), torch.arange(16).reshape(1, 16), r(16, 24),
                ints(2, 1, 7), r(2, 24), r(24), r(24)]  # fmt: skip
    if isinstance(module, OffsetPositions):
        return [ints(10, 3, 5), r(12, 16), r(3, 5, 16)]

    if isinstance(module, Rotary):
        q = r(2, 5, 4, 16).transpose(1, 2)  # [B, H, T, D] viewed from [B, T, H, D], as in Llama
        return [q, r(2, 2, 5, 16), r(2, 5, 16), r(2, 5, 16)]
    if isinstance(module, RotaryRepeatKV):
        return [r(2, 2, 5, 16), r(2, 5, 2, 16).transpose(1, 2), r(2, 5, 16), r(2, 5, 16)]
    if isinstance(module, AddViewLayerNorm):
        return [r(6, 32), r(6, 32), r(32), r(32)]
    if isinstance(module, LlamaRMSNorm):
        return [r(2, 5, 48), r(2, 5, 48), r(48)]
    if isinstance(module, SwiGLU):
        return [r(3, 7, 40), r(3, 7, 40)]
    return [r(2, 3, 8), r(2, 2, 8), r(2, 4, 8)]


def _synthesise(tmp_path: Path, module: torch.nn.Module, args: list[torch.Tensor]) -> Path:
    group = select(trace_graph(module, args))
    assert isinstance(group, Group), group
    source = module_source("test", "synth_test_0", analyse([group]), group.source,
                           len(group.inputs))  # fmt: skip
    return one_rule_pass(tmp_path, source)


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16],
                         ids=["fp32", "fp16", "bf16"])  # fmt: skip
@pytest.mark.parametrize(
    "module", [Rotary(), RotaryRepeatKV(), LlamaRMSNorm(), SwiGLU(), CatParts(), AddViewLayerNorm(),
               Embeddings(), OffsetPositions()],
    ids=["rotary", "repeat_kv", "llama_rms_norm", "swiglu", "cat_parts", "add_view_layer_norm",
         "embeddings", "offset_positions"])  # fmt: skip
def test_heldout_pattern(tmp_path: Path, module: torch.nn.Module, dtype: torch.dtype) -> None:
    args = _inputs(module, dtype)
    pass_dir = _synthesise(tmp_path, module, args)
    gm = to_fx(module)
    report = apply_passes(gm, load_pass_dir(pass_dir))
    assert report.total == 1
    with torch.no_grad():
        out, ref = gm(*args), module(*args)
    cmp = compare_outputs(list(out), list(ref))
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp


def test_cat_is_one_op_of_the_group() -> None:
    args = _inputs(Rotary(), torch.float32)
    group = select(trace_graph(Rotary(), args))
    assert isinstance(group, Group), group
    assert "torch.cat((v" in group.source and "dim=-1)" in group.source
    assert sum(op.name == "cat" for op in group.ops.values()) == 2  # q's and k's, one group
    assert len(group.outputs) == 2 and len(analyse([group]).phases) == 2  # k has fewer heads


def test_repeat_kv_copies_join_the_group_only_when_eager_copies() -> None:
    module = RotaryRepeatKV()
    group = select(trace_graph(module, _inputs(module, torch.float32)))
    assert isinstance(group, Group), group
    names = [op.name for op in group.ops.values()]
    assert names.count("expand") == 2 and names.count("reshape") == 2, names
    assert len(group.outputs) == 2 and "transpose" not in names  # k's transpose stays a view
    one = RotaryRepeatKV()
    one.rep = 1  # expand(2, 2, 1, 5, 16).reshape(...) is a view: eager copies nothing
    group = select(trace_graph(one, _inputs(one, torch.float32)))
    assert isinstance(group, Group), group
    assert "expand" not in [op.name for op in group.ops.values()]


def test_embedding_lookups_and_their_indices_join_one_kernel() -> None:
    """The three lookups, the views of their integer indices, the adds and the LayerNorm are
    one group (the trailing eval dropout stays a view); the indices are loaded as integers."""
    module = Embeddings()
    group = select(trace_graph(module, _inputs(module, torch.float16)))
    assert isinstance(group, Group), group
    names = [op.name for op in group.ops.values()]
    assert names.count("embedding") == 3 and "layer_norm" in names and "dropout" not in names
    assert {"expand", "getitem"} <= set(names)
    kernel = analyse([group])
    body = body_text(kernel.phases)
    assert body.count("other=0)") == 3  # ids, token types and position ids: integer loads
    offsets = select(trace_graph(OffsetPositions(), _inputs(OffsetPositions(), torch.float32)))
    assert isinstance(offsets, Group) and "positions + 2" in offsets.source.replace(
        "in0", "positions"
    )


def test_max_norm_stays_out_and_an_integer_offset_output_is_exact(tmp_path: Path) -> None:
    """An embedding with max_norm renormalises its weight in place: not fused; an integer
    offset that is also an output is an integer result: the kernel computes it in integers
    and stores it, as it reads it for the lookup (``passnet.synth.indices``)."""

    class MaxNorm(torch.nn.Module):
        def forward(self, ids: torch.Tensor, w: torch.Tensor) -> tuple:
            return (torch.nn.functional.embedding(ids, w, max_norm=1.0) * 2.0,)

    class IndexAlsoOutput(torch.nn.Module):
        def forward(self, ids: torch.Tensor, w: torch.Tensor) -> tuple:
            shifted = ids + 1
            return (torch.nn.functional.embedding(shifted, w) * 2.0, shifted)

    ids, w = torch.randint(0, 4, (3, 5)), torch.randn(8, 16)
    traced = trace_graph(MaxNorm(), [ids, w])
    reasons = [op for op in traced.ops.values() if isinstance(op, str)]
    assert any("max_norm" in r for r in reasons), reasons
    traced = trace_graph(IndexAlsoOutput(), [ids, w])
    group = select(traced)
    assert isinstance(group, Group), group
    assert [op.name for op in group.ops.values()] == ["add", "embedding", "mul"]
    assert [n.name for n in group.inputs] == ["ids", "w"]
    body = body_text(analyse([group]).phases)
    assert " + 1\n" in body + "\n" and "1.0" not in body.split("tl.store")[0]  # integer add
    source = module_source("test", "synth_test_0", analyse([group]), group.source, 2)
    gm = to_fx(IndexAlsoOutput())
    assert apply_passes(gm, load_pass_dir(one_rule_pass(tmp_path, source))).total == 1
    out, ref = gm(ids, w), IndexAlsoOutput()(ids, w)
    assert out[1].dtype == torch.int64 and torch.equal(out[1], ref[1])
    torch.testing.assert_close(out[0], ref[0], rtol=0, atol=0)


class OffsetPositionsMoved(torch.nn.Module):
    """OPT's decoder input: the position rows moved ``.to(x.device)`` (a call the synthesizer
    does not fuse) between the offset lookup and the residual add + LayerNorm."""

    def forward(self, positions: torch.Tensor, table: torch.Tensor, x: torch.Tensor,
                w: torch.Tensor, b: torch.Tensor) -> tuple:  # fmt: skip
        pos = torch.nn.functional.embedding(positions + 2, table).to(x.device)
        h = x + pos
        return (h, torch.nn.functional.layer_norm(h, (16,), w, b, 1e-5))


@pytest.mark.skipif(not INTERPRETED, reason="runs Triton kernels in process: TRITON_INTERPRET=1")
def test_ops_left_by_the_first_group_become_a_second_rule(tmp_path: Path) -> None:
    """Two runs of fusible ops on either side of an op the synthesizer leaves to eager: a
    group each, the larger first, both rules fire on the graph and the result stays exact."""
    from passnet.passes.loader import write_pass_dir
    from passnet.synth.graph import select_all

    module = OffsetPositionsMoved()
    g = torch.Generator().manual_seed(0)
    args = [torch.randint(0, 10, (3, 5), generator=g), torch.randn(12, 16, generator=g),
            torch.randn(3, 5, 16, generator=g), torch.randn(16, generator=g),
            torch.randn(16, generator=g)]  # fmt: skip
    groups = select_all(trace_graph(module, args))
    assert isinstance(groups, list), groups
    assert [[op.name for op in gr.ops.values()] for gr in groups] == [
        ["add", "embedding"], ["add", "layer_norm"]]  # fmt: skip
    assert not set(groups[0].nodes) & set(groups[1].nodes)
    rules = [(f"synth_test_{k}", module_source("test", f"synth_test_{k}", analyse([gr]),
                                               gr.source, len(gr.inputs)))
             for k, gr in enumerate(groups)]  # fmt: skip
    write_pass_dir(tmp_path / "pass", rules)
    gm = to_fx(module)
    assert apply_passes(gm, load_pass_dir(tmp_path / "pass")).total == 2
    with torch.no_grad():
        cmp = compare_outputs(list(gm(*args)), list(module(*args)))
    assert cmp.tightest_passing_t is not None and cmp.tightest_passing_t <= STRICT_T, cmp
    traced = trace_graph(LlamaRMSNorm(), _inputs(LlamaRMSNorm(), torch.float32))
    single, only = select(traced), select_all(traced)  # one group: the same as select's
    assert isinstance(single, Group) and isinstance(only, list) and len(only) == 1
    assert only[0].nodes == single.nodes


def _size(path: Path) -> int:
    return sum(math.prod(m.shape) for m in load_sample(path).metas)


@pytest.mark.parametrize("name", ["fusible_mul_getitem_neg_cat_etc_62a5dd58",
                                  "fusible_add_to_pow_mean_etc_a27f6bc3",
                                  "fusible_gather_expand_embedding_add_etc_611fb7eb"])  # fmt: skip
def test_heldout_task_gets_a_correct_pass(tmp_path: Path, name: str) -> None:
    """Smallest bfloat16 variant of a held-out task, sandboxed evaluation as passnet synth."""
    task = load_task(HELDOUT / name)
    small = min((v for v in task.variants if v.dtype == "bfloat16"), key=lambda v: _size(v.path))
    cut = write_task(tmp_path / name, [small.path], name=name).path
    params = Parameters(warmup=1, trials=3, rounds=1, max_reruns=0, timeout_s=300)
    r = synthesize_task(cut, tmp_path / "out", device="cpu", parameters=params)
    assert r.status == "written", r.reason
    assert r.verification is not None and r.verification["task_correct"]
    for v in r.verification["variants"]:
        assert v["status"] == "ok" and v["tightest_t"] <= STRICT_T, v
    report = json.loads((tmp_path / "out" / name / "synth.json").read_text())
    assert report["status"] == "written"
