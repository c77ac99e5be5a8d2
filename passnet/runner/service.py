"""A long-lived local evaluator: ``passnet serve`` keeps its workers' zygotes warm, so that an
evaluation sent by ``passnet eval --server URL`` costs its own work only.

A one-shot ``passnet eval`` pays, before its first variant, for the imports and the zygote
that pass workers fork from: on the H200 the first evaluation of the 6-variant example task in
a process took 13.8 s, later ones 3.9-4.3 s (docs/results/h200-2026-12-04d.md). The service pays that once. It
evaluates exactly as ``passnet eval`` does: the same ``evaluate_task``, the same sandboxed
workers, nothing of a pass in the service's own process, one task per device at a time (a
request waits for a free device of its kind). It listens on 127.0.0.1 unless told otherwise;
task and pass folders are paths on its machine.

Protocol, JSON over HTTP:

- ``GET /health`` -> ``{"status": "ok", "devices": [...], "busy": n, "evaluations": n}``
- ``POST /evaluate`` with an :class:`EvaluateRequest` -> the ``TaskResult`` (the schema of
  ``passnet eval --json``), or ``{"error": why}`` with 400 (a request it cannot evaluate: a
  missing folder, a device it does not serve) or 500 (the evaluator failed).

:class:`RemoteEvaluator` is the agent's evaluator (``(task, pass folder) -> TaskResult``, as
``DevicePool``) backed by a service: ``passnet agent run --server URL``, ``passnet task submit
--server URL``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from passnet.core.results import Parameters, TaskResult


class EvaluateRequest(BaseModel):
    """One evaluation: what ``passnet eval`` would run locally."""

    task: str = Field(
        description="task folder (or one graph folder), a path on the service's machine"
    )
    candidate: str = Field(
        description="as `passnet bench -c` spells it: passes:DIR, eager, inductor[:MODE]"
    )
    parameters: Parameters
    device: str = Field("cpu", description="cpu, cuda (any GPU the service holds) or cuda:N")
    with_inductor: bool = False
    prepare_ahead: int | None = Field(
        None,
        ge=1,
        description="workers at once (default: one per variant on a GPU, up to the "
        "service host's cores less one, at most 12; 1 on CPU)",
    )


class BadRequest(ValueError):
    """A request the service cannot evaluate (answered 400)."""


class ServiceError(RuntimeError):
    """The client's view of a failed request: no service there, or its answer."""


class EvaluatorService:
    """Evaluations on a fixed set of devices, each device one task at a time."""

    def __init__(self, devices: list[str], *, prewarm: bool = True) -> None:
        from passnet.evaluation.devices import prewarm_pass_zygotes

        if not devices:
            raise ValueError("an evaluator service needs at least one device")
        self.devices = list(devices)
        self._idle = Counter(self.devices)  # free slots per device ("cpu" may have several)
        self._cond = threading.Condition()
        self.evaluations = 0
        self.prewarmed = prewarm_pass_zygotes(self.devices) if prewarm else None

    def log(self, line: str) -> None:
        """One line per evaluation on stderr (the service's own record of what it ran)."""
        print(f"[{time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)

    def health(self) -> dict[str, Any]:
        with self._cond:
            busy = len(self.devices) - sum(self._idle.values())
            return {"status": "ok", "devices": self.devices, "busy": busy,
                    "evaluations": self.evaluations}  # fmt: skip

    def evaluate(self, request: EvaluateRequest) -> TaskResult:
        """Run one request on a free device of its kind; BadRequest for what cannot run."""
        from passnet.dataset.task import TaskError, load_task
        from passnet.evaluation.candidates import parse_candidate
        from passnet.evaluation.evaluator import evaluate_task

        try:
            spec = parse_candidate(request.candidate)
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        if spec.kind not in ("pass", "eager", "inductor"):
            raise BadRequest(f"the service evaluates pass folders and baselines, not {spec.kind!r}")
        if spec.kind == "pass" and not Path(spec.pass_dir or "").is_dir():
            raise BadRequest(f"pass folder {spec.pass_dir} does not exist on the service's machine")
        try:
            task = load_task(request.task)
        except TaskError as exc:
            raise BadRequest(str(exc)) from None
        device = self._acquire(request.device)
        try:
            result = evaluate_task(task, spec, device=device, parameters=request.parameters,
                                   with_inductor=request.with_inductor,
                                   prepare_ahead=request.prepare_ahead)  # fmt: skip
            self.log(f"{task.name}: {spec.label} on {device}, {len(result.variants)} variant(s), "
                     f"AS {result.scores.AS:.4f}, {result.wall_seconds:.1f} s")  # fmt: skip
            return result
        finally:
            with self._cond:
                self._idle[device] += 1
                self.evaluations += 1
                self._cond.notify_all()

    def _acquire(self, device: str) -> str:
        """A free device matching ``device`` (``cuda``: any GPU of the service), waiting for one."""
        wanted = [d for d in dict.fromkeys(self.devices) if d == device or _kind(d) == device]
        if not wanted:
            raise BadRequest(f"this service evaluates on {', '.join(dict.fromkeys(self.devices))}; "
                             f"asked for {device}")  # fmt: skip
        with self._cond:
            while not (free := [d for d in wanted if self._idle[d] > 0]):
                self._cond.wait()
            self._idle[free[0]] -= 1
            return free[0]


def _kind(device: str) -> str:
    return "cuda" if device.startswith("cuda") else device


def make_server(
    service: EvaluatorService, host: str = "127.0.0.1", port: int = 0
) -> ThreadingHTTPServer:
    """An HTTP server for ``service`` (port 0: one the OS picks; ``server.server_address``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path.rstrip("/") == "/health":
                self._send(200, service.health())
            else:
                self._send(
                    404, {"error": f"no such endpoint {self.path}; GET /health, POST /evaluate"}
                )

        def do_POST(self) -> None:  # noqa: N802
            if self.path.rstrip("/") != "/evaluate":
                self._send(404, {"error": f"no such endpoint {self.path}; POST /evaluate"})
                return
            try:
                size = int(self.headers.get("Content-Length") or 0)
                request = EvaluateRequest.model_validate_json(self.rfile.read(size))
                result = service.evaluate(request)
            except (ValidationError, BadRequest, ValueError) as exc:
                self._send(400, {"error": str(exc)})
            except Exception as exc:  # noqa: BLE001 - the client gets the reason; the service lives
                self._send(500, {"error": f"evaluator failed: {type(exc).__name__}: {exc}"})
            else:
                self._send(200, result.model_dump_json(), raw=True)

        def _send(self, status: int, body: Any, raw: bool = False) -> None:
            data = (body if raw else json.dumps(body)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet by default
            return

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def evaluate_remote(url: str, request: EvaluateRequest, timeout: float | None = None) -> TaskResult:
    """Send ``request`` to the service at ``url``; ServiceError says why it did not evaluate."""
    body = request.model_dump_json().encode()
    req = urllib.request.Request(url.rstrip("/") + "/evaluate", data=body,
                                 headers={"Content-Type": "application/json"})  # fmt: skip
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return TaskResult.model_validate_json(response.read())
    except urllib.error.HTTPError as exc:
        try:
            why = json.loads(exc.read()).get("error", exc.reason)
        except (ValueError, AttributeError):
            why = exc.reason
        raise ServiceError(f"the evaluator at {url} answered {exc.code}: {why}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServiceError(
            f"no evaluator at {url} ({reason}); start one with `passnet serve`"
        ) from None


class RemoteEvaluator:
    """``(task, pass folder) -> TaskResult`` through the service at ``url``: what the agent's
    evaluate tool calls instead of a local ``DevicePool`` (``passnet agent run --server``)."""

    def __init__(self, url: str, parameters: Parameters, device: str = "cpu",
                 prepare_ahead: int | None = None, timeout: float | None = None) -> None:  # fmt: skip
        self.url, self.parameters, self.device = url, parameters, device
        self.prepare_ahead, self.timeout = prepare_ahead, timeout

    def __call__(self, task: Any, pass_dir: Path) -> TaskResult:
        request = EvaluateRequest(task=str(Path(task.path).resolve()),
                                  candidate=f"passes:{Path(pass_dir).resolve()}",
                                  parameters=self.parameters, device=self.device,
                                  prepare_ahead=self.prepare_ahead)  # fmt: skip
        return evaluate_remote(self.url, request, self.timeout)
