"""The harness-measuring scripts the GPU calls rely on, run on CPU: scripts/harness_layers.py
(each per-call timing layer around one eager call), scripts/harness_profile.py (one variant's
evaluation under cProfile), scripts/harness_bisect.sh's row summary
and scripts/accelerate_gpu.sh (its runs' arguments, its time limit, its table,
scripts/zoo_table.py), so that a change to the timing API or the script breaks here and not
on the device."""

from __future__ import annotations

import json
import os
import shlex
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


def test_harness_profile_names_the_phases_and_the_checked_calls_functions() -> None:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    pass_dir = ROOT / "examples/synth_passes/fusible_add_layer_norm_1f059508/pass"
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "harness_profile.py"), str(GRAPH),
                          "--pass-dir", str(pass_dir), "--trials", "16", "--top", "5"],
                         capture_output=True, text=True, timeout=300, env=env, check=True)  # fmt: skip
    first = out.stdout.splitlines()[0]
    assert first.startswith("ok in ") and "timing_checks" in first
    assert "timed_phase.py" in out.stdout and "(timed_check)" in out.stdout
    timers = subprocess.run([sys.executable, str(ROOT / "scripts" / "harness_profile.py"),
                             str(GRAPH), "--pass-dir", str(pass_dir), "--trials", "16", "--timers"],
                            capture_output=True, text=True, timeout=300, env=env, check=True)  # fmt: skip
    rows = {line.split()[0]: line.split()[1:] for line in timers.stdout.splitlines()[2:]}
    assert int(rows["Runtime.verify"][0]) > 0 and float(rows["Runtime.verify"][1]) > 0
    assert int(rows["TimingPhase.timed_check"][0]) > 0 and int(rows["matches_many"][0]) > 0


def test_the_bisect_row_summarises_a_probe_run() -> None:
    probe = ("new default ahead=8: 15.2 s, G-mean speedup (wall) 1.041\n"
             "  graphs/a: ok, wall 40.0 / 20.0 us, event 30.0 / 15.0\n"
             "  graphs/b: ok, wall 90.0 / 45.0 us\n")  # fmt: skip
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "harness_bisect_row.py"), "2"],
                         input=probe, capture_output=True, text=True, check=True)  # fmt: skip
    line = out.stdout.strip()
    assert line.startswith("round 2: new") and "G-mean 1.041" in line
    assert "eager 60.0 us" in line and "candidate 30.0 us" in line


# scripts/accelerate_gpu.sh (the GPU zoo benchmark) and its table, scripts/zoo_table.py.
ZOO_SH = ROOT / "scripts" / "accelerate_gpu.sh"


def _zoo_result(model: str, shape: str, dtype: str, timed: bool) -> dict:
    """A ``passnet accelerate --json`` result as run.py writes it (AccelerateResult.to_json)."""
    from passnet.accelerate.run import AccelerateResult, Check
    from passnet.core.results import SideTiming, Timing

    def side(us: float) -> dict:
        return SideTiming(wall=Timing(method="wall", samples_us=[us], median_us=us, iqr_us=1.0,
                                      rounds=4, noisy=False)).model_dump()  # fmt: skip

    rule = {"count": 5 if timed else 0, "where": [], "skipped_overlaps": [], "miss": ""}
    checks = {"passnet": Check("passnet", -5, 1e-6, 1e-5), "inductor": Check("inductor", -5)}
    r = AccelerateResult(model, shape, "cuda", dtype, "inductor", "folders", [],
                         {"lib/add_layer_norm:Fuse": rule}, [], checks, True, "correct")  # fmt: skip
    if timed:
        r.timing = {"eager": side(1200.0), "inductor": side(900.0), "passnet": side(600.0)}
        r.speedups = {"eager/passnet": 2.0, "inductor/passnet": 1.5}
        r.sites = {"add+layer_norm": [5, 5], "bias+activation": [0, 0]}
    return json.loads(json.dumps(r.to_json(), default=str))  # as the command writes it


def test_zoo_table_has_a_row_per_result_with_its_dtype(tmp_path: Path) -> None:
    bert = _zoo_result("bert", "b8-s128-h192", "bfloat16", timed=True)
    resnet = _zoo_result("torchvision/resnet18", "b1-s224", "float32", timed=False)
    (tmp_path / "bert-b8-h192-bfloat16.json").write_text(json.dumps(bert))
    (tmp_path / "torchvision_resnet18-b1-s224-float32.json").write_text(json.dumps(resnet))
    (tmp_path / "warm").mkdir()  # warm-up logs, not results
    (tmp_path / "warm" / "x.json").write_text("{}")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "zoo_table.py"), str(tmp_path)],
                         capture_output=True, text=True, check=True)  # fmt: skip
    lines = out.stdout.splitlines()
    assert lines[0].startswith("| model | dtype | shape | fired |") and len(lines) == 4
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    assert cells[0] == ["bert", "bfloat16", "b8-s128-h192", "5", "add+layer_norm 5/5", "-5",
                        "1,200", "900", "-", "600", "-", "2.000x", "1.500x", "-"]  # fmt: skip
    assert cells[1] == ["torchvision/resnet18", "float32", "b1-s224", "0", "-", "-5"] + ["-"] * 8
    assert all(len(c) == len(lines[0].strip("|").split("|")) for c in cells)


def _zoo_sh(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "OUT": str(tmp_path / "out")} | env
    return subprocess.run(["bash", str(ZOO_SH)], env=full, capture_output=True, text=True,
                          timeout=120, check=True)  # fmt: skip


def _runs(stdout: str, kind: str) -> dict[str, list[str]]:
    """DRY_RUN's ``KIND TAG: command`` lines: tag -> the arguments after ``accelerate``."""
    out = {}
    for line in stdout.splitlines():
        if line.startswith(f"{kind} "):
            tag, _, cmd = line[len(kind) + 1 :].partition(": ")
            words = shlex.split(cmd)
            out[tag] = words[words.index("accelerate") + 1 :]
    return out


def test_accelerate_gpu_sh_parses() -> None:
    subprocess.run(["bash", "-n", str(ZOO_SH)], check=True)


def test_accelerate_gpu_sh_builds_one_argument_list_for_warm_and_timed_runs(
    tmp_path: Path,
) -> None:
    out = _zoo_sh(tmp_path, DRY_RUN="1", WARM="1", BATCHES="8", SYNTH="lib",
                  MODELS="bert#192 torchvision/resnet18@224", ACCEL_ARGS="--tune --dtype bfloat16")  # fmt: skip
    acc = tmp_path / "out" / "accelerate"
    timed, warm = _runs(out.stdout, "timed"), _runs(out.stdout, "warm")
    common = ["--passes", "examples/passes", "--passes", "lib", "--min-speedup", "1.0",
              "--device", "cuda", "--batch", "8"]  # fmt: skip
    assert timed == {
        "bert-b8-h192-bfloat16": ["bert", *common, "--hidden", "192", "--tune", "--dtype",
                                  "bfloat16", "--json", f"{acc}/bert-b8-h192-bfloat16.json"],
        "torchvision_resnet18-b8-s224-bfloat16": [
            "torchvision/resnet18", *common, "--size", "224", "--tune", "--dtype", "bfloat16",
            "--json", f"{acc}/torchvision_resnet18-b8-s224-bfloat16.json"],
    }  # fmt: skip
    assert warm == {tag: [*args[:-2], "--no-time"] for tag, args in timed.items()}
    assert "timeout -s INT -k 30 300 python3 -m passnet.cli accelerate bert " in out.stdout
    assert f"tune cache: {acc}/tune.sqlite" in out.stdout


def test_accelerate_gpu_sh_skips_done_runs_and_defaults_to_float32(tmp_path: Path) -> None:
    acc = tmp_path / "out" / "accelerate"
    acc.mkdir(parents=True)
    (acc / "gpt2-b1-float32.json").write_text("{}")
    env = {"DRY_RUN": "1", "MODELS": "gpt2 vit@96", "BATCHES": "1"}
    assert set(_runs(_zoo_sh(tmp_path, **env).stdout, "timed")) == {"gpt2-b1-float32",
                                                                      "vit-b1-s96-float32"}  # fmt: skip
    assert set(_runs(_zoo_sh(tmp_path, SKIP_DONE="1", **env).stdout, "timed")) == {
        "vit-b1-s96-float32"
    }


def test_accelerate_gpu_sh_stops_a_run_at_model_budget(tmp_path: Path) -> None:
    """The real (not dry) path with a stand-in python3 and nvidia-smi: a hung model is stopped
    and listed, the next one still runs and lands in the table, --tune's cache is $OUT's."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    result = tmp_path / "result.json"
    result.write_text(json.dumps(_zoo_result("gpt2", "b1-s128", "float32", timed=True)))
    (bin_ / "nvidia-smi").write_text("#!/bin/sh\necho 'name, driver_version'\n")
    (bin_ / "python3").write_text(f"""#!/usr/bin/env bash
case "$*" in
  *"-m pip "*) exit 0 ;;
  *"accelerate hung "*) exec sleep 30 ;;
  *"-m passnet.cli accelerate "*)
    echo "$PASSNET_TUNE_CACHE" > {tmp_path}/tune-cache.txt; cp {result} "${{@: -1}}" ;;
  *) exec {sys.executable} "$@" ;;
esac
""")
    for f in bin_.iterdir():
        f.chmod(0o755)
    _zoo_sh(tmp_path, PATH=f"{bin_}:{os.environ['PATH']}", MODELS="hung gpt2", BATCHES="1",
            MODEL_BUDGET="1")  # fmt: skip
    acc = tmp_path / "out" / "accelerate"
    hit = (acc / "timeouts.txt").read_text()
    assert hit == "hung-b1-float32: hit MODEL_BUDGET (1 s), stopped\n"
    assert (tmp_path / "tune-cache.txt").read_text().strip() == f"{acc}/tune.sqlite"
    table = (acc / "table.md").read_text().splitlines()
    assert len(table) == 3 and table[2].startswith("| gpt2 | float32 | b1-s128 | 5 |")


# scripts/harness_p2.sh (P2 with two harnesses side by side) and its table, scripts/p2_summary.py.
def _p2_result(seconds: float, noisy: list[bool], findings: list[str]) -> dict:
    """A ``passnet eval --json`` task result with what the summary reads."""
    from passnet.core.results import SideTiming, Timing, VariantResult

    def side(is_noisy: bool) -> SideTiming:
        return SideTiming(wall=Timing(method="wall", samples_us=[50.0], median_us=50.0,
                                      iqr_us=12.0, rounds=4, noisy=is_noisy))  # fmt: skip

    variants = [
        VariantResult(graph=f"graphs/float32/{i}", dtype="float32", status="ok",
                      reference=side(False), candidate=side(n),
                      phase_seconds={"wait": 1.0, "timing": 0.1, "timing_checks": 0.05,
                                     "timing_settle": 0.02},
                      integrity=[{"check": c, "detail": "", "fatal": False} for c in findings])
        for i, n in enumerate(noisy)
    ]  # fmt: skip
    return {"wall_seconds": seconds, "scores": {"AS": 1.1},
            "variants": [json.loads(v.model_dump_json()) for v in variants]}  # fmt: skip


def test_p2_summary_lists_every_call_and_the_warm_medians(tmp_path: Path) -> None:
    for name, seconds, noisy in [("new_1", 9.0, [True, False]), ("new_2", 4.0, [False, False]),
                                 ("new_3", 5.0, [True, True]), ("old_1", 6.0, [False, False]),
                                 ("old_2", 4.5, [False, True])]:  # fmt: skip
        findings = ["timed-drift"] if name == "new_2" else []
        (tmp_path / f"p2_{name}.json").write_text(json.dumps(_p2_result(seconds, noisy, findings)))
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "p2_summary.py"), str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout.splitlines()  # fmt: skip
    assert out[1].startswith("new 2: 4.00 s, noisy 0/2, lock 0.34 s (timed 0.2, checked 0.1,")
    assert out[1].endswith("findings timed-drift") and "noisy 2/2" in out[2]
    assert out[-2:] == ["new: median 4.50 s over 2 warm call(s) (4.00-5.00)",
                        "old: median 4.50 s over 1 warm call(s) (4.50-4.50)"]  # fmt: skip


def test_harness_p2_sh_parses() -> None:
    subprocess.run(["bash", "-n", str(ROOT / "scripts" / "harness_p2.sh")], check=True)
