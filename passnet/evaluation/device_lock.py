"""One timed phase at a time per device, and no preparation on it while one times.

Workers prepare in parallel (load, match and rewrite, compile, correctness trials, ghost
check, Inductor's compile) and take turns to time: a reader-writer lock per device across
every process of this host. A worker holds it *shared* while its preparation runs work on
the device, and *exclusive* while it times, so two timings never overlap on a device and no
other worker's correctness trials, CUDA context creation or kernel loads share the GPU with
a timing (on a GPU, work of another process is time-sliced with the timed stream: the
timed calls then wait for the other context, a bias the lock removes). This holds whether
the workers come from one ``passnet bench`` with several workers per device or from two
commands started side by side, and a lock held by a worker that dies is released by the
kernel with its last descriptor.

The lock is two ``flock``s: the device's file (shared or exclusive) and a gate beside it that
every acquirer passes through and a waiting timer holds, so a stream of preparers, each
holding the lock shared for a moment, cannot starve a timer (writer preference).

The file is named by what the device is, not by how this process numbers it: a GPU by its
UUID (``CUDA_VISIBLE_DEVICES`` renumbers GPUs per process), the CPU by the host. The folder is
chosen by the driver (``lock_dir``) and handed to the worker in its request.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from pathlib import Path

import torch

ENV_DIR = "PASSNET_LOCK_DIR"
ENV_SWITCH = "PASSNET_TIMING_LOCK"


def lock_dir() -> Path:
    """``$PASSNET_LOCK_DIR``, else ``passnet-locks-<uid>`` in the driver's temp folder."""
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env)
    base = os.environ.get("TMPDIR") or "/tmp"
    return Path(base) / f"passnet-locks-{os.getuid()}"


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "off", "false", "no")


def device_key(device: torch.device) -> str:
    """A name for the physical device: the GPU's UUID (or PCI address), or ``cpu``."""
    if device.type != "cuda":
        return "cpu"
    props = torch.cuda.get_device_properties(device)
    uuid = getattr(props, "uuid", None)
    if uuid is not None:
        return f"cuda-{uuid}"
    pci = [getattr(props, k, None) for k in ("pci_domain_id", "pci_bus_id", "pci_device_id")]
    if all(v is not None for v in pci):
        return "cuda-pci-" + "-".join(str(v) for v in pci)
    return f"cuda-{props.name}-{device.index}".replace(" ", "_")


class DeviceLock:
    """The lock of one device: ``acquire`` (exclusive, to time) and ``acquire_shared`` (to
    prepare) block and return the seconds waited; ``release`` drops either. Not re-entrant:
    release a shared hold before asking for the exclusive one."""

    def __init__(self, folder: str | Path, device: torch.device) -> None:
        key = device_key(device)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in key)[:80]
        digest = hashlib.sha256(key.encode()).hexdigest()[:8]
        self.path = Path(folder) / f"timing-{safe}-{digest}.lock"
        self.gate_path = self.path.with_suffix(".gate")
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        self._fd: int | None = os.open(self.path, flags, 0o600)
        self._gate: int | None = os.open(self.gate_path, flags, 0o600)
        self.held: str | None = None  # "exclusive", "shared" or None

    def _take(self, mode: int, name: str) -> float:
        fd, gate = self._fd, self._gate
        if fd is None or gate is None:
            raise RuntimeError(f"{self.path}: lock already closed")
        if self.held:
            raise RuntimeError(f"{self.path}: already held {self.held}")
        t0 = time.perf_counter()
        fcntl.flock(gate, fcntl.LOCK_EX)  # behind any timer already waiting
        try:
            fcntl.flock(fd, mode)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        self.held = name
        return time.perf_counter() - t0

    def acquire(self) -> float:
        """Exclusive: no other timing and no preparation on the device until ``release``."""
        return self._take(fcntl.LOCK_EX, "exclusive")

    def acquire_shared(self) -> float:
        """Shared with other preparers; waits while a timer holds or awaits the lock."""
        return self._take(fcntl.LOCK_SH, "shared")

    def release(self) -> None:
        if self._fd is not None and self.held:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            self.held = None

    def close(self) -> None:
        for fd in (self._fd, self._gate):
            if fd is not None:
                os.close(fd)  # releases the lock too
        self._fd = self._gate = None
        self.held = None
