#!/usr/bin/env bash
# The main job: benchmark the bundled suite (eager, Inductor and the bundled pass) and write a
# report. GPU if there is one, else CPU (Triton kernels then run in Triton's interpreter).
# Rerunning continues where a previous run stopped; baselines are cached in runs/passnet.db.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
DEVICE=$(.venv/bin/python -c "import torch; print('cuda' if torch.cuda.is_available() else 'cpu')")
.venv/bin/passnet bench --device "$DEVICE" \
  --candidates eager,inductor,passes:examples/passes/add_layer_norm "$@"
.venv/bin/passnet report latest --out runs/report
