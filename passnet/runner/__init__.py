"""The benchmark runner: whole suites x candidates, resumable, baselines cached, local or Ray.

``passnet bench`` is the command; :func:`bench` the library entry point. Results go to a
SQLite store (:class:`Store`); ``passnet report`` turns runs into leaderboards.

The names below are imported on first use (PEP 562), so that importing a light submodule
(``passnet.runner.store``'s constants, the evaluator service's client) does not import torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from passnet.core.results import default_parameters
    from passnet.dataset.suite import DEFAULT_SUITE, load_suite
    from passnet.runner.bench import BenchConfig, BenchSummary, bench
    from passnet.runner.store import DEFAULT_STORE, Store

_WHERE = {
    "default_parameters": "passnet.core.results",
    "DEFAULT_SUITE": "passnet.dataset.suite",
    "load_suite": "passnet.dataset.suite",
    "BenchConfig": "passnet.runner.bench",
    "BenchSummary": "passnet.runner.bench",
    "bench": "passnet.runner.bench",
    "DEFAULT_STORE": "passnet.runner.store",
    "Store": "passnet.runner.store",
}

__all__ = [
    "DEFAULT_STORE",
    "DEFAULT_SUITE",
    "BenchConfig",
    "BenchSummary",
    "Store",
    "bench",
    "default_parameters",
    "load_suite",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'passnet.runner' has no attribute {name!r}")
