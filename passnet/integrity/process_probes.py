"""What a worker process and its device look like from outside torch: native threads and
child processes (from ``/proc``), and the device's persisting-L2 limit (through the CUDA
runtime the process already loaded). The runtime checks compare these before and after a
candidate's calls; the fork server's zygote checks it is single-threaded before forking.
Imports no torch: cheap for any process to read.
"""

from __future__ import annotations

import ctypes
import functools
import os
from typing import Any

_CUDA_LIMIT_PERSISTING_L2 = 0x06


def native_threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return -1


def child_pids() -> list[int]:
    pids: list[int] = []
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as f:
                pids += [int(p) for p in f.read().split()]
    except OSError:
        pass
    return pids


@functools.cache
def _cudart() -> Any:
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "libcudart.so" in line}
        return ctypes.CDLL(sorted(paths)[0]) if paths else None
    except (OSError, IndexError):
        return None


def l2_persisting_limit() -> int | None:
    """cudaLimitPersistingL2CacheSize of the current device (None when unavailable)."""
    lib = _cudart()
    if lib is None:
        return None
    value = ctypes.c_size_t(0)
    if lib.cudaDeviceGetLimit(ctypes.byref(value), _CUDA_LIMIT_PERSISTING_L2) != 0:
        return None
    return int(value.value)


def set_l2_persisting_limit(nbytes: int) -> None:
    lib = _cudart()
    if lib is not None:
        lib.cudaDeviceSetLimit(_CUDA_LIMIT_PERSISTING_L2, ctypes.c_size_t(nbytes))
