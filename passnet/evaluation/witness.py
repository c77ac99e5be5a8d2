"""A clock the pass cannot touch: the parent witnesses every timed window of a worker.

Samples measured inside the worker (``t1 - t0`` around each call) live in Python objects of
the process that runs the pass; a pass that reaches them (by walking frames, say) can rewrite
them. So every timed window is also reported as it happens: right before ``t0`` the worker
sends an *open* message and right after ``t1`` a *close* message (with the sample it
measured) on a ``SOCK_SEQPACKET`` socket pair whose other end the parent holds, and the
kernel stamps each message with the time it was sent (``SO_TIMESTAMPNS``, set on the parent's
end). A message's stamp is taken by the kernel, not by anything in the worker: the window
between the two stamps contains the call, whatever the worker's objects say.

The parent (``passnet.evaluation.sandbox``) drains the socket while the worker runs and, when
the result arrives, checks every claimed sample against its witnessed window
(:func:`audit`): no sample may be longer than its window, and the part of the windows a side's
samples leave out (two system calls, the same code for every side) may not be larger for the
candidate than for the reference beyond noise. It then recomputes the result's timing fields
from the validated samples (``passnet.evaluation.timing_stats``) instead of reading them back
from the worker. A message a pass injects breaks the strict open/close sequence. Messages only
name what the harness timed; they carry nothing secret.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from dataclasses import dataclass, field
from typing import Any

from passnet.core.results import STATUS_ERROR_CLASS, Finding, Status, VariantResult
from passnet.evaluation.timing_stats import SideRun, kept_run, side_timings, timing_fields

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux's value (absent from Python's list)
BUFFER_BYTES = 8 << 20  # a whole timing phase's messages fit: a slow parent never blocks t1
_OPEN = struct.Struct("<cHHHI")  # b"S", measurement, run, side, call
_CLOSE = struct.Struct("<cHHHIqdB")  # b"E", ids, claimed wall ns, event us (-1: none), checked
SLACK_NS = 2_000  # a sample may exceed its window by clock rounding, no more
GAP_SLACK_US, GAP_SLACK_SHARE = 3.0, 0.05  # candidate gap beyond the reference's: noise
GAP_FORGED_US, GAP_FORGED_SHARE = 20.0, 0.5  # beyond this: samples cut, not noise


def pair() -> tuple[socket.socket, socket.socket]:
    """(parent's end, worker's end): the parent's stamps what it receives."""
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    parent.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    for s, opt in ((parent, socket.SO_RCVBUF), (child, socket.SO_SNDBUF)):
        try:
            s.setsockopt(socket.SOL_SOCKET, opt, BUFFER_BYTES)
        except OSError:
            pass
    return parent, child


class Witness:
    """The worker's end: reports measurements, runs and each timed window."""

    def __init__(self, fd: int) -> None:
        self._sock = socket.socket(fileno=fd)
        self._send = self._sock.send
        self.measurement, self.run, self.calls = -1, -1, [0]

    def declare(self, label: str, sides: list[str], **info: Any) -> None:
        self.measurement += 1
        self.run, self.calls = -1, [0] * len(sides)
        self._send(b"M" + json.dumps({"label": label, "sides": sides, **info}).encode())

    def next_run(self) -> None:
        self.run += 1
        self.calls = [0] * len(self.calls)

    def opened(self, side: int) -> None:
        self._send(_OPEN.pack(b"S", self.measurement, self.run, side, self.calls[side]))

    def closed(self, side: int, wall_ns: int, event_us: float, checked: bool) -> None:
        self._send(_CLOSE.pack(b"E", self.measurement, self.run, side, self.calls[side],
                               wall_ns, event_us, checked))  # fmt: skip
        self.calls[side] += 1


_ACTIVE: Witness | None = None


def open_channel(fd: int | None) -> None:
    """In a worker, before any pass code runs: report timed windows on ``fd``."""
    global _ACTIVE
    _ACTIVE = Witness(fd) if fd is not None and fd >= 0 else None


def active() -> Witness | None:
    return _ACTIVE


class Log:
    """The parent's end, drained on a thread until the worker closes its end:
    ``(kernel stamp in ns, message)`` in arrival order. The thread polls rather than waits in
    ``recv``: a sender that wakes a waiting reader pays for the wake-up before the stamp, and
    more so after a short call than after a long one (the buffer holds a whole timing phase)."""

    POLL_S = 0.02

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.messages: list[tuple[int, bytes]] = []
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._drain, daemon=True, name="passnet-witness")
        self.thread.start()

    def _drain(self) -> None:
        space = socket.CMSG_SPACE(16)
        try:
            while True:
                try:
                    data, anc, _, _ = self.sock.recvmsg(4096, space, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    if self.closed.wait(self.POLL_S):
                        return
                    continue
                if not data:
                    return
                stamp = next((d for lvl, kind, d in anc if kind == SO_TIMESTAMPNS), b"")
                if len(stamp) >= 16:
                    sec, ns = struct.unpack("qq", stamp[:16])
                    self.messages.append((sec * 1_000_000_000 + ns, data))
                else:
                    self.messages.append((-1, data))
        except OSError:
            return
        finally:
            self.sock.close()

    def close(self, timeout: float = 5.0) -> list[tuple[int, bytes]]:
        """The messages, once the worker's end is closed (it exits) or ``timeout`` passed."""
        self.thread.join(timeout)
        self.closed.set()
        return list(self.messages)


@dataclass
class Measured:
    """One witnessed measurement: what the worker declared, and each run's validated calls."""

    label: str
    sides: list[str]
    info: dict[str, Any]
    runs: list[dict[str, SideRun]] = field(default_factory=list)
    windows: list[dict[str, list[float]]] = field(default_factory=list)  # us, as runs
    regap: list[tuple[int, str, float, str]] = field(default_factory=list)  # see ``_gaps``

    def timed_from_windows(self) -> None:
        """Every run side ``_gaps`` found noisy timed from its windows (less the base gap)."""
        for r, name, base, _ in self.regap:
            side, windows = self.runs[r][name], self.windows[r][name]
            side.wall_us = [w - base for w in windows]
            if side.event_us:
                side.event_us = [min(e, w) for e, w in zip(side.event_us, side.wall_us,
                                                            strict=True)]  # fmt: skip


def audit(messages: list[tuple[int, bytes]], gaps: bool = True
          ) -> tuple[dict[str, Measured], list[str]]:  # fmt: skip
    """Rebuild the measurements from the witnessed messages; the problems found (a broken
    sequence, a sample longer than its window, and with ``gaps`` a candidate gap beyond the
    reference's: off where times mean nothing, so that forging them gains nothing either)."""
    out: dict[str, Measured] = {}
    problems: list[str] = []
    current: Measured | None = None
    pending: tuple[int, tuple] | None = None
    for stamp, data in messages:
        tag = data[:1]
        try:
            if stamp < 0:
                raise ValueError("a message without the kernel's time stamp")
            if tag == b"M":
                if pending is not None:
                    raise ValueError("a measurement declared inside a timed window")
                info = json.loads(data[1:])
                label, sides = str(info.pop("label")), [str(s) for s in info.pop("sides")]
                if label in out:
                    raise ValueError(f"measurement {label!r} declared twice")
                current = out[label] = Measured(label, sides, info)
            elif tag == b"S":
                if pending is not None or current is None:
                    raise ValueError("a window opened twice or before any measurement")
                pending = (stamp, _OPEN.unpack(data)[1:])
            elif tag == b"E":
                if pending is None or current is None:
                    raise ValueError("a window closed that was never opened")
                _, m, run, side, call, wall_ns, event_us, checked = _CLOSE.unpack(data)
                if (m, run, side, call) != pending[1]:
                    raise ValueError(f"window {pending[1]} closed as {(m, run, side, call)}")
                _record(current, run, side, call, stamp - pending[0], wall_ns, event_us,
                        bool(checked), problems)  # fmt: skip
                pending = None
            else:
                raise ValueError(f"an unknown message {data[:16]!r}")
        except (ValueError, KeyError, TypeError, IndexError, struct.error) as exc:
            problems.append(f"witness sequence broken: {exc}")
            return out, problems
    if pending is not None:
        problems.append("a timed window never closed")
    for m in out.values() if gaps else ():
        forged, m.regap = _gaps(m)
        problems += forged
    return out, problems


def _record(m: Measured, run: int, side: int, call: int, window_ns: int, wall_ns: int,
            event_us: float, checked: bool, problems: list[str]) -> None:  # fmt: skip
    """One witnessed call into its measurement; a sample longer than its window is a problem."""
    if run == len(m.runs):
        m.runs.append({s: SideRun() for s in m.sides})
        m.windows.append({s: [] for s in m.sides})
    name = m.sides[side]
    calls = m.runs[run][name]
    if run != len(m.runs) - 1 or call != len(calls.wall_us) or wall_ns < 0:
        raise ValueError(f"call {call} of run {run}, side {name}, out of order")
    calls.wall_us.append(wall_ns / 1e3)
    calls.checked.append(checked)
    if event_us >= 0:
        calls.event_us.append(event_us)
    m.windows[run][name].append(window_ns / 1e3)
    if wall_ns > window_ns + SLACK_NS or event_us * 1e3 > window_ns + SLACK_NS:
        problems.append(f"{m.label} {name} call {call} of run {run}: a sample of "
                        f"{max(wall_ns / 1e3, event_us):.1f} us in a witnessed window of "
                        f"{window_ns / 1e3:.1f} us")  # fmt: skip


def _gaps(m: Measured) -> tuple[list[str], list[tuple[int, str, float, str]]]:
    """Per run: the smallest window-minus-sample of every side against the reference's. The
    part of a window outside its sample is two system calls, the same code for every side; a
    descheduled worker stretches some windows, never all, so the smallest gap is the clean one,
    and a sample shortened by a factor shortens every call's.

    Returns (forged, regap). A side whose gap exceeds the reference's by more than noise
    (``GAP_SLACK_*``) is timed from its witnessed windows instead of its samples (each window
    less the reference's gap): a loaded host makes the system call after some candidates'
    calls several microseconds slower, and cutting samples then gains nothing. Beyond
    ``GAP_FORGED_*`` (half the window: samples cut by a factor) the run is forged."""
    forged: list[str] = []
    regap: list[tuple[int, str, float, str]] = []
    for r, (run, windows) in enumerate(zip(m.runs, m.windows, strict=True)):
        gaps = {name: min(w - s for w, s in zip(windows[name], run[name].wall_us, strict=True))
                for name in m.sides if len(run[name].wall_us) >= 3}  # fmt: skip
        base = max(0.0, gaps.get("reference", min(gaps.values(), default=0.0)))
        for name, gap in gaps.items():
            shortest = min(windows[name])
            excess = gap - base
            if excess > max(GAP_FORGED_US, GAP_FORGED_SHARE * shortest):
                forged.append(f"{m.label} {name} run {r}: every sample at least {gap:.1f} us "
                              f"shorter than its witnessed window (the reference's: "
                              f"{base:.1f} us)")  # fmt: skip
            elif excess > max(GAP_SLACK_US, GAP_SLACK_SHARE * shortest):
                regap.append((r, name, base, f"{m.label} {name} run {r}: {excess:.1f} us more "
                              "of every window outside its samples than the reference's"))  # fmt: skip
    return forged, regap


def settle(result: VariantResult, messages: list[tuple[int, bytes]], *,
           meaningful: bool) -> VariantResult:  # fmt: skip
    """A pass worker's result with its timing fields recomputed from the witnessed samples,
    or rejected (``timing-forged``) where the samples do not hold against their windows, the
    worker's own fields disagree with them, or a timed result was not witnessed at all. A side
    whose windows leave out more than the reference's beyond noise is timed from its windows
    (the non-fatal ``timing-gap``; ``_gaps``).
    ``meaningful``: whether this worker's times can mean anything (not Triton's interpreter)."""
    measured, problems = audit(messages, gaps=meaningful)
    if result.candidate is None:  # not timed (failed before or during timing)
        return result
    update: dict[str, Any] = {}
    if "main" not in measured or "probe" not in measured:
        problems.append("the result has timings but its timed calls were not witnessed")
    else:
        update = _recomputed(measured)
        for key in ("speedup", "speedup_vs_inductor", "call_overhead_us"):
            mine, theirs = update.get(key), getattr(result, key)
            if (mine is None) != (theirs is None) or (
                    mine is not None and abs(mine - theirs) > 1e-9 * abs(mine)):  # fmt: skip
                problems.append(f"the worker reported {key} {theirs}, its witnessed samples "
                                f"give {mine}")  # fmt: skip
        regap = [why for m in measured.values() for *_, why in m.regap]
        if regap and not problems:
            for m in measured.values():
                m.timed_from_windows()
            update = _recomputed(measured)
            note = Finding(check="timing-gap", fatal=False, phase="timing", detail=(
                "timed from the witnessed windows: " + "; ".join(regap[:3])))  # fmt: skip
            update["integrity"] = [*result.integrity, note]
    if not meaningful:
        if result.timing_meaningful:
            problems.append("timing_meaningful claimed for interpreted kernels")
        update["timing_meaningful"] = False
    if problems:
        detail = "; ".join(problems[:4]) + (
            f" (+{len(problems) - 4} more)" if len(problems) > 4 else ""
        )
        update |= {
            "integrity": [*result.integrity,
                          Finding(check="timing-forged", detail=detail, phase="timing")],
            "status": Status.REJECTED,
            "error_class": STATUS_ERROR_CLASS[Status.REJECTED],
            "error": f"integrity: timing-forged: {detail}",
        }  # fmt: skip
    return result.model_copy(update=update)


def _recomputed(measured: dict[str, Measured]) -> dict[str, Any]:
    """The result's timing fields from the witnessed measurements."""
    timed = {}
    for label in ("main", "probe"):
        m = measured[label]
        info = m.info
        run = kept_run(m.runs, info["noise_limit"])
        timed[label] = side_timings(run, info["rounds"], info["block"], info["noise_limit"])
    info = measured["main"].info
    fields, _ = timing_fields(timed["main"], timed["probe"], calls=info["calls"],
                              ci_target=info.get("ci_target"), cap=info["cap"])  # fmt: skip
    return fields
