"""PassNet: LLM-written compiler passes for PyTorch, and PassBench, which scores them.

The small public API (each function imports what it needs when called, so ``import passnet``
stays cheap)::

    import passnet
    task = passnet.load_task("examples/tasks/bert_add_layer_norm")
    result = passnet.evaluate(task, "passes:examples/passes/add_layer_norm", device="cuda")
    print(result.scores.AS)
    fast = torch.compile(model, backend=passnet.backend(passes="examples/passes"))

Everything else lives in the subpackages (README, "Layout").
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from passnet.accelerate.backend import PassesArg, PassnetBackend
    from passnet.core.results import CandidateSpec, Scores, TaskResult, VariantResult
    from passnet.dataset.task import Task
    from passnet.graph.sample import Sample
    from passnet.passes.loader import PassSet

__all__ = ["backend", "evaluate", "load_pass", "load_sample", "load_task", "score"]


def load_sample(path: str | Path) -> Sample:
    """A GraphNet sample folder (``model.py``, ``weight_meta.py``, ``input_meta.py``)."""
    from passnet.graph.sample import load_sample as load

    return load(path)


def load_task(path: str | Path) -> Task:
    """A PassNet task folder (``graph_list.txt`` and its graphs) or one graph folder."""
    from passnet.dataset.task import load_task as load

    return load(path)


def load_pass(path: str | Path) -> PassSet:
    """An upstream-format pass folder; raises ``PassLoadError`` naming the file and line."""
    from passnet.passes.loader import load_pass_dir

    return load_pass_dir(path)


def evaluate(
    task: Task | str | Path,
    candidate: CandidateSpec | str,
    *,
    device: str = "cpu",
    with_inductor: bool = False,
    prepare_ahead: int | None = None,
    **parameters: Any,
) -> TaskResult:
    """Evaluate ``candidate`` (``"passes:DIR"``, ``"eager"``, ``"inductor[:MODE]"`` or a
    CandidateSpec) on every variant of ``task``, each in its own sandboxed worker, and score
    it. ``parameters`` override the device's defaults (``Parameters``: warmup, trials, ...)."""
    from passnet.core.results import default_parameters
    from passnet.evaluation.candidates import parse_candidate
    from passnet.evaluation.evaluator import evaluate_task

    spec = parse_candidate(candidate) if isinstance(candidate, str) else candidate
    return evaluate_task(
        task,
        spec,
        device=device,
        parameters=default_parameters(device, **parameters),
        with_inductor=with_inductor,
        prepare_ahead=prepare_ahead,
    )


def backend(
    passes: PassesArg,
    inner: str = "inductor",
    *,
    mode: str | None = None,
    order: str = "folders",
    tune: Any = False,
) -> PassnetBackend:
    """A ``torch.compile`` backend that applies a pass library (pass folders, or folders of
    them) to every captured graph, then compiles the rest with Inductor (``inner="inductor"``,
    ``mode`` one of Inductor's) or runs it eagerly; ``.fired()`` counts rules per firing;
    ``tune`` (True or a ``passnet.accelerate.tune.TuneCache``) keeps a rule at a site only
    where the compiled graph gets faster (docs/accelerate.md)."""
    from passnet.accelerate.backend import backend as make

    return make(passes, inner, mode=mode, order=order, tune=tune)


def score(variants: list[VariantResult], b: float = 0.1, p: float = 0.0) -> Scores:
    """ES_t, AS, fast_p and the G-means of a list of variant results (SPEC sections 5-6)."""
    from passnet.scores.metrics import compute_scores

    return compute_scores(variants, b=b, p=p)
