"""The harness-measuring scripts the GPU calls rely on, run on CPU: scripts/harness_layers.py
(each per-call timing layer around one eager call) and scripts/harness_bisect.sh's row
summary, so that a change to the timing API breaks here and not on the device."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRAPH = ROOT / "examples/suite/fusible_add_layer_norm_1f059508/graphs/float32/6_roberta_b2_0924141a"


def test_harness_layers_times_every_configuration() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "harness_layers.py"), str(GRAPH),
                          "--reps", "1"], capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    rows = {line.split()[0]: float(line.split()[1]) for line in out.stdout.splitlines()}
    assert set(rows) == {"bare", "feed", "hold", "witness", "all"} and all(
        v > 0 for v in rows.values()
    )


def test_the_bisect_row_summarises_a_probe_run() -> None:
    probe = ("new default ahead=8: 15.2 s, G-mean speedup (wall) 1.041\n"
             "  graphs/a: ok, wall 40.0 / 20.0 us, event 30.0 / 15.0\n"
             "  graphs/b: ok, wall 90.0 / 45.0 us\n")  # fmt: skip
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "harness_bisect_row.py"), "2"],
                         input=probe, capture_output=True, text=True, check=True)  # fmt: skip
    line = out.stdout.strip()
    assert line.startswith("round 2: new") and "G-mean 1.041" in line
    assert "eager 60.0 us" in line and "candidate 30.0 us" in line
