"""PassNet task folders: writing, reading back, and the other folder shapes load_task accepts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import BERT, MLP_IRIS, SQUEEZEBERT
from conftest import fixture_path as fx

from passnet.dataset.task import TaskError, load_task, write_task
from passnet.graph.sample import graph_hash, load_sample, with_dtype


def test_write_then_load_round_trip(tmp_path: Path) -> None:
    half = with_dtype(load_sample(fx(MLP_IRIS)), "float16", tmp_path / "mlp_half").path
    samples = [fx(MLP_IRIS), half, fx(SQUEEZEBERT)]
    task = write_task(tmp_path / "task", samples, name="linear_relu")
    assert task.name == "linear_relu" and task.path == (tmp_path / "task").resolve()
    assert [v.graph for v in task.variants] == [
        "graphs/float32/0_sadhaklal_mlp-iris",
        "graphs/float16/1_mlp_half",
        "graphs/float32/2_squeezebert_squeezebert-uncased",
    ]
    assert [v.dtype for v in task.variants] == ["float32", "float16", "float32"]
    assert all(v.path.is_absolute() and (v.path / "model.py").is_file() for v in task.variants)
    assert task.pass_dir.is_dir() and not any(task.pass_dir.iterdir())
    uids = (task.path / "sample_uids.txt").read_text().split()
    assert uids[0] == (fx(MLP_IRIS) / "graph_hash.txt").read_text().strip()
    assert uids[1] == graph_hash((half / "model.py").read_text())
    copied = task.variants[0].path
    assert {p.name for p in copied.iterdir()} == {p.name for p in fx(MLP_IRIS).iterdir()}
    again = load_task(task.path)
    assert again == task


def test_graph_list_skips_blank_lines_and_comments(tmp_path: Path) -> None:
    task = write_task(tmp_path / "t", [fx(MLP_IRIS)])
    listing = task.path / "graph_list.txt"
    listing.write_text("# graphs of this task\n\n" + listing.read_text() + "\n   \n")
    loaded = load_task(task.path)
    assert loaded.name == "t" and len(loaded.variants) == 1


def test_graph_list_line_that_points_nowhere(tmp_path: Path) -> None:
    task = write_task(tmp_path / "t", [fx(MLP_IRIS)])
    listing = task.path / "graph_list.txt"
    listing.write_text(listing.read_text() + "graphs/float32/9_missing\n")
    with pytest.raises(TaskError, match=r"graph_list\.txt, line 2: 'graphs/float32/9_missing'"):
        load_task(task.path)


def test_graph_list_line_with_a_broken_sample(tmp_path: Path) -> None:
    task = write_task(tmp_path / "t", [fx(MLP_IRIS)])
    (task.variants[0].path / "weight_meta.py").write_text("class X(:\n")
    with pytest.raises(TaskError, match=r"line 1: .*not a readable sample: .*weight_meta\.py"):
        load_task(task.path)


def test_single_graph_folder_is_a_one_variant_task() -> None:
    task = load_task(fx(BERT))
    assert [v.graph for v in task.variants] == ["."]
    assert task.variants[0].path == fx(BERT).resolve() and task.variants[0].dtype == "float32"
    assert task.name == "bert_uncased_L-2_H-128_A-2"
    assert task.pass_dir == fx(BERT).resolve() / "pass_dir"


def test_any_folder_collects_graph_folders_at_any_depth(tmp_path: Path) -> None:
    shutil.copytree(fx(MLP_IRIS), tmp_path / "b" / "deep" / "mlp")
    shutil.copytree(fx(SQUEEZEBERT), tmp_path / "a")
    (tmp_path / "pass_dir").mkdir()
    task = load_task(tmp_path)
    assert [v.graph for v in task.variants] == ["a", "b/deep/mlp"]


def test_empty_or_missing_folders_are_task_errors(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="no such task folder"):
        load_task(tmp_path / "nope")
    with pytest.raises(TaskError, match="no graph folder below"):
        load_task(tmp_path)
    (tmp_path / "graph_list.txt").write_text("# nothing\n")
    with pytest.raises(TaskError, match="lists no graph"):
        load_task(tmp_path)


def test_write_task_refuses_to_overwrite_and_reports_bad_samples(tmp_path: Path) -> None:
    write_task(tmp_path / "t", [fx(MLP_IRIS)])
    with pytest.raises(TaskError, match="not empty"):
        write_task(tmp_path / "t", [fx(MLP_IRIS)])
    with pytest.raises(TaskError, match="sample 0 .* not readable"):
        write_task(tmp_path / "u", [tmp_path / "missing"])
    with pytest.raises(TaskError, match="at least one graph"):
        write_task(tmp_path / "v", [])


def test_task_name_defaults_to_the_folder(tmp_path: Path) -> None:
    task = write_task(tmp_path / "my_task", [fx(MLP_IRIS)])
    assert task.name == "my_task" and not (task.path / "task.json").exists()
    (task.path / "task.json").write_text(json.dumps({"name": "renamed"}))
    assert load_task(task.path).name == "renamed"
