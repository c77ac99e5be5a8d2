#!/usr/bin/env bash
# Set up and run the whole test suite (CPU; Triton kernels through Triton's interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check passnet tests scripts examples setup.py
.venv/bin/ruff format --check passnet tests scripts examples setup.py  # pyproject.toml excludes data
.venv/bin/python scripts/check_docs.py  # Markdown: no build-order narration, no broken links
.venv/bin/lint-imports  # the layers contract of pyproject.toml (README, "Layout")
.venv/bin/python -m mypy  # the packages named in pyproject.toml's [tool.mypy]
export TRITON_INTERPRET=1
# Two test processes (pytest-xdist; PASSNET_TEST_PROCESSES=0 runs them in this one): much of the
# suite waits on worker subprocesses, so two at once finish sooner on CI's 2 cores (docs/benchmarks.md).
exec .venv/bin/python -m pytest -q -m "not gpu" -p no:cacheprovider \
  -n "${PASSNET_TEST_PROCESSES:-2}" "$@"
