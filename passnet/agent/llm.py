"""One narrow LLM interface: ``generate(messages, tools, config) -> Completion``.

Messages and tools are in OpenAI chat-completions format everywhere (the trajectory format);
a backend that speaks another protocol converts at its edge. Backends live in their own
modules and are imported lazily through a registry, so a missing optional dependency only
matters when that backend is asked for::

    backend = get_backend("openai")
    completion = backend.generate(messages, tools, GenerateConfig(model="qwen3-30b-a3b"))
    messages.append(completion.message())
"""

from __future__ import annotations

import importlib
import os
import random
import time
from collections.abc import Callable
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, Field


class LLMError(Exception):
    """The model could not be asked; ends the run (the message says what to fix)."""


class LLMConfigError(LLMError):
    """A user-fixable problem: bad key, unknown model, unreachable server, missing package."""


class LLMUnavailable(LLMError):
    """The server kept failing (429/5xx/timeouts) after every retry."""


class ContextLengthExceeded(LLMError):
    """The conversation no longer fits the model's context: the attempt stops, the run goes on."""


class GenerateConfig(BaseModel):
    """How to ask the model; stored with every trajectory (the key itself never is)."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = "OPENAI_API_KEY"
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = 8192
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = Field(
        default="max_tokens",
        description="request field for max_tokens (OpenAI's reasoning models want "
        "max_completion_tokens)",
    )
    timeout_s: float = 300.0
    max_retries: int = 6
    backoff_s: float = 2.0
    backoff_max_s: float = 60.0
    parallel_tool_calls: bool | None = None
    price_input_per_mtok: float | None = Field(
        default=None, description="USD per million prompt tokens (declared, never guessed)"
    )
    price_output_per_mtok: float | None = None
    extra_body: dict[str, Any] = Field(
        default_factory=dict,
        description="server-specific request fields, e.g. vLLM's chat_template_kwargs",
    )

    def api_key(self, required: bool) -> str | None:
        """The key from ``api_key_env``; a clear error when a hosted API needs one."""
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if not key and required:
            where = f"${self.api_key_env}" if self.api_key_env else "--api-key-env"
            raise LLMConfigError(
                f"no API key: {where} is not set. Export it, or point --base-url at a local "
                "server (vLLM, SGLang, Ollama, llama.cpp) that needs no key."
            )
        return key or None


class Usage(BaseModel):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None

    @property
    def total_tokens(self) -> int:
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)

    def priced(self, config: GenerateConfig) -> Usage:
        """This usage with its cost, when the config declares prices."""
        if config.price_input_per_mtok is None or config.price_output_per_mtok is None:
            return self
        cost = (self.prompt_tokens or 0) * config.price_input_per_mtok
        cost += (self.completion_tokens or 0) * config.price_output_per_mtok
        return self.model_copy(update={"cost_usd": cost / 1e6})


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str = Field(description="raw JSON text as the model wrote it (may be malformed)")


class Completion(BaseModel):
    """One assistant turn plus what it cost."""

    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    retries: int = 0

    def message(self) -> dict[str, Any]:
        """The assistant message in OpenAI format (tool calls included)."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.reasoning:
            msg["reasoning_content"] = self.reasoning
        if self.tool_calls:
            msg["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.tool_calls
            ]
        return msg


def completion_from_message(message: dict[str, Any], usage: Usage | None = None) -> Completion:
    """Inverse of :meth:`Completion.message` (used by the replay backend)."""
    calls = [
        ToolCall(
            id=c.get("id") or f"call_{i}",
            name=c.get("function", {}).get("name", ""),
            arguments=c.get("function", {}).get("arguments", ""),
        )
        for i, c in enumerate(message.get("tool_calls") or [])
    ]
    return Completion(
        content=message.get("content"),
        reasoning=message.get("reasoning_content"),
        tool_calls=calls,
        usage=usage or Usage(),
    )


STANDARD_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id", "name"})


def wire_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as sent to a server: our extra keys (``reasoning_content``) dropped."""
    return [{k: v for k, v in m.items() if k in STANDARD_MESSAGE_KEYS} for m in messages]


class Backend(Protocol):
    """What the agent needs from a model."""

    def generate(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], config: GenerateConfig
    ) -> Completion: ...


T = TypeVar("T")


class Retryable(Exception):
    """Raised by a backend's call to ask :func:`with_retries` for another try."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.retry_after = reason, retry_after


MALFORMED_ERRORS: tuple[type[Exception], ...] = (
    ValueError,  # json.JSONDecodeError and pydantic's ValidationError are ValueErrors
    AttributeError,
    TypeError,
    KeyError,
    IndexError,
)
"""What reading a 200 whose body is not a completion raises (invalid JSON, missing fields)."""


def malformed(where: str, exc: Exception, body: str = "", hint: str = "") -> Retryable:
    """A 200 answer that is not a usable completion, to retry like a 5xx: overloaded servers
    and proxies send truncated or foreign bodies now and then, and the next try usually works.
    After the last retry the run stops with this reason (``hint`` says what to check)."""
    snippet = " ".join(body.split())[:160]
    return Retryable(
        f"malformed response from {where} (HTTP 200, {type(exc).__name__}: {str(exc)[:160]})"
        + (f"; body: {snippet!r}" if snippet else "")
        + (f"; {hint}" if hint else "")
    )


def with_retries(
    call: Callable[[], T], config: GenerateConfig, sleep: Callable[[float], None] = time.sleep
) -> tuple[T, int]:
    """Run ``call`` until it returns, retrying :class:`Retryable` failures with exponential
    backoff and jitter (honouring a server's Retry-After); returns (result, retries used)."""
    reasons: list[str] = []
    for attempt in range(config.max_retries + 1):
        try:
            return call(), attempt
        except Retryable as exc:
            reasons.append(exc.reason)
            if attempt == config.max_retries:
                break
            delay = min(config.backoff_max_s, config.backoff_s * 2**attempt)
            delay *= 0.5 + random.random() / 2
            if exc.retry_after is not None:
                delay = min(config.backoff_max_s, max(delay, exc.retry_after))
            sleep(delay)
    raise LLMUnavailable(
        f"the model server failed {len(reasons)} time(s) in a row "
        f"(last: {reasons[-1]}); all {config.max_retries} retries used. Check the server, "
        "or raise --max-retries / --timeout."
    )


_BACKENDS: dict[str, str] = {
    "openai": "passnet.agent.openai_backend:OpenAIBackend",
    "anthropic": "passnet.agent.anthropic_backend:AnthropicBackend",
    "hf": "passnet.agent.hf_backend:HFBackend",
    "replay": "passnet.agent.replay_backend:ReplayBackend",
}


def register_backend(name: str, target: str) -> None:
    """Register ``"module:Class"`` under ``name`` (the class takes keyword options)."""
    _BACKENDS[name] = target


def backend_names() -> list[str]:
    return sorted(_BACKENDS)


def get_backend(name: str, **options: Any) -> Backend:
    """Build the backend registered as ``name``; an unknown name lists the known ones."""
    if name not in _BACKENDS:
        raise LLMConfigError(f"unknown backend {name!r}; known: {', '.join(backend_names())}")
    module_name, _, cls_name = _BACKENDS[name].partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, cls_name)(**options)
