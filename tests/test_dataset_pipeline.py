"""The whole pipeline on tiny models: build, import, decompose, tasks, export, resume, CLI."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import torch
from conftest import MLP_IRIS
from conftest import fixture_path as fx
from typer.testing import CliRunner

from passnet.cli import app
from passnet.dataset import pipeline, zoo
from passnet.dataset import tasks as T
from passnet.dataset.catalog import Catalog
from passnet.dataset.export import export_folders, export_parquet, select_tasks, stats
from passnet.dataset.jobs import DecomposeConfig
from passnet.dataset.task import load_task
from passnet.graph.sample import load_sample, run_sample


class _Net(torch.nn.Module):
    """linear -> add + layer_norm + gelu * sigmoid (one fused kernel) -> linear."""

    def __init__(self, dim: int = 32) -> None:
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(dim, dim), torch.nn.Linear(dim, dim)
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(self.fc1(x) + x)
        return self.fc2(torch.nn.functional.gelu(h) * torch.sigmoid(h))


class _RmsNet(torch.nn.Module):
    def __init__(self, dim: int = 32) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(dim, dim)
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight
        return self.fc(torch.nn.functional.gelu(h) * torch.sigmoid(h))  # typical: shared with _Net


SHAPES = (zoo.Shape(1, 8), zoo.Shape(4, 64))  # 256 vs 8192 activations: buckets 2 and 3


def _entry(name: str, family: str, cls: type) -> zoo.ZooModel:
    def build(shape: zoo.Shape) -> torch.nn.Module:
        torch.manual_seed(0)
        return cls().eval()

    def inputs(model: torch.nn.Module, shape: zoo.Shape) -> tuple:
        return (torch.randn(shape.batch, shape.size, 32),)

    return zoo.ZooModel(name, "torch", family, "nlp", build, inputs, SHAPES)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    models = [_entry("test/net-a", "net", _Net), _entry("test/net-b", "net", _Net),
              _entry("test/rms", "rms", _RmsNet)]  # fmt: skip
    patch = pytest.MonkeyPatch()
    patch.setattr(zoo, "ZOO", {**zoo.ZOO, **{m.name: m for m in models}})
    root = tmp_path_factory.mktemp("dataset")
    report = pipeline.build(root, models, workers=1)
    assert report.by_status == {"ok": 6}, report.failures
    assert report.extra["graphs_per_hour"] > 0 and report.extra["peak_memory"]["parent_mb"] > 0
    broken = tmp_path_factory.mktemp("broken") / "bad"
    broken.mkdir()
    (broken / "model.py").write_text("import torch\nclass GraphModule(torch.nn.Module):\n"
                                     "    def forward(self, x):\n        return x.nonexistent()\n")  # fmt: skip
    (broken / "weight_meta.py").write_text(
        'class Program_weight_tensor_meta_x:\n    name = "x"\n    shape = [2]\n'
        '    dtype = "torch.float32"\n    device = "cpu"\n    mean = 0.0\n    std = 1.0\n    data = None\n'
    )
    report = pipeline.import_graphs(root, [fx(MLP_IRIS), broken.parent])
    assert report.by_status == {"ok": 1, "failed": 1}
    assert "fails validation" in report.failures[0]
    cfg = DecomposeConfig(max_compiles=10, single_limit=4, typical_limit=2)
    report = pipeline.decompose(root, cfg, workers=1)
    assert report.by_status == {"ok": 6}, report.failures  # 3 base graphs x (main, typical)
    yield root
    patch.undo()


def test_import_through_a_symlinked_folder(tmp_path: Path) -> None:
    """A folder reached through a link (a mounted or linked dataset) imports like the real one."""
    link = tmp_path / "linked"
    link.symlink_to(fx(MLP_IRIS).parent, target_is_directory=True)
    report = pipeline.import_graphs(tmp_path / "ds", [link])
    assert report.by_status.get("ok", 0) >= 1 and not report.failures, report.failures


def test_a_rerun_of_import_refreshes_families_and_tasks_use_them(
    tmp_path: Path, dataset: Path
) -> None:
    """Families are metadata: a rerun of import rewrites them for samples already imported
    (no revalidation), and tasks read each model's family as it is now, not the copy a
    subgraph took when it was cut."""
    root = tmp_path / "ds"
    pipeline.import_graphs(root, [fx(MLP_IRIS)])
    with Catalog(root) as cat:
        (name,) = [r["name"] for r in cat.rows("SELECT name FROM models")]
        right = cat.one("SELECT family FROM models WHERE name = ?", (name,))["family"]
        cat.db.execute("UPDATE models SET family = 'wrong' WHERE name = ?", (name,))
    again = pipeline.import_graphs(root, [fx(MLP_IRIS)])
    assert again.skipped_done == 1
    with Catalog(root) as cat:
        assert cat.one("SELECT family FROM models WHERE name = ?", (name,))["family"] == right
    with Catalog(dataset) as cat:
        cat.db.execute("UPDATE models SET family = 'renamed' WHERE name = 'test/net-a'")
        try:
            families = {v["family"] for t in T.group_tasks(cat, ("fusible",)) for v in t.variants
                        if v["model"] == "test/net-a"}  # fmt: skip
        finally:
            cat.db.execute("UPDATE models SET family = 'net' WHERE name = 'test/net-a'")
    assert families == {"renamed"}


def test_a_sample_our_tracer_cannot_trace_is_a_tracer_limit_not_invalid(tmp_path: Path) -> None:
    """A sample that runs eagerly but that PassNet's FX tracer cannot trace (here: control flow
    on a value; GAE and bloom failed on aten.sym_size.int) is not an invalid sample: its
    rejection says the tracer is at fault and is counted in its own class."""
    from passnet.dataset.export import reason_class, stats
    from passnet.graph.meta import TensorMeta
    from passnet.graph.sample import write_sample

    code = (
        "import torch\n\n\nclass GraphModule(torch.nn.Module):\n"
        "    def forward(self, x: torch.Tensor):\n"
        "        if x.sum() > -1e9:\n            return (x * 2,)\n        return (x,)\n"
    )
    meta = TensorMeta(name="x", shape=[4], dtype="torch.float32", mean=0.0, std=1.0)
    write_sample(tmp_path / "src" / "branchy", code, [meta], {"model_name": "branchy"})
    report = pipeline.import_graphs(tmp_path / "ds", [tmp_path / "src"])
    assert report.by_status == {"failed": 1}, report.failures
    (reason,) = report.failures
    assert "tracer limit (the sample runs eagerly" in reason and "fails validation" not in reason
    assert "torch.fx symbolic tracing failed" in reason
    assert reason_class(reason.split(": ", 1)[1]).startswith("tracer limit")
    with Catalog(tmp_path / "ds", create=False) as cat:
        assert list(stats(cat)["rejections_by_class"]) == ["tracer limit (TraceError)"]


def test_dedup_and_subgraph_counts(dataset: Path) -> None:
    with Catalog(dataset) as cat:
        s = stats(cat)
    # net-a and net-b are the same graph from two "libraries": 7 instances, 5 unique graphs
    assert s["graphs"] == {"instances": 7, "unique": 5, "dedup_ratio": 1.4}
    assert s["subgraphs"]["fusible"]["unique"] >= 2
    assert s["subgraphs"]["single"]["unique"] >= 4 and "typical" in s["subgraphs"]
    assert s["variants"]["ok:float16"] > 0 and s["variants"]["ok:bfloat16"] > 0
    assert {"2", "3"} <= set(s["variant_buckets"])


def test_tasks_split_and_export(dataset: Path, tmp_path: Path) -> None:
    with Catalog(dataset) as cat:
        specs = T.group_tasks(cat, ("fusible", "single"), max_per_cell=1)
        T.save_tasks(cat, specs)
        for scheme in T.SCHEMES:
            T.split_tasks(cat, eval_fraction=0.5, by=scheme)
            T.check_no_leakage(cat, scheme)
        fusible = [t for t in specs if t.kind == "fusible"]
        full = [t for t in fusible if len({(v["bucket"], v["dtype"]) for v in t.variants}) == 6]
        assert full, [(t.name, [(v["bucket"], v["dtype"]) for v in t.variants]) for t in fusible]
        rows = select_tasks(cat, kind="fusible")
        out = export_folders(cat, rows, tmp_path / "suite")
        parquet = export_parquet(cat, rows, tmp_path / "tasks.parquet")
    suite = json.loads((out / "suite.json").read_text())
    assert len(suite["tasks"]) == len(fusible)
    for entry in suite["tasks"]:
        task = load_task(out / entry["name"])
        assert (task.pass_dir).is_dir() and len(task.variants) == len(entry["variants"])
        for variant in task.variants:
            sample = load_sample(variant.path)
            assert run_sample(sample)
            assert "@b" in sample.sources["parent"] and len(sample.sources["parent_hash"]) == 64
    import pyarrow.parquet as pq

    table = pq.read_table(parquet)
    assert table.num_rows == sum(len(e["variants"]) for e in suite["tasks"])
    assert "class GraphModule" in table.column("model_py")[0].as_py()


def test_rerun_recomputes_nothing(dataset: Path) -> None:
    with Catalog(dataset) as cat:
        n_samples = cat.scalar("SELECT COUNT(*) FROM samples")
        n_kernels = cat.scalar("SELECT COUNT(*) FROM kernel_cache")
        # an interrupted decomposition: its row is gone, its compiles are cached
        cat.db.execute("DELETE FROM decompositions WHERE stage = 'main' AND graph = "
                       "(SELECT graph FROM captures WHERE model = 'test/rms' ORDER BY shape LIMIT 1)")  # fmt: skip
    models = [zoo.ZOO[n] for n in ("test/net-a", "test/net-b", "test/rms")]
    again = pipeline.build(dataset, models, workers=1)
    assert again.by_status == {} and again.skipped_done == 6
    report = pipeline.decompose(
        dataset, DecomposeConfig(max_compiles=10, single_limit=4, typical_limit=2)
    )
    assert report.by_status == {"ok": 1} and report.skipped_done == 5
    with Catalog(dataset) as cat:
        row = cat.one(
            "SELECT compiles FROM decompositions WHERE compiles IS NOT NULL ORDER BY rowid DESC"
        )
        assert row["compiles"] == 0  # every prefix came from the kernel cache
        assert cat.scalar("SELECT COUNT(*) FROM samples") == n_samples
        assert cat.scalar("SELECT COUNT(*) FROM kernel_cache") == n_kernels


def test_failed_decompositions_stay_failed_until_retried(dataset: Path) -> None:
    """A graph whose decomposition failed is reported again on a rerun (exit 1), not hidden
    among the done ones, and --retry-failed decomposes it again."""
    with Catalog(dataset) as cat:
        graph = cat.scalar("SELECT graph FROM decompositions WHERE stage = 'main' LIMIT 1")
        cat.db.execute("UPDATE decompositions SET status = 'failed', reason = 'TypeError: x' "
                       "WHERE graph = ? AND stage = 'main'", (graph,))  # fmt: skip
    cfg = DecomposeConfig(max_compiles=10, single_limit=4, typical_limit=2)
    again = pipeline.decompose(dataset, cfg)
    assert again.by_status == {}  # nothing decomposed: the failure is reported, not redone
    assert [f for f in again.failures if "failed before: TypeError: x (--retry-failed" in f]
    retried = pipeline.decompose(dataset, cfg, retry_failed=True)
    assert retried.by_status == {"ok": 1} and not retried.failures
    with Catalog(dataset) as cat:
        assert cat.scalar("SELECT status FROM decompositions WHERE graph = ? AND stage = "
                          "'main'", (graph,)) == "ok"  # fmt: skip


def test_run_jobs_in_parallel() -> None:
    jobs = [("a/x",), ("b/y",), ("c/z",)]
    results = dict(pipeline.run_jobs(os.path.basename, jobs, workers=2, label="test"))
    assert results == {("a/x",): "x", ("b/y",): "y", ("c/z",): "z"}


def test_cli_errors_are_clear(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["dataset", "build", "bertt", "--root", str(tmp_path)])
    assert result.exit_code == 2 and "unknown model 'bertt'" in result.output
    result = runner.invoke(
        app, ["dataset", "import", str(tmp_path / "nope"), "--root", str(tmp_path)]
    )
    assert result.exit_code == 2 and "not a readable folder" in result.output
    bad = tmp_path / "graphs" / "bad"
    bad.mkdir(parents=True)
    (bad / "model.py").write_text("import torch\nclass GraphModule(torch.nn.Module):\n"
                                  "    def forward(self, x):\n        return x.nonexistent()\n")  # fmt: skip
    (bad / "weight_meta.py").write_text(
        'class Program_weight_tensor_meta_x:\n    name = "x"\n    shape = [2]\n    dtype = "torch.float32"\n'
    )
    result = runner.invoke(
        app, ["dataset", "import", str(bad.parent), "--root", str(tmp_path / "ds")]
    )
    assert (
        result.exit_code == 1
        and "fails validation" in result.output
        and "nonexistent" in result.output
    )
    result = runner.invoke(app, ["dataset", "stats", "--root", str(tmp_path / "empty")])
    assert result.exit_code == 2 and "not a dataset root" in result.output
    result = runner.invoke(app, ["dataset", "build", "--list", "--library", "transformers"])
    assert result.exit_code == 0 and "transformers/bert " in result.output
    assert "torchvision" not in result.output


def test_cli_stats_and_export(dataset: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["dataset", "stats", "--root", str(dataset), "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["graphs"]["unique"] == 5
    out = tmp_path / "t.parquet"
    result = runner.invoke(
        app, ["dataset", "export", str(out), "--root", str(dataset), "--kind", "single"]
    )
    assert result.exit_code == 0 and out.is_file(), result.output


def test_import_reruns_retries_empty_folders_and_duplicates(tmp_path: Path) -> None:
    """A re-run keeps saying a folder failed (exit 1) until --retry-failed succeeds; an empty
    path among others is named; a renamed copy of a graph is imported and named a duplicate."""
    runner, root = CliRunner(), tmp_path / "ds"
    graphs = tmp_path / "graphs"
    shutil.copytree(fx(MLP_IRIS), graphs / "iris")
    model = (graphs / "iris" / "model.py").read_text()
    (graphs / "iris" / "model.py").write_text(model.replace("def forward(", "def forward(_x, "))
    (tmp_path / "empty").mkdir()
    args = ["dataset", "import", str(graphs), str(tmp_path / "empty"), "--root", str(root)]
    first = runner.invoke(app, args)
    assert first.exit_code == 1 and "no graph folder" in first.output, first.output
    again = runner.invoke(app, args)
    assert again.exit_code == 1 and "failed before" in again.output, again.output
    (graphs / "iris" / "model.py").write_text(model)  # fixed
    fixed = runner.invoke(app, [*args[:3], "--root", str(root), "--retry-failed"])
    assert fixed.exit_code == 0 and "ok 1" in fixed.output, fixed.output
    twin = graphs.parent / "more" / "renamed_iris"
    shutil.copytree(graphs / "iris", twin)
    names = sorted(set(re.findall(r"\bL_\w+", (twin / "model.py").read_text())), key=len)
    for f in twin.glob("*.py"):  # every input renamed, in model.py and the metas alike
        text = f.read_text()
        for i, name in enumerate(reversed(names)):
            text = re.sub(rf"\b{name}\b", f"renamed_input_{i}", text)
        f.write_text(text)
    dup = runner.invoke(app, ["dataset", "import", str(twin.parent), "--root", str(root)])
    assert dup.exit_code == 0 and "the same graph as" in dup.output, dup.output


@pytest.mark.parametrize(
    "fixture, family",
    [
        ("transformers-auto-model/anton-l_distilhubert-ft-common-language", "hubert"),
        ("transformers-auto-model/google/bert_uncased_L-2_H-128_A-2", "bert"),
        ("transformers-auto-model/squeezebert_squeezebert-uncased", "squeezebert"),
        ("timm/resnet10t.c3_in1k", "resnet"),
        ("torchvision/mobilenet_v3_small", "mobilenet"),
    ],
)
def test_family_comes_from_the_sample_not_the_folder_name(fixture: str, family: str) -> None:
    from passnet.dataset.families import family_of

    assert family_of(fx(fixture), fixture) == family


@pytest.mark.parametrize(
    "name, family",
    [
        ("hf-tiny-model-private/tiny-random-ViTModel", "vit"),  # was "hf"
        ("sshleifer/tiny-distilbert-base-cased", "distilbert"),  # was "sshleifer"
        ("facebook/wav2vec2-base-960h", "wav2vec"),  # was "wav"
        ("yolov8n-cls", "yolo"),
        ("t5-small", "t5"),
    ],
)
def test_family_from_a_model_name(tmp_path: Path, name: str, family: str) -> None:
    from passnet.dataset.families import family_of

    (tmp_path / "graph_net.json").write_text(json.dumps({"model_name": name}))
    assert family_of(tmp_path, "any/folder") == family


@pytest.mark.parametrize(
    "graph_net, folder, family",
    [  # graph_net.json and folder names as in the GraphNet corpus (1dcbd6690)
        ({"model_name": "NO_VALID_MATCH_FOUND", "source": "huggingface_hub"},
         "google_vit_large_patch32_224_in21k", "vit"),  # was "no" (106 corpus samples)
        ({"model_name": "NO_VALID_MATCH_FOUND", "source": "huggingface_hub"},
         "ms-marco-TinyBERT-L4", "bert"),
        ({"model_name": "albert/albert-base-v2", "original_tag": [
            "transformers", "pytorch", "tf", "jax", "rust", "safetensors", "albert",
            "fill-mask", "en"]}, "albert-base-v2", "albert"),  # was "rust"
        ({"model_name": "sentence-transformers/all-MiniLM-L6-v2", "original_tag": [
            "sentence-transformers", "pytorch", "openvino", "bert", "feature-extraction"]},
         "all-MiniLM-L6-v2", "bert"),  # was "sentence-transformers"
        ({"model_name": "Fsoft-AIC/videberta-base", "original_tag": [
            "transformers", "deberta-v2", "bert"]}, "videberta-base", "deberta"),  # "deberta-"
        ({"source": "mmpose"}, "mmpose/pose_alexnet", "alexnet"),  # was "pose"
        ({"source": "nemo"}, "nemo/stt_en_conformer_ctc_small", "conformer"),  # was "stt"
        ({"source": "timm"}, "timm/legacy_senet154.in1k", "senet"),  # was "legacy"
    ],
)  # fmt: skip
def test_family_from_corpus_metadata(
    tmp_path: Path, graph_net: dict, folder: str, family: str
) -> None:
    """Families the first corpus run got wrong: GraphNet's placeholder model name, library and
    language tags before the model type, a versioned model type, collection prefixes."""
    from passnet.dataset.families import family_of

    (tmp_path / "graph_net.json").write_text(json.dumps(graph_net))
    prefix = {"vit": "vit", "bert": "bert"}.get(family, "model")
    (tmp_path / "model.py").write_text(
        "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_, "
        f"L_self_modules_{prefix}_modules_embeddings_parameters_weight_, "
        f"L_self_modules_{prefix}_modules_encoder_modules_layer_parameters_weight_):\n"
    )
    assert family_of(tmp_path, folder) == family


def test_a_linked_sample_is_named_by_its_own_folder(tmp_path: Path) -> None:
    """scripts/corpus_subset.py links samples as LIBRARY__NAME: a timm sample without a model
    name got the family "timm" from the link's name."""
    from passnet.dataset.families import family_of

    own = tmp_path / "timm" / "selecsls60.in1k"
    own.mkdir(parents=True)
    (own / "graph_net.json").write_text(json.dumps({"source": "timm"}))
    link = tmp_path / "pick" / "timm__selecsls60.in1k"
    link.parent.mkdir()
    link.symlink_to(own, target_is_directory=True)
    assert family_of(link, "pick/timm__selecsls60.in1k") == "selecsls"
    assert family_of(own, "timm/selecsls60.in1k") == "selecsls"


def test_rejections_are_counted_by_class(dataset: Path) -> None:
    from passnet.dataset.catalog import Catalog
    from passnet.dataset.export import reason_class, stats

    assert reason_class("fails validation: /a/model.py: forward failed at line 7 (x()): "
                        "ValueError: boom") == "forward failed (ValueError)"  # fmt: skip
    assert reason_class("fails validation: /a/model.py: output 3 is not deterministic") == (
        "output N is not deterministic"
    )
    with Catalog(dataset, create=False) as cat:
        s = stats(cat)
    assert s["rejections_by_class"] == {"forward failed (AttributeError)": 1}, s["failures"]


def test_graph_folders_are_found_through_linked_folders(tmp_path: Path) -> None:
    """A tree of links into a corpus (one link per chosen sample) is searched through."""
    tree = tmp_path / "chosen" / "hf"
    tree.mkdir(parents=True)
    (tree / "iris").symlink_to(fx(MLP_IRIS), target_is_directory=True)
    (tree / "loop").symlink_to(tmp_path / "chosen", target_is_directory=True)  # no endless walk
    assert pipeline.find_graph_folders(tmp_path / "chosen") == [tree / "iris"]


def test_corpus_subset_takes_each_family_once_and_leaves_out_big_samples(tmp_path: Path) -> None:
    """scripts/corpus_subset.py: per (library, family) at most --per-family samples, samples
    above --max-elements left out, links named LIBRARY__NAME."""
    import subprocess
    import sys

    root = tmp_path / "samples"
    for lib, name, shape in [("timm", "resnet18.a1", "[4, 4]"), ("timm", "resnet50.a1", "[4, 4]"),
                             ("timm", "vit_base.b1", "[4, 4]"), ("timm", "vit_huge.b1", "[4000, 4000]"),
                             ("mmseg", "unet", "[2]")]:  # fmt: skip
        d = root / lib / name
        d.mkdir(parents=True)
        (d / "model.py").write_text("")
        (d / "graph_net.json").write_text(json.dumps({"source": lib}))
        (d / "weight_meta.py").write_text(f"class W:\n    name = 'w'\n    shape = {shape}\n")
    out = tmp_path / "pick"
    script = Path(__file__).resolve().parents[1] / "scripts" / "corpus_subset.py"
    subprocess.run([sys.executable, str(script), str(root), str(out), "--per-family", "1",
                    "--max-elements", "1000000"], check=True, capture_output=True, timeout=120)  # fmt: skip
    links = sorted(p.name for p in out.iterdir())
    assert len(links) == 3 and "mmseg__unet" in links and "timm__vit_base.b1" in links
    assert sum(n.startswith("timm__resnet") for n in links) == 1
    assert all((out / n).is_symlink() for n in links)
