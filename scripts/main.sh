#!/usr/bin/env bash
# The main job: evaluate the bundled pass on the bundled example task (GPU if there is one).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
DEVICE=$(.venv/bin/python -c "import torch; print('cuda' if torch.cuda.is_available() else 'cpu')")
mkdir -p runs
exec .venv/bin/passnet eval examples/tasks/bert_add_layer_norm \
  --pass-dir examples/passes/add_layer_norm --device "$DEVICE" --json runs/example.json "$@"
