"""The private result channel: how a worker's ``VariantResult`` reaches the driver.

The worker writes one message to a pipe only it and the driver hold (never stdout, which a
candidate can print to): the driver's nonce, a newline, the result as JSON (``send``). The
driver drains the pipe while the worker runs (``drain``), waits for the worker's end or its
time limit (``wait``), and reads the message back as a validated ``VariantResult``
(``read_result``): bytes not framed by our nonce, or not one valid result, are a forged
result. A worker that ends without a message is classified from how it ended (``died``).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import threading
from pathlib import Path

from pydantic import ValidationError

from passnet.core.results import STATUS_ERROR_CLASS, Finding, Status, VariantResult
from passnet.evaluation import lifetime
from passnet.evaluation.forkserver import ForkedProcess
from passnet.evaluation.request import WorkerRequest

_LOG_TAIL = 1500

# -- the worker's end ------------------------------------------------------------------------


def encode(result: VariantResult) -> bytes:
    """A result as the worker sends it (non-finite floats kept, as ``json`` writes them)."""
    return json.dumps(result.model_dump(mode="json")).encode()


def send(channel: int, nonce: str, body: bytes) -> None:
    """Write the one message (``encode``'s body framed by the nonce) and close the channel."""
    data = nonce.encode() + b"\n" + body
    while data:
        data = data[os.write(channel, data) :]
    os.close(channel)


# -- the driver's end ------------------------------------------------------------------------


def drain(read_fd: int) -> tuple[threading.Thread, list[bytes]]:
    """Read the result channel on a thread until the worker closes it (a worker that writes
    more than a pipe holds must not block on a parent that only reads after it exits)."""
    chunks: list[bytes] = []

    def read() -> None:
        with os.fdopen(read_fd, "rb") as f:
            while data := f.read(65536):
                chunks.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, chunks


def kill_group(proc: subprocess.Popen | ForkedProcess) -> None:
    """Kill the worker's whole process group (its children and threads go with it); reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def wait(
    proc: subprocess.Popen | ForkedProcess, timeout_s: float
) -> tuple[bool, resource.struct_rusage | None]:
    """(timed out, resource usage) of a worker, which is killed with its group either way."""
    try:
        if isinstance(proc, ForkedProcess):
            return False, proc.wait_usage(timeout_s)
        return False, lifetime.wait(proc, timeout_s)
    except subprocess.TimeoutExpired:
        return True, None
    finally:
        kill_group(proc)


def read_result(request: WorkerRequest, payload: bytes, elapsed: float) -> VariantResult:
    """The worker's result, if the channel holds exactly our nonce and one valid result."""
    head, _, body = payload.partition(b"\n")
    try:
        out = json.loads(body) if head == request.nonce.encode() else None
    except ValueError:
        out = None
    if not isinstance(out, dict):
        return forged(request, payload, elapsed)
    out.setdefault("worker_seconds", elapsed)
    try:
        return VariantResult.model_validate(out)
    except ValidationError as exc:
        return forged(request, payload, elapsed, f" ({exc.error_count()} invalid field(s))")


def died(
    request: WorkerRequest,
    proc: subprocess.Popen | ForkedProcess,
    log_path: Path,
    usage: resource.struct_rusage | None,
    memory_limit: int | None,
    ooms: int | None,
    elapsed: float,
) -> VariantResult:
    """A worker that exited without a result: late (a timeout), or killed or crashed, said
    from its exit status, resource usage, OOM kills and the tail of its log."""
    timeout_s = request.timeout_s
    try:
        tail = log_path.read_bytes()[-_LOG_TAIL:].decode(errors="replace").strip()
    except OSError:
        tail = ""
    code = proc.returncode
    if lifetime.TIMEOUT_MARK in tail or code == -signal.SIGXCPU:  # we were late
        by = "its guardian" if lifetime.TIMEOUT_MARK in tail else "its CPU-time limit"
        message = f"killed by {by} after its {timeout_s:g} s wall-clock limit"
        return failure(request, Status.TIMEOUT, message, elapsed)
    if ooms is not None:
        ooms = (lifetime.oom_kills() or ooms) - ooms
    how = lifetime.exit_cause(code, tail, usage, memory_limit, ooms)
    if isinstance(proc, ForkedProcess) and proc.zygote_died:
        how += " (its zygote died)"
    detail = f"worker {how} without a result"
    if tail:
        detail += f"; last output: {tail[-600:]}"
    return failure(request, Status.CRASH, detail, elapsed)


def forged(request: WorkerRequest, payload: bytes, elapsed: float, why: str = "") -> VariantResult:
    """Bytes on the result channel that are not exactly one result framed by our nonce."""
    shown = payload[:120].decode(errors="replace")
    detail = (f"result channel held {len(payload)} byte(s) not framed by the worker{why}: "
              f"{shown!r}")  # fmt: skip
    result = failure(request, Status.REJECTED, f"integrity: forged-result: {detail}", elapsed)
    result.integrity = [Finding(check="forged-result", detail=detail)]
    return result


def failure(request: WorkerRequest, status: Status, message: str, elapsed: float) -> VariantResult:
    """A variant the worker gave no result for: its status and why."""
    return VariantResult(
        graph=request.graph,
        dtype=request.dtype,
        status=status,
        error_class=STATUS_ERROR_CLASS[status],
        error=message,
        worker_seconds=elapsed,
    )
