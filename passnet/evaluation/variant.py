"""Evaluate one variant under one candidate: the body of a worker process.

The phases (setup, build, correctness, ghost, timing) are the methods of
``passnet.evaluation.phases.VariantRun``; this module is what a worker imports before its
request arrives (the error formatting it shares with the worker, the sandbox facts), and
``run_variant``, which imports the phases only when a request is evaluated.
"""

from __future__ import annotations

import os
import resource
import traceback
from typing import Any

from passnet.core.results import VariantResult
from passnet.evaluation.isolation import netns
from passnet.evaluation.request import WorkerRequest


def short_error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 2000 else text[:2000] + " ..."


def error_site(exc: BaseException) -> str:
    """The innermost frame of a traceback, so a pass author sees the failing line."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f" (at {os.path.basename(f.filename)}:{f.lineno})"


def sandbox_facts(req: WorkerRequest, fraction: float | None) -> dict[str, Any]:
    """What the worker can see of its own sandbox (``result.sandbox``)."""
    own = netns()
    limit = None
    for kind in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
        soft, _ = resource.getrlimit(kind)
        if soft != resource.RLIM_INFINITY:
            limit = soft
            break
    return {
        "network_isolated": own != req.parent_netns if own and req.parent_netns else None,
        "memory_limit_bytes": limit,
        "cuda_memory_fraction": fraction,
    }


def run_variant(req: WorkerRequest) -> VariantResult:
    """Evaluate the request's variant; its result (failures included)."""
    from passnet.evaluation.phases import VariantRun

    return VariantRun(req).run()
