"""The committed pass library (examples/synth_passes: the synthesizer's passes kept on the
H200) still loads, passes the static policy and matches and is correct on its own task."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pytest

from passnet.dataset.task import load_task
from passnet.graph.sample import load_module, load_sample, materialize
from passnet.integrity.policy import check_pass_dir
from passnet.passes.loader import load_pass_dir
from passnet.passes.matcher import apply_passes, to_fx
from passnet.scores.compare import compare_outputs

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "examples" / "synth_passes"
FOLDERS = sorted(p for p in LIBRARY.iterdir() if p.is_dir())


def test_the_library_is_there() -> None:
    assert len(FOLDERS) >= 10, FOLDERS


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_library_pass_fires_and_is_correct_on_its_task(folder: Path) -> None:
    record = json.loads((folder / "synth.json").read_text())
    assert record["status"] == "written" and record["name"] == folder.name
    assert record["verification"]["device"].startswith("cuda")
    assert check_pass_dir(folder / "pass") == []
    task = load_task(ROOT / "examples" / "suite" / folder.name)
    fp32 = [v for v in task.variants if v.dtype == "float32"]
    variant = min(fp32, key=lambda v: sum(math.prod(m.shape) for m in load_sample(v.path).metas))
    sample = load_sample(variant.path)
    inputs = materialize(sample, device="cpu", seed=0)
    reference = load_module(sample)(*inputs)
    gm = to_fx(load_module(sample))
    assert apply_passes(gm, load_pass_dir(folder / "pass")).total >= 1
    t = compare_outputs(gm(*inputs), reference).tightest_passing_t
    assert t is not None and t <= -5, t


def test_profile_script_reports_both_sides_per_variant(tmp_path: Path) -> None:
    """scripts/profile_pass.py (run on the GPU by gpu_check.sh PROFILE=1) on one variant:
    the pass matched, both sides timed; on CPU no device profile is taken."""
    import subprocess
    import sys

    folder = LIBRARY / "fusible_batch_norm_relu_9cfe87c2"
    out = tmp_path / "p.json"
    cmd = [sys.executable, str(ROOT / "scripts" / "profile_pass.py"),
           str(ROOT / "examples" / "suite" / folder.name), "--pass-dir", str(folder / "pass"),
           "--graph", "*float32*", "--warmup", "1", "--trials", "3", "--rounds", "1",
           "--issue", "2", "--json", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT, timeout=300)
    report = json.loads(out.read_text())
    assert report["task"] == folder.name and report["device"] == "cpu"
    (first, *_) = report["variants"]
    assert all(v["graph"].startswith("graphs/float32/") for v in report["variants"])
    assert first["matches"] == 1
    for side in ("eager", "pass"):
        assert first[side]["sync_us"] > 0 and first[side]["host_issue_us"] > 0
        assert "device_us" not in first[side]
    assert first["speedup"] > 0


def test_first_call_profile_and_eval_latency_scripts(tmp_path: Path) -> None:
    """scripts/profile_first_call.py and scripts/bench_eval_latency.py (issue 14's GPU
    diagnostics) on CPU: the pass matches, the steps are timed and the profile printed; the
    repeated evaluations are all correct and recorded."""
    import subprocess
    import sys

    folder = LIBRARY / "fusible_batch_norm_relu_9cfe87c2"
    task = ROOT / "examples" / "suite" / folder.name
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "profile_first_call.py"),
                          str(task), "--pass-dir", str(folder / "pass"), "--top", "5"],
                         check=True, capture_output=True, text=True, cwd=ROOT, timeout=300)  # fmt: skip
    assert "1 matches" in out.stdout and "first call" in out.stdout, out.stdout
    assert "Ordered by: cumulative time" in out.stdout
    one = tmp_path / "one"
    one.mkdir()
    (one / "graph_list.txt").write_text(
        (task / "graph_list.txt").read_text().splitlines()[0] + "\n"
    )
    (one / "graphs").symlink_to(task / "graphs", target_is_directory=True)
    report = tmp_path / "latency.json"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_eval_latency.py"), str(one),
                    "--pass-dir", str(folder / "pass"), "--repeat", "2", "--think", "0.5",
                    "--json", str(report)],
                   check=True, capture_output=True, cwd=ROOT, timeout=600)  # fmt: skip
    data = json.loads(report.read_text())
    assert [c["call"] for c in data["calls"]] == [1, 2] and data["variants"] == 1
    assert data["think_s"] == 0.5
    assert all(c["statuses"] == {"ok": 1} and c["wall_s"] > 0 for c in data["calls"])


def test_worker_profile_script(tmp_path: Path) -> None:
    """scripts/profile_worker.py (gpu_check.sh DIAG=1) on CPU: each variant evaluated by the
    harness in a fresh fork of a preloaded parent, with its phases, the modules it still had
    to import and cProfile's top functions; a pass candidate needs its folder."""
    import subprocess
    import sys

    folder = LIBRARY / "fusible_batch_norm_relu_9cfe87c2"
    task = ROOT / "examples" / "suite" / folder.name
    report = tmp_path / "worker.json"
    script = str(ROOT / "scripts" / "profile_worker.py")
    out = subprocess.run([sys.executable, script, str(task), "--candidate", "pass",
                          "--pass-dir", str(folder / "pass"), "--variants", "2", "--top", "8",
                          "--json", str(report)],
                         check=True, capture_output=True, text=True, cwd=ROOT, timeout=300)  # fmt: skip
    rows = json.loads(report.read_text())["variants"]
    assert len(rows) == 2 and all(r["status"] == "ok" for r in rows), rows
    for r in rows:
        assert {"setup", "build", "correctness", "timing"} <= set(r["phase_seconds"])
        assert r["wall_s"] >= sum(r["phase_seconds"].values()) * 0.99
        assert any("run_variant" in line for line in r["profile"])
    assert "imported during the variant" in out.stdout  # the pass's own modules at least
    bad = subprocess.run([sys.executable, script, str(task), "--candidate", "pass"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert bad.returncode == 2 and "--pass-dir goes with --candidate pass" in bad.stderr


def test_numerics_probe_script(tmp_path: Path) -> None:
    """scripts/numerics_probe.py on CPU: per variant, the pass against eager and both against
    eager's own float32 computation; a float32 variant is its own reference (eager vs fp32 is
    exact), and a wrong pass is told apart from a pass that rounds differently."""
    import subprocess
    import sys

    folder = LIBRARY / "fusible_mul_sigmoid_f48c67e3"
    task = ROOT / "examples" / "suite" / folder.name
    report = tmp_path / "probe.json"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "numerics_probe.py"), str(task),
                    "--pass-dir", str(folder / "pass"), "--graph", "*/float32/4_*",
                    "--json", str(report)],
                   check=True, capture_output=True, cwd=ROOT, timeout=600)  # fmt: skip
    (row,) = json.loads(report.read_text())["variants"]
    assert row["matches"] == 1 and row["eager_vs_fp32"] == -10
    assert row["pass_vs_eager"] is not None and row["pass_vs_eager"] <= -5
    assert row["pass_vs_fp32"] == row["pass_vs_eager"]  # float32: the reference is eager
    wrong = tmp_path / "wrong"
    shutil.copytree(folder / "pass", wrong)
    for f in wrong.glob("synth_*.py"):  # 10% and 0.5 off: no level below 0 passes
        f.write_text(re.sub(r"tl\.store\(y0 \+ (\w+), (\w+)", r"tl.store(y0 + \1, (1.1 * \2 + 0.5)",
                            f.read_text()))  # fmt: skip
    subprocess.run([sys.executable, str(ROOT / "scripts" / "numerics_probe.py"), str(task),
                    "--pass-dir", str(wrong), "--graph", "*/float32/4_*", "--json", str(report)],
                   check=True, capture_output=True, cwd=ROOT, timeout=600)  # fmt: skip
    (row,) = json.loads(report.read_text())["variants"]
    assert row["pass_vs_eager"] is not None and row["pass_vs_eager"] >= 0, row


def test_a_bench_runs_synth_cache_becomes_the_library(tmp_path: Path) -> None:
    """scripts/synth_library.py: a bench cache's folders (absolute paths, a trajectory, two
    syntheses of one task) into the library: the newest per task, paths relative, the README's
    table rows and list of slow passes rewritten, its prose kept."""
    import os
    import subprocess
    import sys

    cache = tmp_path / "synth" / "cuda-0123"
    names = ["fusible_mul_add_445849cd", "fusible_batch_norm_relu_9cfe87c2"]
    for i, (name, gmean) in enumerate(zip(names, [0.5, 1.5], strict=True)):
        for age, key in enumerate(["old", "new"]):
            src = cache / f"{name}-{key}"
            shutil.copytree(LIBRARY / name, src)
            report = json.loads((src / "synth.json").read_text())
            report.update(
                task=str(ROOT / "examples" / "suite" / name),
                pass_dir=str(src / "pass"),
                trajectory=str(src / "trajectory.json"),
            )
            report["verification"]["gmean_speedup"] = gmean if key == "new" else 1.0
            (src / "synth.json").write_text(json.dumps(report))
            (src / "trajectory.json").write_text("{}")
            os.utime(src / "synth.json", (1000 + 10 * i + age, 1000 + 10 * i + age))
    skipped = cache / "fusible_mul_to_add_946ed880-k"  # a task the synthesizer refused
    skipped.mkdir()
    (skipped / "synth.json").write_text(
        json.dumps({"name": skipped.name[:-2], "status": "skipped", "reason": "unsupported op"})
    )
    out = tmp_path / "library"
    out.mkdir()
    shutil.copy(LIBRARY / "README.md", out / "README.md")
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "synth_library.py"),
                          str(tmp_path), "--out", str(out)],
                         check=True, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "fusible_mul_to_add_946ed880: left out (skipped: unsupported op)" in run.stdout
    assert not (out / "fusible_mul_to_add_946ed880").exists()
    for name in names:
        report = json.loads((out / name / "synth.json").read_text())
        assert report["task"] == f"examples/suite/{name}" and report["pass_dir"] == "pass"
        assert report["trajectory"] is None and (out / name / "pass").is_dir()
        assert check_pass_dir(out / name / "pass") == []
    readme = (out / "README.md").read_text()
    rows = [line for line in readme.split("\n") if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == sorted(names)
    assert "| 0.500x (" in rows[1] and "| 1.500x (" in rows[0]
    assert "leave out the 1 passes that were slower" in readme
    assert "`fusible_mul_add_445849cd`." in readme and "The keep rule is `correct`" in readme
    # a later partial synthesis (one more task) adds its pass; the table keeps the earlier rows
    later = tmp_path / "later" / "fusible_add_mul_93e8ce5e-k"
    shutil.copytree(LIBRARY / "fusible_add_mul_93e8ce5e", later)
    subprocess.run([sys.executable, str(ROOT / "scripts" / "synth_library.py"),
                    str(tmp_path / "later"), "--out", str(out)],
                   check=True, capture_output=True, text=True, timeout=120)  # fmt: skip
    rows = [line for line in (out / "README.md").read_text().split("\n") if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == sorted([*names, "fusible_add_mul_93e8ce5e"])
