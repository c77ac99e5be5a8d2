#!/usr/bin/env bash
# The main job: benchmark the bundled suite (examples/suite: 30 fusible tasks) for eager,
# Inductor, the bundled pass and the synthesizer's pass library (examples/synth_passes: each
# task's own pass), then write a report. GPU if there is one: every variant
# (float32, float16, bfloat16). Else CPU: the float32 variants (66 of 198; Triton kernels run in
# Triton's interpreter), since reduced precision on CPU is not what the suite measures.
# Rerunning continues where a previous run stopped; baselines are cached in runs/passnet.db.
# Extra arguments go to `passnet bench` (e.g. --limit 5 for a quick look, --dtype float16).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
DEVICE=$(.venv/bin/python -c "import torch; print('cuda' if torch.cuda.is_available() else 'cpu')")
SCOPE=()
if [ "$DEVICE" = cpu ] && [[ " $* " != *" --dtype"* ]]; then SCOPE=(--dtype float32); fi
.venv/bin/passnet bench examples/suite --device "$DEVICE" "${SCOPE[@]}" \
  --candidates eager,inductor,passes:examples/passes/add_layer_norm,library:examples/synth_passes \
  "$@"
.venv/bin/passnet report latest --out runs/report
