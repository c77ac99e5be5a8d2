"""scripts/ab_compare.py: two stores of one suite's bench, variant by variant (what a change
of the evaluator changed), read without importing the harness that wrote them."""

from __future__ import annotations

import gzip
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from helpers.store import ROOT, config, make_suite, result

from passnet.core.results import Finding
from passnet.runner.bench import bench
from passnet.runner.scripted import ScriptedExecutor
from passnet.runner.store import Store

SCRIPT = ROOT / "scripts" / "ab_compare.py"


def _bench(suite: Path, store: Path, scripted) -> None:
    with Store(store) as st:
        bench(config(suite, "eager"), st, ScriptedExecutor(scripted))


def test_a_changed_level_a_finding_and_the_speedup_ratio_are_reported(tmp_path: Path) -> None:
    suite = make_suite(tmp_path)
    _bench(suite, tmp_path / "old.db", lambda item: result(item, speedup=1.0))

    def new(item):
        r = result(item, speedup=1.21)
        if item.variant.variant.dtype == "bfloat16":  # one variant a level looser, flagged
            r.comparison.tightest_passing_t = -9
            r.integrity.append(Finding(check="timed-drift", detail="t -9", fatal=False))
        return r

    _bench(suite, tmp_path / "new.db", new)
    (tmp_path / "new.db.gz").write_bytes(gzip.compress((tmp_path / "new.db").read_bytes()))
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "old.db"), str(tmp_path / "new.db.gz"),
         "--json", str(tmp_path / "ab.json")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    report = json.loads((tmp_path / "ab.json").read_text())["candidates"]["eager"]
    assert (report["variants"], report["ok_old"], report["ok_new"]) == (3, 3, 3)
    assert abs(report["speedup_ratio_gmean"] - 1.21) < 1e-9
    (changed,) = report["changed"]
    assert changed["old"] == ["ok", -10] and changed["new"] == ["ok", -9]
    assert "bfloat16" in changed["variant"]
    assert list(report["findings_new"].values()) == [["timed-drift: t -9"]]
    assert "timed-drift: t -9" in out.stdout


def test_stores_without_a_shared_candidate_are_an_error(tmp_path: Path) -> None:
    suite = make_suite(tmp_path)
    _bench(suite, tmp_path / "a.db", lambda item: result(item))
    with Store(tmp_path / "b.db") as st:
        bench(config(suite, "inductor"), st, ScriptedExecutor(lambda item: result(item)))
    spec = importlib.util.spec_from_file_location("ab_compare", SCRIPT)
    assert spec and spec.loader
    ab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ab)
    report = ab.compare(ab.load(tmp_path / "a.db"), ab.load(tmp_path / "b.db"))
    assert report["candidates"] == {}
    failed = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "a.db"),
                             str(tmp_path / "b.db")], capture_output=True, text=True)  # fmt: skip
    assert failed.returncode != 0 and "share no candidate" in failed.stderr
