"""Task grouping, leak-free splits and long-tail curation on a synthetic catalog (no torch work)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passnet.dataset import tasks as T
from passnet.dataset.catalog import Catalog, CatalogError

FAMILIES = ["bert", "gpt2", "llama", "vit", "t5", "whisper"]


def _catalog(root: Path) -> Catalog:
    """Six families; pattern p0 occurs in every family, p1..p5 in one family each."""
    cat = Catalog(root)
    for i, fam in enumerate(FAMILIES):
        model = f"m/{fam}"
        cat.upsert(
            "models",
            {"name": model, "library": "x", "family": fam, "domain": "nlp", "origin": "zoo"},
        )
        cat.upsert("captures", {"model": model, "shape": "b1", "status": "ok", "graph": f"g{i}"})
        for pattern in ("p0", f"p{i + 1}"):
            sub = f"s-{pattern}-{fam}"
            cat.upsert("subgraphs", {"hash": sub, "kind": "fusible", "model": model, "family": fam,
                                     "parent": f"g{i}", "start": 0, "end": 2, "kernels": 1,
                                     "pattern": pattern, "ops": json.dumps(["add", "layer_norm"])})  # fmt: skip
            cat.upsert(
                "occurrences",
                {"hash": sub, "kind": "fusible", "parent": f"g{i}", "start": 0, "end": 2},
            )
            for bucket in (1, 3):
                for dtype in ("float32", "float16", "bfloat16"):
                    cat.upsert("variants", {"subgraph": sub, "graph": f"g{i}-{bucket}", "dtype": dtype,
                                            "hash": f"{sub}-{bucket}-{dtype}", "bucket": bucket,
                                            "status": "ok"})  # fmt: skip
    return cat


def test_grouping_by_pattern_with_cell_cap(tmp_path: Path) -> None:
    with _catalog(tmp_path) as cat:
        specs = {t.pattern: t for t in T.group_tasks(cat, ("fusible",), max_per_cell=2)}
        assert len(specs) == 7
        shared = specs["p0"]
        assert shared.families == sorted(FAMILIES)
        cells = [(v["bucket"], v["dtype"]) for v in shared.variants]
        assert len(cells) == 12 and all(cells.count(c) == 2 for c in set(cells))
        # two variants of one cell come from two families
        first = [
            v["family"] for v in shared.variants if (v["bucket"], v["dtype"]) == (1, "float32")
        ]
        assert len(set(first)) == 2
        assert shared.name.startswith("fusible_add_layer_norm_p0")
        T.save_tasks(cat, list(specs.values()))
        assert cat.scalar("SELECT COUNT(*) FROM tasks") == 7


@pytest.mark.parametrize("scheme", T.SCHEMES)
def test_splits_do_not_leak(tmp_path: Path, scheme: str) -> None:
    with _catalog(tmp_path) as cat:
        T.save_tasks(cat, T.group_tasks(cat, ("fusible",), max_per_cell=6))
        sides = T.split_tasks(cat, eval_fraction=0.4, by=scheme, seed=3)
        assert set(sides.values()) == {"train", "eval"}
        T.check_no_leakage(cat, scheme, seed=3)
        if scheme == "family":  # the shared task keeps only its own side's families
            kept = {
                v["family"] for v in T.split_variants(cat, "fusible_add_layer_norm_p0", "family", 3)
            }
            eval_fams = set(json.loads(cat.get_meta("family_split:3")))
            assert kept and (kept <= eval_fams or not kept & eval_fams)
        again = T.split_tasks(cat, eval_fraction=0.4, by=scheme, seed=3)
        assert again == sides  # deterministic


@pytest.mark.parametrize("fraction", [0.2, 0.5])
def test_task_split_hits_the_requested_share(tmp_path: Path, fraction: float) -> None:
    """7 tasks: 20% is 1 eval task and 50% is 4 (rounded), for every seed; a coin per task
    once gave 6 tasks and no eval task at all."""
    with _catalog(tmp_path) as cat:
        T.save_tasks(cat, T.group_tasks(cat, ("fusible",), max_per_cell=6))
        n = cat.scalar("SELECT COUNT(*) FROM tasks")
        for seed in range(8):
            sides = T.split_tasks(cat, eval_fraction=fraction, by="task", seed=seed)
            assert sum(v == "eval" for v in sides.values()) == max(1, round(fraction * n))
        assert set(T.split_tasks(cat, eval_fraction=0.01, by="family").values()) == {
            "train",
            "eval",
        }


def test_leak_is_detected(tmp_path: Path) -> None:
    with _catalog(tmp_path) as cat:
        T.save_tasks(cat, T.group_tasks(cat, ("fusible",)))
        names = [r["name"] for r in cat.rows("SELECT name FROM tasks")]
        row = cat.one("SELECT * FROM task_variants WHERE task = ?", (names[0],))
        cat.upsert("task_variants", {**row, "task": names[1]})  # the same graph in two tasks
        cat.upsert("splits", {"task": names[0], "scheme": "task", "split": "eval"})
        cat.upsert("splits", {"task": names[1], "scheme": "task", "split": "train"})
        with pytest.raises(AssertionError, match="leaks"):
            T.check_no_leakage(cat, "task")
        sides = T.split_tasks(cat, eval_fraction=0.5, by="task")  # union-find keeps them together
        assert sides[names[0]] == sides[names[1]]


def test_assign_eval_makes_a_suite_the_eval_split(tmp_path: Path) -> None:
    """A suite chosen from the catalog becomes its eval split, with any task sharing a graph
    with it; every other task is train, and nothing leaks."""
    with _catalog(tmp_path) as cat:
        T.save_tasks(cat, T.group_tasks(cat, ("fusible",)))
        names = sorted(r["name"] for r in cat.rows("SELECT name FROM tasks"))
        row = cat.one("SELECT * FROM task_variants WHERE task = ?", (names[1],))
        cat.upsert("task_variants", {**row, "task": names[2]})  # names[2] shares a graph
        sides = T.assign_eval(cat, [names[0], names[1]])
        assert {t for t, s in sides.items() if s == "eval"} == set(names[:3])
        assert all(sides[t] == "train" for t in names[3:])
        T.check_no_leakage(cat, "task")
        stored = {r["task"]: r["split"] for r in cat.rows(
            "SELECT task, split FROM splits WHERE scheme = 'task'")}  # fmt: skip
        assert stored == sides
        with pytest.raises(ValueError, match="unknown task"):
            T.assign_eval(cat, ["fusible_nope"])


def test_curation_keeps_weak_tasks_and_caches_measurements(tmp_path: Path) -> None:
    calls: list[str] = []

    def fake(path: str, device: str) -> dict:
        calls.append(path)
        speed = 2.0 if "p1" in path else (0.5 if "p2" in path else 0.9)
        status = "compile_error" if "p3" in path else "ok"
        return {
            "status": status,
            "eager_us": 10.0,
            "candidate_us": 10.0 / speed,
            "speedup": speed,
            "error": None,
        }

    with _catalog(tmp_path) as cat:
        T.save_tasks(cat, T.group_tasks(cat, ("fusible",)))
        ranked = T.curate(cat, device="cpu", top=3, threshold=1.0, per_task=2, measure=fake)
        assert len(calls) == 14
        bench = {
            r["task"]
            for r in cat.rows(
                "SELECT task FROM splits WHERE scheme = 'longtail' AND split = 'bench'"
            )
        }
        assert len(bench) == 3
        assert any("p3" in t for t in bench) and any("p2" in t for t in bench)  # failure, 0.5x
        assert not any("p1" in t for t in bench)  # Inductor 2x faster: not long-tail
        assert len(ranked) == 7
        T.curate(cat, device="cpu", top=3, measure=fake)
        assert len(calls) == 14  # measured once, cached in the catalog


def test_catalog_errors(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="not a dataset root"):
        Catalog(tmp_path / "none", create=False)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / Catalog.FILE).write_text("not sqlite at all" * 100)
    with pytest.raises(CatalogError, match="not a readable catalog"):
        Catalog(tmp_path / "bad")
