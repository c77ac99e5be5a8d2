"""Build the bundled example task examples/tasks/bert_add_layer_norm from a real model.

Captures Hugging Face BERT (built from its config class, random weights, no download) with
Dynamo at two input shapes, cuts every residual ``add -> layer_norm`` pair out of the graph,
and writes float32/float16/bfloat16 variants in the PassNet task layout.

    pip install transformers && python scripts/build_example_task.py
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import torch

from passnet.dataset.capture import capture
from passnet.dataset.task import write_task
from passnet.graph.sample import with_dtype
from passnet.graph.subgraph import cut_subgraph, graph_ops

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "examples" / "tasks" / "bert_add_layer_norm"
SHAPES = [(1, 12), (8, 128)]  # (batch, sequence): shape buckets 0 and 1 of the sequence dim


def bert() -> torch.nn.Module:
    from transformers import BertConfig, BertModel

    cfg = BertConfig(
        vocab_size=1000,
        hidden_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=512,
        max_position_embeddings=256,
    )
    torch.manual_seed(0)
    return BertModel(cfg).eval()


def main() -> None:
    model = bert()
    work = Path(tempfile.mkdtemp(prefix="passnet-example-"))
    variants: list[Path] = []
    for batch, seq in SHAPES:
        ids = torch.randint(0, 1000, (batch, seq))
        full = capture(
            model,
            (ids,),
            work / "transformers" / f"bert-tiny-{batch}x{seq}",
            f"bert-tiny-{batch}x{seq}",
            source="transformers.BertModel(config)",
        )
        ops = graph_ops(full)
        # the second residual add -> layer_norm of the first encoder layer
        pairs = [i for i in range(len(ops) - 1) if ops[i] == "add" and "layer_norm" in ops[i + 1]]
        start = pairs[1]
        cut = cut_subgraph(full, start, start + 2, work / f"cut_{batch}x{seq}")
        variants.append(cut.path)
        for dtype in ("float16", "bfloat16"):
            variants.append(with_dtype(cut, dtype, work / f"cut_{batch}x{seq}_{dtype}").path)
    if OUT.exists():
        shutil.rmtree(OUT)
    task = write_task(OUT, variants, name="bert_add_layer_norm")
    print(f"wrote {task.path} with {len(task.variants)} variants")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
