"""OpenAI-compatible chat completions with tool calling.

The protocol vLLM, SGLang, Ollama, llama.cpp's server and hosted APIs (OpenAI, DeepSeek,
OpenRouter, Together, ...) all serve. The ``openai`` client's own retries are off: this module
retries 408/409/429/5xx, timeouts and 200s whose body is not a completion (invalid JSON, missing
fields, an HTML page) with backoff (:func:`with_retries`) and turns the errors a user can fix
(401/403 key, 404 model, unreachable server) into one-paragraph messages.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import openai

from passnet.agent.llm import (
    MALFORMED_ERRORS,
    Completion,
    ContextLengthExceeded,
    GenerateConfig,
    LLMConfigError,
    LLMError,
    Retryable,
    ToolCall,
    Usage,
    malformed,
    wire_messages,
    with_retries,
)

_RETRY_STATUS = {408, 409, 429}
_BASE_URL_HINT = "is --base-url an OpenAI-compatible API (it usually ends in /v1)?"
_CONTEXT_HINTS = ("context length", "context_length", "maximum context", "too many tokens")


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class OpenAIBackend:
    """``generate`` through ``POST {base_url}/chat/completions``."""

    def __init__(self) -> None:
        self._clients: dict[tuple, openai.OpenAI] = {}
        self._lock = threading.Lock()
        self._reached: set[str] = set()  # base URLs that answered once: connection errors retry

    def _client(self, config: GenerateConfig) -> openai.OpenAI:
        key = config.api_key(required=config.base_url is None) or "EMPTY"
        ident = (config.base_url, key, config.timeout_s)
        with self._lock:
            if ident not in self._clients:
                self._clients[ident] = openai.OpenAI(
                    base_url=config.base_url,
                    api_key=key,
                    max_retries=0,
                    timeout=config.timeout_s,
                )
            return self._clients[ident]

    def _where(self, config: GenerateConfig) -> str:
        return config.base_url or "api.openai.com"

    def _request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], config: GenerateConfig
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": config.model, "messages": wire_messages(messages)}
        if tools:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = "auto"
            if config.parallel_tool_calls is not None:
                kwargs["parallel_tool_calls"] = config.parallel_tool_calls
        for name in ("temperature", "top_p"):
            if getattr(config, name) is not None:
                kwargs[name] = getattr(config, name)
        if config.max_tokens is not None:
            kwargs[config.max_tokens_param] = config.max_tokens
        if config.extra_body:
            kwargs["extra_body"] = config.extra_body
        return kwargs

    def _served_models(self, client: openai.OpenAI) -> str:
        try:
            names = sorted(m.id for m in client.models.list())
        except openai.OpenAIError:
            return ""
        return f" It serves: {', '.join(names[:20])}." if names else ""

    def _classify(self, exc: openai.OpenAIError, config: GenerateConfig, client: Any) -> Exception:
        """Map a client error to Retryable (try again) or an LLMError (stop)."""
        where = self._where(config)
        if isinstance(exc, openai.APITimeoutError):
            return Retryable(f"no answer within {config.timeout_s:g} s (timeout)")
        if isinstance(exc, openai.APIResponseValidationError):
            return malformed(where, exc, exc.response.text, _BASE_URL_HINT)
        if isinstance(exc, openai.APIConnectionError):
            if where in self._reached:
                return Retryable(f"connection to {where} failed: {exc}")
            return LLMConfigError(
                f"cannot reach the model server at {where} ({exc.__cause__ or exc}). Is it "
                "running, and does --base-url include the /v1 prefix (e.g. "
                "http://localhost:8000/v1)?"
            )
        if not isinstance(exc, openai.APIStatusError):
            return LLMError(f"{type(exc).__name__}: {exc}")
        code = exc.status_code
        if code in _RETRY_STATUS or code >= 500:
            return Retryable(f"HTTP {code} from {where}", _retry_after(exc))
        if code in (401, 403):
            return LLMConfigError(
                f"the server at {where} rejected the API key (HTTP {code}). Check "
                f"${config.api_key_env or 'OPENAI_API_KEY'} (or --api-key-env NAME) for this "
                "endpoint."
            )
        if code == 404:
            return LLMConfigError(
                f"model {config.model!r} was not found at {where} (HTTP 404)."
                f"{self._served_models(client)} Pass one of its models with --model, and "
                "check that --base-url ends in /v1."
            )
        text = str(exc).lower()
        if code in (400, 413) and any(h in text for h in _CONTEXT_HINTS):
            return ContextLengthExceeded(f"HTTP {code} from {where}: {exc}")
        return LLMError(f"the server at {where} refused the request (HTTP {code}): {exc}")

    def generate(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], config: GenerateConfig
    ) -> Completion:
        client = self._client(config)
        request = self._request(messages, tools, config)

        def call() -> Completion:
            try:  # the raw response: errors of the request and of its answer stay apart
                raw = client.chat.completions.with_raw_response.create(**request)
            except openai.OpenAIError as exc:
                raise self._classify(exc, config, client) from exc
            self._reached.add(self._where(config))
            try:
                return _completion(raw.parse(), config)
            except openai.OpenAIError as exc:
                raise self._classify(exc, config, client) from exc
            except MALFORMED_ERRORS as exc:
                raise malformed(self._where(config), exc, raw.text, _BASE_URL_HINT) from exc

        t0 = time.perf_counter()
        completion, retries = with_retries(call, config)
        return completion.model_copy(
            update={"latency_s": time.perf_counter() - t0, "retries": retries}
        )


def _completion(response: Any, config: GenerateConfig) -> Completion:
    """A ChatCompletion as a Completion; raises a MALFORMED_ERRORS error for anything else."""
    if not isinstance(response, openai.types.chat.ChatCompletion):
        raise TypeError(f"not a chat completion but {type(response).__name__}")
    if not response.choices:
        raise ValueError("no choices")
    choice = response.choices[0]
    msg = choice.message
    extra = getattr(msg, "model_extra", None) or {}
    reasoning = extra.get("reasoning_content") or extra.get("reasoning")
    calls = [
        ToolCall(
            id=c.id or f"call_{i}",
            name=(c.function.name if c.function else "") or "",
            arguments=(c.function.arguments if c.function else "") or "",
        )
        for i, c in enumerate(msg.tool_calls or [])
    ]
    u = response.usage
    usage = Usage(
        prompt_tokens=getattr(u, "prompt_tokens", None),
        completion_tokens=getattr(u, "completion_tokens", None),
    ).priced(config)
    return Completion(
        content=msg.content,
        reasoning=reasoning if isinstance(reasoning, str) else None,
        tool_calls=calls,
        finish_reason=choice.finish_reason,
        usage=usage,
    )
