"""Anthropic's Messages API, converted to and from the OpenAI message format at this edge.

Optional: needs ``pip install anthropic``. The key comes from ``$ANTHROPIC_API_KEY`` unless
``--api-key-env`` names another variable. Errors follow the OpenAI backend's rules: 408/409/429,
5xx, timeouts and 200s whose body is not a message are retried; key, model and network
problems stop the run with what to fix.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

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
    with_retries,
)


def _import_anthropic() -> Any:
    try:
        import anthropic
    except ImportError as exc:
        raise LLMConfigError(
            "the anthropic backend needs the `anthropic` package: pip install anthropic"
        ) from exc
    return anthropic


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return {"_unparsed_arguments": text}
    return value if isinstance(value, dict) else {"_arguments": value}


def to_anthropic(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """OpenAI messages -> (system text, Anthropic messages); tool results become user blocks."""
    system: list[str] = []
    out: list[dict[str, Any]] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for m in messages:
        role, content = m["role"], m.get("content")
        if role == "system":
            system.append(content or "")
        elif role == "user":
            push("user", [{"type": "text", "text": content or ""}])
        elif role == "tool":
            block = {"type": "tool_result", "tool_use_id": m["tool_call_id"]}
            push("user", [block | {"content": content or ""}])
        elif role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": content}] if content else []
            for c in m.get("tool_calls") or []:
                fn = c.get("function", {})
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": c["id"],
                        "name": fn.get("name", ""),
                        "input": _arguments(fn.get("arguments", "")),
                    }
                )
            push("assistant", blocks or [{"type": "text", "text": ""}])
    return "\n\n".join(system), out


def to_anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "name": t["function"]["name"],
            "description": t["function"].get("description", ""),
            "input_schema": t["function"].get("parameters", {"type": "object"}),
        }
        for t in tools
    ]


def from_anthropic(response: Any, config: GenerateConfig) -> Completion:
    """An Anthropic Message as a Completion; raises a MALFORMED_ERRORS error for anything else
    (a body that is not a message: the SDK hands back text or a partial model)."""
    if isinstance(response, (str, bytes, dict, list)) or response is None:
        raise TypeError(f"not a message but {type(response).__name__}")
    text: list[str] = []
    calls: list[ToolCall] = []
    for block in response.content:
        if block.type == "text":
            text.append(block.text)
        elif block.type == "tool_use":
            calls.append(ToolCall(id=block.id, name=block.name, arguments=json.dumps(block.input)))
    usage = Usage(
        prompt_tokens=getattr(response.usage, "input_tokens", None),
        completion_tokens=getattr(response.usage, "output_tokens", None),
    ).priced(config)
    return Completion(
        content="".join(text) or None,
        tool_calls=calls,
        finish_reason=response.stop_reason,
        usage=usage,
    )


class AnthropicBackend:
    """``generate`` through ``anthropic.Anthropic().messages.create``."""

    def __init__(self) -> None:
        self._anthropic = _import_anthropic()
        self._clients: dict[tuple, Any] = {}
        self._lock = threading.Lock()

    def _client(self, config: GenerateConfig) -> Any:
        if config.api_key_env in (None, "OPENAI_API_KEY"):
            config = config.model_copy(update={"api_key_env": "ANTHROPIC_API_KEY"})
        key = config.api_key(required=config.base_url is None) or "EMPTY"
        ident = (config.base_url, key, config.timeout_s)
        with self._lock:
            if ident not in self._clients:
                self._clients[ident] = self._anthropic.Anthropic(
                    api_key=key, base_url=config.base_url, max_retries=0, timeout=config.timeout_s
                )
            return self._clients[ident]

    def _classify(self, exc: Exception, config: GenerateConfig) -> Exception:
        a = self._anthropic
        where = config.base_url or "api.anthropic.com"
        if isinstance(exc, a.APITimeoutError):
            return Retryable(f"no answer within {config.timeout_s:g} s (timeout)")
        if isinstance(exc, a.APIResponseValidationError):
            return malformed(where, exc, exc.response.text)
        if isinstance(exc, a.APIConnectionError):
            return LLMConfigError(f"cannot reach {where} ({exc}); check the network/--base-url")
        if not isinstance(exc, a.APIStatusError):
            return LLMError(f"{type(exc).__name__}: {exc}")
        code = exc.status_code
        if code in (408, 409, 429) or code >= 500:
            return Retryable(f"HTTP {code} from {where}")
        if code in (401, 403):
            return LLMConfigError(
                f"{where} rejected the API key (HTTP {code}); check $ANTHROPIC_API_KEY."
            )
        if code == 404:
            return LLMConfigError(f"model {config.model!r} was not found at {where} (HTTP 404).")
        if code in (400, 413) and "prompt is too long" in str(exc).lower():
            return ContextLengthExceeded(str(exc))
        return LLMError(f"{where} refused the request (HTTP {code}): {exc}")

    def generate(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], config: GenerateConfig
    ) -> Completion:
        client = self._client(config)
        system, converted = to_anthropic(messages)
        kwargs: dict[str, Any] = {
            "model": config.model,
            "messages": converted,
            "max_tokens": config.max_tokens or 8192,
        }
        if system:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = to_anthropic_tools(tools)
        for name in ("temperature", "top_p"):
            if getattr(config, name) is not None:
                kwargs[name] = getattr(config, name)
        kwargs.update(config.extra_body)

        def call() -> Completion:
            try:  # the raw response: errors of the request and of its answer stay apart
                raw = client.messages.with_raw_response.create(**kwargs)
            except self._anthropic.AnthropicError as exc:
                raise self._classify(exc, config) from exc
            try:
                return from_anthropic(raw.parse(), config)
            except self._anthropic.AnthropicError as exc:
                raise self._classify(exc, config) from exc
            except MALFORMED_ERRORS as exc:
                where = config.base_url or "api.anthropic.com"
                raise malformed(where, exc, raw.text) from exc

        t0 = time.perf_counter()
        completion, retries = with_retries(call, config)
        return completion.model_copy(
            update={"latency_s": time.perf_counter() - t0, "retries": retries}
        )
