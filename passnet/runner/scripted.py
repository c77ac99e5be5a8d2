"""A scripted executor: results from a function instead of worker processes.

For tests and demos of the runner's bookkeeping (resume, cache, reports) without measuring;
it satisfies the same ``Executor`` protocol as the local pool and Ray.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from passnet.core.results import Environment, Parameters, VariantResult
from passnet.runner.bench import Outcome, WorkItem

SCRIPTED_ENVIRONMENT = Environment(
    device="cpu",
    device_name="scripted",
    torch="0",
    triton=None,
    python="3",
    platform="scripted",
)


class ScriptedExecutor:
    """Answers every item with ``script(item)``; raising there becomes a harness error."""

    name = "scripted"

    def __init__(
        self,
        script: Callable[[WorkItem], VariantResult],
        environment: Environment = SCRIPTED_ENVIRONMENT,
    ) -> None:
        self.script = script
        self._env = environment
        self.calls: list[WorkItem] = []

    def environment(self) -> Environment:
        return self._env

    def run(self, items: list[WorkItem], params: Parameters) -> Iterator[Outcome]:
        for item in items:
            self.calls.append(item)
            try:
                result = self.script(item)
            except Exception as exc:  # noqa: BLE001 - reported like a harness fault
                yield Outcome(item, None, None, error=f"{type(exc).__name__}: {exc}")
                continue
            yield Outcome(item, result, self._env)
