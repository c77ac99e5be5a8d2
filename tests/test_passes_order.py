"""matches_in_order: where a pass's rules match when applied in order, without rewriting."""

from __future__ import annotations

from pathlib import Path

from helpers.passes import BERT, fixture_module, needs_fixtures, simple_rule, write_pass

from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, matches_in_order, to_fx
from passnet.passes.pattern import prepare_pattern

RULES = {  # applied in this order: the adds feeding a LayerNorm go to the first rule
    "AddLn.py": simple_rule("return F.layer_norm(x + r, (128,), w, b, 1e-12)", "x, r, w, b"),
    "Add.py": simple_rule("return x + r", "x, r"),
    "Drop.py": simple_rule("return F.dropout(x, 0.1, False, False)"),
}


@needs_fixtures
def test_matches_in_order_agree_with_applying_the_rules(tmp_path: Path) -> None:
    """On BERT's graph: the counts are those apply_passes reports rule by rule; no node is
    matched twice; the graph is left as it was; a later rule's input that an earlier rule
    replaced is given as the graph's own node (the LayerNorm the first dropout reads)."""
    passes = load_pass_dir(write_pass(tmp_path / "p", RULES))
    gm = to_fx(fixture_module(BERT)[0])
    code = gm.code
    found = matches_in_order(gm.graph, [prepare_pattern(r.pattern) for r in passes.rules])
    assert gm.code == code
    applied = apply_passes(to_fx(fixture_module(BERT)[0]), passes)
    assert [len(ms) for ms in found] == [r.matches for r in applied.rules] == [5, 1, 5]
    nodes = set(gm.graph.nodes)
    computed = [n for ms in found for m in ms for n in m.compute]
    assert len(computed) == len(set(computed)) and set(computed) <= nodes
    assert [[n.name for n in m.compute] for m in found[0]][:2] == [  # the pattern's order
        ["add_1", "layer_norm"], ["add_2", "layer_norm_1"]]  # fmt: skip
    assert "layer_norm" in [m.inputs[0].name for m in found[2]]
    assert all(n in nodes for ms in found for m in ms for n in m.inputs + m.outputs)
