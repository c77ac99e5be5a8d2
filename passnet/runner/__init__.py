"""The benchmark runner: whole suites x candidates, resumable, baselines cached, local or Ray.

``passnet bench`` is the command; :func:`bench` the library entry point. Results go to a
SQLite store (:class:`Store`); ``passnet report`` turns runs into leaderboards.
"""

from passnet.core.results import default_parameters
from passnet.dataset.suite import DEFAULT_SUITE, load_suite
from passnet.runner.bench import BenchConfig, BenchSummary, bench
from passnet.runner.store import DEFAULT_STORE, Store

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
