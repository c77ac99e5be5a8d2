"""One timed phase at a time per device, across every process of this host.

Workers prepare in parallel (load, match and rewrite, compile, correctness trials, ghost
check, Inductor's compile); only the timed phase holds its device's lock, an exclusive
``flock`` on one file per device. So two timings never overlap on a GPU, whether they come
from one ``passnet bench`` with several workers per device or from two commands started side
by side, and a lock held by a worker that dies is released by the kernel with its last
descriptor.

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
    """The timing lock of one device; ``acquire`` blocks and returns the seconds it waited."""

    def __init__(self, folder: str | Path, device: torch.device) -> None:
        key = device_key(device)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in key)[:80]
        digest = hashlib.sha256(key.encode()).hexdigest()[:8]
        self.path = Path(folder) / f"timing-{safe}-{digest}.lock"
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        self._fd: int | None = os.open(self.path, flags, 0o600)
        self.held = False

    def acquire(self) -> float:
        if self._fd is None:
            raise RuntimeError(f"{self.path}: lock already closed")
        t0 = time.perf_counter()
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        self.held = True
        return time.perf_counter() - t0

    def release(self) -> None:
        if self._fd is not None and self.held:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            self.held = False

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the lock too
            self._fd, self.held = None, False
