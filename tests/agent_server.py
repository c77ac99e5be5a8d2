"""A scripted OpenAI-compatible chat server for the agent tests (real HTTP on 127.0.0.1).

The reply to a request is picked by how many assistant messages the request already holds
(its step), so each attempt of a run gets the same script whatever the interleaving, and a
restarted attempt starts over. Faults (429, 500, a slow answer, a 200 whose body is not a
completion) are one-shot and served before the script, in order: ``[malformed(body)] * n``
answers the first n requests with a broken 200, then the script. Every request body is kept
in ``requests``.

    with ScriptedServer([reply(calls=[call("view_task", {})]), reply(calls=[call("finish")])]) as srv:
        GenerateConfig(model="scripted", base_url=srv.url, api_key_env="TEST_KEY")
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

API_KEY = "test-key"
MODEL = "scripted"


@dataclass
class Reply:
    content: str | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)  # (name, raw JSON arguments)


@dataclass
class Fault:
    status: int = 500
    retry_after: str | None = None
    delay_s: float = 0.0  # > 0 and status 200: answer the script late (a client timeout)
    message: str = "scripted fault"
    body: str | None = None  # status 200: send these bytes instead of a completion
    content_type: str = "application/json"


MALFORMED_BODIES = {
    "invalid JSON": '{"id": "chatcmpl-1", "choices": [',
    "no choices": '{"id": "chatcmpl-1", "object": "chat.completion", "model": "scripted"}',
    "choice without message": '{"id": "chatcmpl-1", "choices": [{"index": 0}]}',
    "empty choices": '{"id": "chatcmpl-1", "choices": []}',
    "a JSON list": "[1, 2, 3]",
}
"""200 answers that are not a chat completion, as broken proxies and servers send them."""


def malformed(body: str, content_type: str = "application/json") -> Fault:
    """A 200 whose body is ``body`` (use with ``* n`` for the first n requests)."""
    return Fault(200, body=body, content_type=content_type)


def call(name: str, args: dict | str | None = None) -> tuple[str, str]:
    """A tool call; a str ``args`` is sent verbatim (malformed JSON on purpose)."""
    return (name, args if isinstance(args, str) else json.dumps(args or {}))


def reply(content: str | None = None, calls: list[tuple[str, str]] | None = None) -> Reply:
    return Reply(content, calls or [])


def step_of(body: dict) -> int:
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")


class ScriptedServer:
    def __init__(
        self,
        script: list[Reply],
        faults: list[Fault] | None = None,
        gate: Callable[[dict, int], None] | None = None,
    ) -> None:
        self.script = script
        self.faults = list(faults or [])
        self.gate = gate  # called before answering (may block)
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, body: dict) -> tuple[int, dict | bytes, dict[str, str], float]:
        """(status, JSON body or raw bytes, headers, delay) for one chat request."""
        with self._lock:
            self.requests.append(body)
            fault = self.faults.pop(0) if self.faults else None
        if body.get("model") != MODEL:
            error = {
                "message": f"The model `{body.get('model')}` does not exist",
                "type": "invalid_request_error",
                "code": "model_not_found",
            }
            return 404, {"error": error}, {}, 0.0
        if fault is not None and fault.status != 200:
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            return fault.status, {"error": {"message": fault.message}}, headers, 0.0
        if fault is not None and fault.body is not None:
            return 200, fault.body.encode(), {"Content-Type": fault.content_type}, 0.0
        step = step_of(body)
        if self.gate is not None:
            self.gate(body, step)
        r = self.script[min(step, len(self.script) - 1)]
        calls = [
            {
                "id": f"call_{step}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": args},
            }
            for i, (name, args) in enumerate(r.calls)
        ]
        message: dict[str, Any] = {"role": "assistant", "content": r.content}
        if calls:
            message["tool_calls"] = calls
        prompt = len(json.dumps(body.get("messages", []))) // 4
        completion = len(json.dumps(message)) // 4
        payload = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": MODEL,
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
        return 200, payload, {}, fault.delay_s if fault is not None else 0.0

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, payload: dict | bytes, headers: dict[str, str]) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                headers = {"Content-Type": "application/json", **headers}
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test) or was killed

            def _authorised(self) -> bool:
                if self.headers.get("Authorization") == f"Bearer {API_KEY}":
                    return True
                error = {"message": "Incorrect API key provided", "code": "invalid_api_key"}
                self._send(401, {"error": error}, {})
                return False

            def do_GET(self) -> None:  # noqa: N802 - http.server API
                if not self._authorised():
                    return
                if self.path.rstrip("/").endswith("/models"):
                    data = [{"id": MODEL, "object": "model", "created": 0, "owned_by": "test"}]
                    self._send(200, {"object": "list", "data": data}, {})
                else:
                    self._send(404, {"error": {"message": "not found"}}, {})

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self._authorised():
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}}, {})
                    return
                status, payload, headers, delay = server.answer(body)
                if delay:
                    time.sleep(delay)
                self._send(status, payload, headers)

        return Handler
