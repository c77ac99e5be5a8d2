"""PassAgent: an LLM writes passes with evaluator feedback (SPEC section 9).

``passnet agent run SUITE --model M`` is the command; :func:`run_agent` the library entry
point, :func:`run_attempt` one attempt. Backends (``openai``, ``anthropic``, ``hf``,
``replay``) are built by name with :func:`get_backend`. See ``docs/agent.md``.
Names are imported on first use, so the CLI starts without loading torch.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Completion": "passnet.agent.llm",
    "GenerateConfig": "passnet.agent.llm",
    "LLMError": "passnet.agent.llm",
    "get_backend": "passnet.agent.llm",
    "AgentConfig": "passnet.agent.loop",
    "AttemptSpec": "passnet.agent.loop",
    "run_attempt": "passnet.agent.loop",
    "RunPlan": "passnet.agent.run",
    "run_agent": "passnet.agent.run",
    "AttemptRecord": "passnet.agent.trajectory",
    "Budget": "passnet.agent.trajectory",
    "read_trajectories": "passnet.agent.trajectory",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'passnet.agent' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
