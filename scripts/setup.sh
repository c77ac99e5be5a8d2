#!/usr/bin/env bash
# Create (or reuse) .venv with PyTorch, Triton and passnet installed editable, dev tools included.
# PASSNET_TORCH picks the torch requirement (default torch==2.13.0, a CPU build where one is
# on local disk; any torch>=2.9 works).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if ! .venv/bin/python -c "import passnet, torch, triton, pytest, xdist, ruff, importlinter, trl, setuptools" >/dev/null 2>&1; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q "${PASSNET_TORCH:-torch==2.13.0}"
  .venv/bin/python -m pip install -q -e ".[dev]"
fi
