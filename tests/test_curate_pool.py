"""scripts/curate_pool.py: pools merged without duplicates, the suite chosen from a real store
(scripted results: exact speedups), the training split sharing no family with it, and the
runs of a pool measured in pieces merged per variant (the newest run's result counting)."""

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
    assert [r["run_id"] for r in record["runs"]] == [run] and record["runs"][0]["used"] == 30
    assert record["pool_measured"] == 5 and record["pool_variants_measured"] == 30
    assert record["pool_inductor_not_faster"] == 3 and record["suite_inductor_not_faster"] == 2
    assert record["inductor_gmean"][names[0]] == 0.5
    counts = [len(list((pool / names[i] / "graphs").glob("*/*"))) for i in (0, 2, 3)]
    pooled = (0.5 ** counts[0] * 0.8 ** counts[1] * 1.4 ** counts[2]) ** (1 / sum(counts))
    assert record["suite_inductor_gmean"] == round(pooled, 4)
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


# pieces of the pool's measurement: Inductor's speedup by dtype on top of the task's
BY_DTYPE = {"float32": 1.0, "float16": 0.9, "bfloat16": 1.1}


def scripted(speedups: dict[str, float], by_dtype: dict[str, float] | None = None):
    """Eager 1.0; Inductor ``speedups[task]`` times ``by_dtype[dtype]``, every variant."""

    def script(item):
        v = item.variant.variant
        task = v.path.parents[2].name  # TASK/graphs/DTYPE/GRAPH
        if item.candidate.spec.kind != "inductor":
            return result(item, speedup=1.0)
        return result(item, speedup=speedups[task] * (by_dtype or {}).get(v.dtype, 1.0))

    return script


def measure(store: Path, pool: Path, script, *dtypes: str) -> str:
    """One bench run of eager and Inductor on the pool's variants of ``dtypes`` (all when
    none); no baseline cache, so a variant measured again gets the script's new result."""
    with Store(store) as st:
        cfg = BenchConfig(suite=pool, candidates=("eager", "inductor"), parameters=PARAMS,
                          dtypes=dtypes, use_cache=False)  # fmt: skip
        return bench(cfg, st, ScriptedExecutor(script)).run_id


def choose(pool: Path, store: Path, out: Path, *extra: str) -> dict:
    """``choose`` in this process (the eager-work check taken as passed: the first test runs
    it); the suite's ``suite.json``."""
    args = ["choose", str(pool), "--store", str(store), "--out", str(out), "--tasks", "3",
            "--per-family", "1", "--min-families", "2", "--jobs", "1", *extra]  # fmt: skip
    assert curate_pool.main(args) == 0
    return json.loads((out / "suite.json").read_text())


def test_runs_of_disjoint_dtypes_merge_into_the_choice_of_one_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("passnet.dataset.curation.works", lambda graph, device="cpu": True)
    pool = exported(tmp_path, "pool", list(TASKS))
    script = scripted(TASKS, BY_DTYPE)
    measure(tmp_path / "one.db", pool, script)
    one = choose(pool, tmp_path / "one.db", tmp_path / "one")
    a = measure(tmp_path / "split.db", pool, script, "float32")
    b = measure(tmp_path / "split.db", pool, script, "float16", "bfloat16")
    capsys.readouterr()
    split = choose(pool, tmp_path / "split.db", tmp_path / "split")
    said = capsys.readouterr().out
    assert f"run {a} (" in said and "): 10 pool variants measured of 10 planned" in said
    assert f"run {b} (" in said and "): 20 pool variants measured of 20 planned" in said
    assert "merged: 30 of 30 pool variants (0 measured in more than one run" in said
    assert split["tasks"] == one["tasks"]
    assert split["tasks"][0]["name"] == "fusible_add_mul_93e8ce5e"
    record = split["curation"]
    for key in ("inductor_gmean", "pool_measured", "pool_inductor_not_faster", "families"):
        assert record[key] == one["curation"][key], key
    assert record["inductor_gmean"]["fusible_add_mul_93e8ce5e"] == round(0.5 * 0.99 ** (1 / 3), 4)
    assert [(r["run_id"], r["measured"], r["used"], r["device"]) for r in record["runs"]] == [
        (a, 10, 10, "cpu"),
        (b, 20, 20, "cpu"),
    ]
    assert record["pool_variants"] == record["pool_variants_measured"] == 30
    assert record["pool_measured_in_part"] == 0


def test_a_variant_measured_twice_counts_once_with_the_newer_result(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("passnet.dataset.curation.works", lambda graph, device="cpu": True)
    pool = exported(tmp_path, "pool", list(TASKS))
    store = tmp_path / "s.db"
    old = measure(store, pool, scripted(TASKS))
    # measured again in float32: resnet's Inductor now loses there (0.1x)
    new = measure(store, pool, scripted(TASKS | {"fusible_batch_norm_relu_9cfe87c2": 0.1}),
                  "float32")  # fmt: skip
    capsys.readouterr()
    chosen = choose(pool, store, tmp_path / "suite")
    assert "merged: 30 of 30 pool variants (10 measured in more than one run" in (
        capsys.readouterr().out
    )
    record = chosen["curation"]
    assert [(r["run_id"], r["measured"], r["used"]) for r in record["runs"]] == [
        (old, 30, 20),
        (new, 10, 10),
    ]
    # resnet: 2.0x on its four other variants, 0.1x on the two measured again; six in all
    resnet = "fusible_batch_norm_relu_9cfe87c2"
    assert record["inductor_gmean"][resnet] == round((2.0**4 * 0.1**2) ** (1 / 6), 4)
    assert [t["name"] for t in chosen["tasks"]] == [
        "fusible_add_mul_93e8ce5e",
        resnet,
        "fusible_embedding_arange_6a42a969",
    ]


def test_run_given_twice_picks_exactly_those_runs(tmp_path, monkeypatch):
    monkeypatch.setattr("passnet.dataset.curation.works", lambda graph, device="cpu": True)
    pool = exported(tmp_path, "pool", list(TASKS))
    store = tmp_path / "s.db"
    a = measure(store, pool, scripted(TASKS), "float32")
    b = measure(store, pool, scripted(TASKS), "float16", "bfloat16")
    c = measure(store, pool, scripted(dict.fromkeys(TASKS, 3.0)))  # newest, every variant
    every = choose(pool, store, tmp_path / "every")["curation"]
    assert [(r["run_id"], r["used"]) for r in every["runs"]] == [(a, 0), (b, 0), (c, 30)]
    assert set(every["inductor_gmean"].values()) == {3.0}
    # given in any order, they count in the store's (oldest first: the newer wins)
    picked = choose(pool, store, tmp_path / "picked", "--run", b, "--run", a)
    record = picked["curation"]
    assert [(r["run_id"], r["used"]) for r in record["runs"]] == [(a, 10), (b, 20)]
    assert record["inductor_gmean"]["fusible_add_mul_93e8ce5e"] == 0.5
    assert [t["name"] for t in picked["tasks"]] == [
        "fusible_add_mul_93e8ce5e",
        "fusible_embedding_arange_6a42a969",
        "fusible_layer_norm_58b3a67a",
    ]


def test_complete_chooses_from_the_shortlist_measured_in_every_dtype(tmp_path, monkeypatch, capsys):
    """Half precision measured on a shortlist (an exported folder of some pool tasks, a run of
    its own): ``--complete`` chooses only tasks with every variant measured; the training
    split still takes the pool's other tasks."""
    monkeypatch.setattr("passnet.dataset.curation.works", lambda graph, device="cpu": True)
    pool = exported(tmp_path, "pool", list(TASKS))
    store = tmp_path / "s.db"
    measure(store, pool, scripted(TASKS), "float32")
    short = ["fusible_mul_add_445849cd", "fusible_layer_norm_58b3a67a",
             "fusible_batch_norm_relu_9cfe87c2"]  # fmt: skip
    shortlist = exported(tmp_path, "shortlist", short)
    measure(store, shortlist, scripted(TASKS), "float16", "bfloat16")
    partial = choose(pool, store, tmp_path / "partial")  # float32 alone decides the weakest
    assert partial["tasks"][0]["name"] == "fusible_add_mul_93e8ce5e"
    capsys.readouterr()
    done = choose(pool, store, tmp_path / "done", "--complete", "--train-out",
                  str(tmp_path / "train"), "--min-families", "1")  # fmt: skip
    assert (
        "--complete: 3 of 5 measured tasks have every variant measured" in capsys.readouterr().out
    )
    assert [t["name"] for t in done["tasks"]] == short
    assert done["curation"]["complete_only"] and done["curation"]["complete_tasks"] == 3
    train = json.loads((tmp_path / "train" / "suite.json").read_text())
    assert [t["name"] for t in train["tasks"]] == ["fusible_embedding_arange_6a42a969"]


def test_runs_of_two_versions_of_the_pool_are_refused(tmp_path):
    task = "fusible_add_mul_93e8ce5e"
    pool = exported(tmp_path, "pool", [task])
    store = tmp_path / "s.db"
    old = measure(store, pool, scripted(TASKS), "float32")
    model = next((pool / task / "graphs" / "float32").iterdir()) / "model.py"
    model.write_text(model.read_text() + "\n# changed\n")  # the pool changed in between
    new = measure(store, pool, scripted(TASKS), "float32")

    def refusal(*extra: str) -> str:
        try:
            choose(pool, store, tmp_path / "suite", *extra)
        except SystemExit as exc:
            return str(exc)
        raise AssertionError("runs of another pool were merged")

    assert f"runs {old} and {new} disagree on the pool" in refusal()
    assert f"run {old} measured a version of {task} graphs/float32/" in refusal("--run", old)
    assert "does not hold" in refusal("--run", old)
