"""The agent's prompts: Jinja2 templates under ``prompts/`` rendered from a task.

``system.j2`` holds the pass contract, the scoring and one worked example; ``task.j2`` states
the task (each distinct model.py once, with every graph's input shapes and dtypes); ``graph.j2``
is one graph in detail (``view_task``). Paths in prompts are relative to the task folder, so a
trajectory replays the same wherever the task lives.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from passnet.dataset.task import Task
from passnet.graph.sample import TensorMeta, load_sample

PROMPTS = Path(__file__).parent / "prompts"
WORKED_EXAMPLE = PROMPTS / "worked_example.txt"
MAX_CODES = 4
"""Distinct model.py texts shown in full in the statement; further graphs are listed."""


@dataclass
class InputInfo:
    name: str
    kind: str  # "tensor [1, 12, 128] float16" or "int scalar = 3"
    stats: str = ""
    shape: list[int] | None = None  # None for a scalar
    dtype: str = ""
    stride: list[int] | None = None  # a recorded non-contiguous layout (graph.meta.sample_stride)

    def short(self, graph_dtype: str) -> str:
        """``[1, 12, 128]``, ``[8] int64``, ``[4, 8] stride [1, 4]`` or ``int = 3``."""
        if self.shape is None:
            return self.kind.replace(" scalar", "")
        text = f"{self.shape}" + ("" if self.dtype == graph_dtype else f" {self.dtype}")
        return text + (f" stride {self.stride}" if self.stride else "")


@dataclass
class GraphInfo:
    graph: str
    dtype: str
    code: str
    inputs: list[InputInfo] = field(default_factory=list)


@dataclass
class GraphGroup:
    code: str
    graphs: list[GraphInfo]


def _stats(meta: TensorMeta) -> str:
    parts = []
    for key in ("mean", "std", "min_val", "max_val"):
        value = getattr(meta, key)
        if value is not None:
            parts.append(f"{key.removesuffix('_val')} {value:.4g}")
    if meta.data is not None:
        parts.append(f"values {meta.data}")
    return ", ".join(parts)


def graph_info(task: Task, graph: str) -> GraphInfo:
    variant = next(v for v in task.variants if v.graph == graph)
    sample = load_sample(variant.path)
    inputs = []
    for name, meta in zip(sample.arg_names, sample.metas, strict=True):
        scalar = sample.scalar_type(name)
        dtype = meta.dtype.removeprefix("torch.")
        if scalar is not None:
            value = meta.data[0] if meta.data else "?"
            kind = f"{scalar.__name__} scalar = {value}"
        else:
            kind = f"tensor {list(meta.shape)} {dtype}"
            kind += f" stride {meta.stride} (not contiguous)" if meta.stride else ""
        shape = None if scalar is not None else list(meta.shape)
        inputs.append(InputInfo(name, kind, _stats(meta), shape, dtype, meta.stride))
    return GraphInfo(graph=graph, dtype=variant.dtype, code=sample.code.strip(), inputs=inputs)


@functools.lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPTS)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(template: str, **context: Any) -> str:
    return _env().get_template(template).render(**context).strip() + "\n"


def timing_note(device: str) -> str:
    if device.startswith("cpu"):
        return (
            "this evaluation runs on CPU with the Triton interpreter: kernels are emulated, so "
            "their times mean nothing and a correct graph counts as speedup 1.0; correctness "
            "(match and allclose) is what you can improve here."
        )
    return ""


def system_prompt(max_steps: int, b: float, device: str, shell: bool = False) -> str:
    """The pass contract, scoring, tools (or, for ``shell``, how to submit) and the example."""
    return render(
        "system.j2",
        max_steps=max_steps,
        b=b,
        shell=shell,
        timing_note=timing_note(device),
        worked_example=WORKED_EXAMPLE.read_text(encoding="utf-8").strip(),
    )


def task_statement(task: Task, files: list[str] | None = None) -> str:
    """The problem statement: each distinct model.py once (the first MAX_CODES of them),
    argument shapes per graph."""
    groups: dict[str, GraphGroup] = {}
    for variant in task.variants:
        info = graph_info(task, variant.graph)
        groups.setdefault(info.code, GraphGroup(code=info.code, graphs=[])).graphs.append(info)
    dtypes = sorted({v.dtype for v in task.variants})
    shown = list(groups.values())[:MAX_CODES]
    others = [g for group in list(groups.values())[MAX_CODES:] for g in group.graphs]
    return render(
        "task.j2",
        name=task.name,
        graphs=task.variants,
        dtypes=dtypes,
        groups=shown,
        others=others,
        files=files or [],
    )


def graph_detail(task: Task, graph: str) -> str:
    return render("graph.j2", g=graph_info(task, graph))


def initial_messages(
    task: Task, max_steps: int, b: float, device: str, files: list[str] | None = None
) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": system_prompt(max_steps, b, device)},
        {"role": "user", "content": task_statement(task, files)},
    ]


def prompt_hash() -> str:
    """Hash of the templates and the worked example, recorded with each run."""
    h = hashlib.sha256()
    for path in sorted(PROMPTS.iterdir()):
        if path.is_file():
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]
