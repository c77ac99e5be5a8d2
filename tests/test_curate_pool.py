"""scripts/curate_pool.py: pools merged without duplicates, the suite chosen from a real store
(scripted results: exact speedups), the training split sharing no family with it."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

from helpers.store import PARAMS, result

from passnet.runner.bench import BenchConfig, bench
from passnet.runner.scripted import ScriptedExecutor
from passnet.runner.store import Store

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "curate_pool.py"
_spec = importlib.util.spec_from_file_location("curate_pool", SCRIPT)
assert _spec is not None and _spec.loader is not None
curate_pool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(curate_pool)

# one-family tasks of the bundled suite, and their scripted Inductor speedups over eager
TASKS = {
    "fusible_add_mul_93e8ce5e": 0.5,  # mobilebert
    "fusible_mul_add_445849cd": 0.6,  # mobilebert again: a second task of one family
    "fusible_embedding_arange_6a42a969": 0.8,  # t5
    "fusible_layer_norm_58b3a67a": 1.4,  # clip: Inductor wins here
    "fusible_batch_norm_relu_9cfe87c2": 2.0,  # resnet
}


def exported(root: Path, name: str, tasks: list[str]) -> Path:
    """An exported folder of some bundled-suite tasks, as `passnet dataset export` writes it."""
    suite = json.loads((ROOT / "examples" / "suite" / "suite.json").read_text())
    folder = root / name
    folder.mkdir()
    entries = [t for t in suite["tasks"] if t["name"] in tasks]
    for t in entries:
        shutil.copytree(ROOT / "examples" / "suite" / t["name"], folder / t["name"])
    (folder / "suite.json").write_text(json.dumps({"schema_version": 1, "tasks": entries}))
    return folder


def test_merge_keeps_each_task_once_and_choose_takes_the_weakest_per_family(tmp_path):
    names = list(TASKS)
    a = exported(tmp_path, "a", names[:3])
    b = exported(tmp_path, "b", names[2:])  # shares one task with a
    pool = tmp_path / "pool"
    counts = curate_pool.merge(pool, [a, b])
    assert counts == {"kept": 5, "same_name": 1, "same_graph": 0}
    merged = json.loads((pool / "suite.json").read_text())
    assert sorted(t["name"] for t in merged["tasks"]) == sorted(names)

    def script(item):  # eager 1.0; Inductor's speedup by task, every variant
        task = item.variant.variant.path.parents[2].name  # TASK/graphs/DTYPE/GRAPH
        speedup = TASKS[task] if item.candidate.spec.kind == "inductor" else 1.0
        return result(item, speedup=speedup)

    store = tmp_path / "s.db"
    with Store(store) as st:
        cfg = BenchConfig(suite=pool, candidates=("eager", "inductor"), parameters=PARAMS)
        run = bench(cfg, st, ScriptedExecutor(script)).run_id
    suite, train = tmp_path / "longtail", tmp_path / "train"
    args = ["choose", str(pool), "--store", str(store), "--out", str(suite), "--train-out",
            str(train), "--tasks", "3", "--per-family", "1", "--min-families", "2"]  # fmt: skip
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    chosen = json.loads((suite / "suite.json").read_text())
    # weakest first, one task a family: mobilebert's weaker task, t5, then clip (Inductor 1.4x)
    assert [t["name"] for t in chosen["tasks"]] == [names[0], names[2], names[3]]
    record = chosen["curation"]
    assert record["run"] == run and record["pool_measured"] == 5
    assert record["pool_inductor_not_faster"] == 3 and record["suite_inductor_not_faster"] == 2
    assert record["inductor_gmean"][names[0]] == 0.5
    # training: only what shares no family with the suite (mobilebert's other task does)
    assert [t["name"] for t in json.loads((train / "suite.json").read_text())["tasks"]] == [
        names[4]
    ]
    for folder in (suite / names[0], train / names[4]):
        assert (folder / "graph_list.txt").is_file()


def test_merge_refuses_a_folder_without_its_tasks(tmp_path):
    broken = exported(tmp_path, "broken", ["fusible_add_mul_93e8ce5e"])
    shutil.rmtree(broken / "fusible_add_mul_93e8ce5e")
    try:
        curate_pool.merge(tmp_path / "pool", [broken])
    except SystemExit as exc:
        assert "1 task folder(s) missing" in str(exc)
    else:
        raise AssertionError("a pool with a missing task folder was merged")
