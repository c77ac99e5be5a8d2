"""Variants of a subgraph: float32 / float16 / bfloat16 and shape buckets (SPEC section 3).

Dtype variants are made with :func:`passnet.graph.sample.with_dtype` (which runs them) and must
stay finite where the float32 graph is finite. Shape-bucket variants come from captures of the
same model at other input sizes: when the sibling graph has the same op sequence, the same
compute-node range is cut from it (the two op sequences are aligned, so an extra op elsewhere
in the sibling, such as an ``expand`` that only appears for batch > 1, does not matter).

The shape bucket of a graph is ``floor(log2 n) // 4`` (0..9) where ``n`` is the element count
of its largest activation: an argument that is not a parameter or buffer, or an output (a
subgraph reading a fixed-size buffer slice still moves with the batch through its outputs).
Buckets are 16x apart.
"""

from __future__ import annotations

import difflib
import math
from pathlib import Path

import torch

from passnet.graph.sample import Sample, SampleError, run_sample, with_dtype

DTYPES = ("float32", "float16", "bfloat16")
MAX_BUCKET = 9
_WEIGHT_MARKERS = ("_parameters_", "_buffers_", "L_const_")


class VariantError(Exception):
    """A variant that cannot be made or does not run correctly; says why."""


def _is_weight(name: str) -> bool:
    return any(marker in name for marker in _WEIGHT_MARKERS)


def activation_numel(sample: Sample, outputs: tuple | None = None) -> int:
    """Elements of the largest activation argument or output (see the module docstring)."""
    tensors = [
        (m.name, math.prod(m.shape)) for m in sample.metas if sample.scalar_type(m.name) is None
    ]
    activations = [n for name, n in tensors if not _is_weight(name)]
    activations += [o.numel() for o in outputs or () if isinstance(o, torch.Tensor)]
    return max(activations or [n for _, n in tensors] or [1])


def bucket_of(numel: int) -> int:
    """``floor(log2 numel) // 4``, clamped to 0..9."""
    return min(MAX_BUCKET, int(math.floor(math.log2(max(1, numel)))) // 4)


def shape_bucket(sample: Sample, run: bool = True) -> int:
    """The sample's bucket; ``run=False`` looks at its arguments only (no forward)."""
    return bucket_of(activation_numel(sample, run_sample(sample) if run else None))


def has_float_inputs(sample: Sample) -> bool:
    return any(
        sample.scalar_type(m.name) is None and m.torch_dtype.is_floating_point for m in sample.metas
    )


def _finite(outputs: tuple) -> list[bool]:
    return [
        bool(torch.isfinite(o).all()) if isinstance(o, torch.Tensor) and o.is_floating_point()
        else True
        for o in outputs
    ]  # fmt: skip


def dtype_variant(sample: Sample, dtype: str, out_path: Path) -> Sample:
    """``sample`` with its floating tensors in ``dtype``, run and checked finite."""
    if dtype not in DTYPES:
        raise VariantError(f"unknown dtype {dtype!r}; known: {', '.join(DTYPES)}")
    if not has_float_inputs(sample):
        raise VariantError("no floating-point tensor argument: no dtype variant")
    try:
        variant = with_dtype(sample, dtype, out_path)
        reference = _finite(run_sample(sample, seed=0))
        got = _finite(run_sample(variant, seed=0))
    except (SampleError, RuntimeError, ValueError) as e:
        raise VariantError(f"{dtype} variant does not run: {e}") from e
    bad = [i for i, (r, g) in enumerate(zip(reference, got, strict=True)) if r and not g]
    if bad:
        raise VariantError(f"{dtype} variant produces NaN/Inf in output(s) {bad}")
    return variant


def map_range(
    base_ops: list[str], sibling_ops: list[str], start: int, end: int
) -> tuple[int, int] | None:
    """Where ``[start, end)`` of the base capture is in a sibling capture (same ops), or None."""
    if base_ops == sibling_ops:
        return start, end
    matcher = difflib.SequenceMatcher(None, base_ops, sibling_ops, autojunk=False)
    for block in matcher.get_matching_blocks():
        if block.a <= start and end <= block.a + block.size:
            offset = block.b - block.a
            return start + offset, end + offset
    return None
