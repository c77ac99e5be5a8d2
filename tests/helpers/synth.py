"""The CPU-curated suite, fast parameters and one-rule pass folders the synthesizer's test
modules share."""

from __future__ import annotations

import json
from pathlib import Path

from passnet.core.results import Parameters
from passnet.integrity.policy import check_pass_dir

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "data" / "suite-cpu"
FAST = Parameters(warmup=1, trials=3, rounds=1, max_reruns=0, timeout_s=300)


def one_rule_pass(tmp_path: Path, source: str, rule: str = "synth_test_0") -> Path:
    """``source`` (a generated rule module) as an upstream-format pass folder of that one
    rule, checked by the static policy like any submitted pass."""
    pass_dir = tmp_path / "pass"
    pass_dir.mkdir()
    (pass_dir / f"{rule}.py").write_text(source)
    (pass_dir / "sorted_output_pass_rule_names.json").write_text(json.dumps([rule]))
    assert check_pass_dir(pass_dir) == []
    return pass_dir
