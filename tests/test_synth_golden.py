"""Golden text of what the synthesizer emits (issue 37: synth as a compiler; issue 38:
generic rules).

The kernels and wrappers of a sample of tasks, as ``--literal-shapes`` emits them, are
checked as text against files in tests/data/synth-golden/ (each the part of rule 0's module
from its ``@cached`` kernel to the end: kernel, plan, wrapper), written by the synthesizer
before its IR and printer existed; the generic rules of a second sample against
tests/data/synth-golden/generic/ (from the ``FREE_LITERALS`` declaration, or the pattern, to
the end); and every pass of the library (examples/synth_passes) is regenerated from its task,
its recorded launch shape and shapes mode, and compared byte for byte. A change to emission fails here first; when
it is meant, rewrite the sample with ``PASSNET_SYNTH_GOLDEN=update``, regenerate the library
(scripts/synth_library.py) and say in the commit why the text changed.
"""

from __future__ import annotations

import difflib
import json
import os
import tarfile
from pathlib import Path

import pytest

from passnet.dataset.task import load_task
from passnet.synth.graph import select_all, trace_variant
from passnet.synth.rules import plan_rules, rule_modules
from passnet.synth.wrapper import Tuning

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "synth-golden"
SUITES = {"suite": ROOT / "examples" / "suite", "suite-cpu": ROOT / "tests" / "data" / "suite-cpu",
          "heldout": ROOT / "examples" / "heldout"}  # fmt: skip
CORPUS = {"graphnet_suite": ROOT / "examples" / "graphnet_suite.tgz",
          "graphnet_train": ROOT / "examples" / "graphnet_train.tgz"}  # fmt: skip
TUNED = Tuning(flat_block=512, row_tile=2048, max_rows=32, num_warps=4)
UPDATE = os.environ.get("PASSNET_SYNTH_GOLDEN") == "update"

SAMPLES = [  # suite, task, keep rule, tuned, what its text covers
    ("suite", "fusible_add_mul_93e8ce5e", "win", False, "flat phase, broadcast sizes as locals"),
    (
        "suite",
        "fusible_add_layer_norm_getitem_aa69a846",
        "win",
        False,
        "row phase, LayerNorm, dtype and shape guards in the plan",
    ),
    (
        "suite-cpu",
        "fusible_mul_getitem_neg_0a75b2a9",
        "win",
        False,
        "two phases: names scoped per phase",
    ),
    (
        "suite",
        "fusible_linear_view_permute_contiguous_dff474bf",
        "win",
        False,
        "tl.dot (_dot), an output stored through a view chain",
    ),
    (
        "suite",
        "fusible_scaled_dot_product_attention_transpose_contiguous_reshape_ab8b4f88",
        "correct",
        False,
        "the alias path: a plain wrapper with stride and contiguity tests",
    ),
    (
        "suite-cpu",
        "fusible_group_norm_gelu_4d7b3d1e",
        "win",
        False,
        "group norm, EAGER_CUDA and the _stat helper",
    ),
    (
        "suite-cpu",
        "fusible_conv2d_batch_norm_relu_max_pool2d_904ad848",
        "win",
        False,
        "max pooling: window taps, pooled sizes",
    ),
    ("suite", "fusible_mul_to_add_946ed880", "win", False, "an integer result (int64)"),
    (
        "heldout",
        "fusible_mul_getitem_neg_cat_etc_62a5dd58",
        "win",
        False,
        "rotary embedding (held out): cat of a negated half",
    ),
    (
        "suite",
        "fusible_mul_add_softmax_dropout_22a53d22",
        "correct",
        True,
        "softmax, a tuned launch shape",
    ),
    (
        "graphnet_suite",
        "fusible_batch_norm_relu_9cfe87c2",
        "win",
        False,
        "one kernel per input rank behind a rank dispatch",
    ),
    (
        "graphnet_train",
        "fusible_index_select_new_zeros_new_ones_e33c9dce",
        "win",
        False,
        "three phases, constant fills, index_select",
    ),
]


GENERIC = [  # suite, task, keep rule, what its text covers
    ("suite", "fusible_add_layer_norm_getitem_aa69a846", "win",
     "LayerNorm: normalized_shape guarded against the row, eps and the row kernel arguments"),
    ("suite", "fusible_mul_add_softmax_dropout_22a53d22", "correct",
     "a scale as a kernel argument, the softmax dim guarded"),
    ("suite", "fusible_linear_view_permute_contiguous_dff474bf", "win",
     "a view's sizes in the wrapper's shape arithmetic"),
    ("suite-cpu", "fusible_group_norm_gelu_4d7b3d1e", "win", "group norm's eps in _stat"),
    ("suite", "fusible_batch_norm_relu_9cfe87c2", "win", "eval batch norm's eps"),
    ("suite", "fusible_add_mul_93e8ce5e", "win",
     "no free literal: dtype guards and rounding for any float dtype"),
]  # fmt: skip


def _task_dir(suite: str, name: str, tmp: Path) -> Path:
    if suite in SUITES:
        return SUITES[suite] / name
    with tarfile.open(CORPUS[suite]) as tar:  # the corpus suites are committed as archives
        prefix = f"{suite}/{name}/"
        tar.extractall(tmp, members=[m for m in tar.getmembers() if m.name.startswith(prefix)],
                       filter="data")  # fmt: skip
    return tmp / suite / name


def emitted(task_dir: Path, keep: str, tuning: Tuning | None,
            generic: bool = False) -> list[tuple[str, str]]:  # fmt: skip
    """The rule modules ``passnet synth`` writes for the task (``driver._synthesize``'s steps,
    without verification); ``generic``: its default rules, else ``--literal-shapes``'."""
    task = load_task(task_dir)
    traced, groups = [], []
    for variant in task.variants:
        traced.append(trace_variant(variant, noop_copies=keep == "win"))
        found = select_all(traced[-1])
        assert not isinstance(found, str), found
        groups += found
    return rule_modules(task.name, plan_rules(traced, groups, generic), tuning)


def _same(got: str, want: str, what: str) -> None:
    if got != want:
        diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "golden",
                                              "emitted", lineterm="", n=2))  # fmt: skip
        pytest.fail(f"{what}: emitted text changed\n{diff[:6000]}")


@pytest.mark.parametrize("suite,name,keep,tuned,what", SAMPLES, ids=[s[1] for s in SAMPLES])
def test_emitted_kernel_and_wrapper_text(tmp_path: Path, suite: str, name: str, keep: str,
                                         tuned: bool, what: str) -> None:  # fmt: skip
    stem, source = emitted(_task_dir(suite, name, tmp_path), keep, TUNED if tuned else None)[0]
    assert stem == f"synth_{name}_0"
    text = source[source.index("@cached\n") :]
    golden = GOLDEN / f"{name}.txt"
    if UPDATE:
        golden.write_text(text)
    _same(text, golden.read_text(), f"{name} ({what})")


@pytest.mark.parametrize("suite,name,keep,what", GENERIC, ids=[s[1] for s in GENERIC])
def test_emitted_generic_rule_text(tmp_path: Path, suite: str, name: str, keep: str,
                                   what: str) -> None:  # fmt: skip
    stem, source = emitted(_task_dir(suite, name, tmp_path), keep, None, generic=True)[0]
    assert stem == f"synth_{name}_0"
    start = source.find("FREE_LITERALS = {")
    text = source[start if start >= 0 else source.index("def pattern(") :]
    golden = GOLDEN / "generic" / f"{name}.txt"
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    _same(text, golden.read_text(), f"{name} generic ({what})")


def test_the_library_regenerates_byte_for_byte() -> None:
    """Each library pass, emitted again from its task with the launch shape its synth.json
    records, is the committed text: no pass changes unless emission does."""
    library = ROOT / "examples" / "synth_passes"
    folders = sorted(p for p in library.iterdir() if (p / "synth.json").is_file())
    assert len(folders) >= 20
    for folder in folders:
        report = json.loads((folder / "synth.json").read_text())
        chosen = (report.get("tuning") or {}).get("chosen")
        modules = emitted(SUITES["suite"] / report["name"], report.get("keep", "win"),
                          Tuning(**chosen) if chosen else None,
                          report.get("shapes", "literal") == "generic")  # fmt: skip
        names = json.loads((folder / "pass" / "sorted_output_pass_rule_names.json").read_text())
        assert [stem for stem, _ in modules] == names, folder.name
        for stem, source in modules:
            _same(source, (folder / "pass" / f"{stem}.py").read_text(), f"{folder.name}/{stem}")
