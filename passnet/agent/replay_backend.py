"""Plays back the assistant turns of a recorded trajectory, in order.

The agent loop runs for real around it (tools edit files, the evaluator or its recording
answers), so a replay checks that a trajectory is self-consistent: the same turns must lead
to the same pass files, the same best snapshot and the same final score.
"""

from __future__ import annotations

from typing import Any

from passnet.agent.llm import (
    Completion,
    GenerateConfig,
    LLMError,
    Usage,
    completion_from_message,
)


class ReplayExhausted(LLMError):
    """The loop asked for more turns than the recording has."""


class ReplayBackend:
    """``generate`` returns the next recorded assistant message (its usage too)."""

    def __init__(
        self, messages: list[dict[str, Any]] | None = None, usages: list[Usage] | None = None
    ) -> None:
        self._turns = [m for m in (messages or []) if m.get("role") == "assistant"]
        self._usages = list(usages or [])
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._turns) - self._next

    def generate(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], config: GenerateConfig
    ) -> Completion:
        if self._next >= len(self._turns):
            raise ReplayExhausted(f"the recording has only {len(self._turns)} assistant turn(s)")
        i = self._next
        self._next += 1
        usage = self._usages[i] if i < len(self._usages) else Usage()
        return completion_from_message(self._turns[i], usage)
