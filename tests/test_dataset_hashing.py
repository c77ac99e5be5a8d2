"""The canonical structural hash: name-independent, sensitive to shape, dtype, literal and op."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import BERT
from conftest import fixture_path as fx

from passnet.dataset.hashing import sample_key, structural_hash
from passnet.graph.sample import TensorMeta, load_sample, write_sample

CODE = """import torch


class GraphModule(torch.nn.Module):
    def forward(self, {args}):
        {a} = {x} + {y}
        {b} = torch.nn.functional.layer_norm({a}, ({n},), {w}, None, {eps})
        {c} = torch.relu({y})
        return ({b}, {c})
"""


def _write(tmp: Path, name: str, *, names=("x", "y", "w"), order=(0, 1, 2), shape=(4, 8),
           dtype="float32", eps="1e-05", swap=False, op="relu") -> Path:  # fmt: skip
    x, y, w = names
    args = ", ".join([x, y, w][i] for i in order)
    code = CODE.format(args=args, a="t_a", b="t_b", c="t_c", x=x, y=y, w=w, n=shape[-1], eps=eps)
    if swap:  # the independent relu written before the add/layer_norm
        lines = code.splitlines()
        lines.insert(5, lines.pop(7))
        code = "\n".join(lines) + "\n"
    code = code.replace("torch.relu", f"torch.{op}")
    metas = {
        x: TensorMeta(name=x, shape=list(shape), dtype=f"torch.{dtype}", mean=0.0, std=1.0),
        y: TensorMeta(name=y, shape=list(shape), dtype=f"torch.{dtype}", mean=0.0, std=1.0),
        w: TensorMeta(name=w, shape=[shape[-1]], dtype=f"torch.{dtype}", mean=1.0, std=0.1),
    }
    ordered = [metas[[x, y, w][i]] for i in order]
    return write_sample(tmp / name, code, ordered, {}).path


def _hash(path: Path) -> str:
    return structural_hash(load_sample(path))


def test_names_and_argument_order_do_not_matter(tmp_path: Path) -> None:
    base = _hash(_write(tmp_path, "base"))
    renamed = _hash(_write(tmp_path, "renamed", names=("L_hidden_", "L_residual_", "L_ln_weight_")))
    reordered = _hash(_write(tmp_path, "reordered", order=(2, 1, 0)))
    swapped = _hash(_write(tmp_path, "swapped", swap=True))
    assert base == renamed == reordered == swapped
    assert re.fullmatch(r"[0-9a-f]{64}", base)


def test_shape_dtype_literal_and_op_change_the_hash(tmp_path: Path) -> None:
    base = _write(tmp_path, "base")
    others = [
        _write(tmp_path, "shape", shape=(4, 16)),
        _write(tmp_path, "dtype", dtype="float16"),
        _write(tmp_path, "literal", eps="1e-12"),
        _write(tmp_path, "op", op="sigmoid"),
    ]
    hashes = {_hash(p) for p in [base, *others]}
    assert len(hashes) == 5
    # the pattern (ops and edges only) ignores shape, dtype and literal, but not the op
    patterns = [sample_key(load_sample(p)).pattern for p in [base, *others]]
    assert patterns[0] == patterns[1] == patterns[2] == patterns[3] != patterns[4]


def test_real_graph_renamed_hashes_equal(tmp_path: Path) -> None:
    """The same real GraphNet graph with every argument renamed (as another library would)."""
    sample = load_sample(fx(BERT))
    code = sample.code
    metas = []
    for i, name in enumerate(sample.arg_names):
        new = f"arg{i}_from_other_lib"
        code = re.sub(rf"\b{re.escape(name)}\b", new, code)
        code = re.sub(rf"\b{re.escape(name.lower())}\b", f"v{i}_other", code)
        metas.append(sample.metas[i].model_copy(update={"name": new}))
    other = write_sample(tmp_path / "other", code, metas, dict(sample.graph_net))
    assert other.code != sample.code
    key, other_key = sample_key(sample), sample_key(other)
    assert key.structural == other_key.structural
    assert key.ops == other_key.ops and "layer_norm" in key.ops
