#!/usr/bin/env bash
# Issue 18 on the GPU machine: the training chain with a ~0.44B-parameter random model.
# The synthesizer's 28 trajectories recorded on the H200 (docs/results/h200-2026-12-04-synth)
# -> chat dataset -> random Llama (hidden 1280, 24 layers) -> SFT steps (tokens/s, peak memory)
# -> that checkpoint driving `passnet agent run --backend hf` for one step -> GRPO steps with
# the evaluator's reward on the GPU (rewards logged). Results in $OUT/train.tgz.
# Needs the wheels of .whl/ (as scripts/gpu_check.sh) plus .whl-train/ (trl, datasets, dill,
# multiprocess, gymnasium, farama-notifications: see docs/training.md); carry both.
# SFT_STEPS, GRPO_STEPS, HIDDEN, LAYERS, HEADS, MAX_LENGTH override the sizes; DEVICE=cpu and
# SKIP_WHEELS=1 run it here as a smoke test (tiny sizes, no speed meaning).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT/train"
W=/tmp/passnet-train; rm -rf "$W"; mkdir -p "$W"
DEVICE=${DEVICE:-cuda}
if [ -z "${SKIP_WHEELS:-}" ] && ls .whl/*.whl .whl-train/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl .whl-train/*.whl && export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1
LOG=$OUT/train/chain.log
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
  python3 -c "import torch, transformers, trl, datasets, peft, accelerate, pyarrow; print({m.__name__: m.__version__ for m in (torch, transformers, trl, datasets, peft, accelerate, pyarrow)})"
  gunzip -c docs/results/h200-2026-12-04-synth/trajectories.jsonl.gz > "$W/trajectories.jsonl"
  python3 -m passnet.cli train export "$W/trajectories.jsonl" --out "$W/ds" \
    --exclude-suite examples/heldout
  python3 -m passnet.cli train stats "$W/ds"
  python3 -m passnet.cli train tiny-model "$W/model" --dataset "$W/ds" --hidden "${HIDDEN:-1280}" \
    --layers "${LAYERS:-24}" --heads "${HEADS:-10}" --vocab-size 32000
  python3 -c "
import sys, transformers
m = transformers.AutoModelForCausalLM.from_pretrained(sys.argv[1])
print(f'parameters: {sum(p.numel() for p in m.parameters()) / 1e9:.3f} B')" "$W/model"
  python3 -m passnet.cli train sft "$W/ds" --model "$W/model" --out "$W/sft" \
    --max-steps "${SFT_STEPS:-20}" --batch-size 8 --micro-batch-size 2 \
    --max-length "${MAX_LENGTH:-16384}" --save-steps 1000 --learning-rate 2e-5 ${SFT_ARGS:-}
  cp "$W/sft/train_metrics.json" "$OUT/train/sft_metrics.json"
  timeout 300 python3 -m passnet.cli agent run examples/suite/fusible_batch_norm_relu_9cfe87c2 \
    --backend hf --model "$W/sft" --max-steps 1 --max-tokens 64 --device "$DEVICE" --out "$W/agent"
  python3 -m passnet.cli train grpo examples/suite/fusible_batch_norm_relu_9cfe87c2 \
    --model "$W/sft" --out "$W/grpo" --steps "${GRPO_STEPS:-3}" --generations 4 \
    --batch-size 8 --max-completion-length 1024 --reward-device "$DEVICE" --reward-concurrency 4 ${GRPO_ARGS:-}
  cp "$W/grpo/grpo_metrics.json" "$W/grpo/rewards.jsonl" "$OUT/train/" 2>/dev/null
} 2>&1 | tee "$LOG"
tar czf "$OUT/train.tgz" -C "$OUT" train && rm -rf "$OUT/train"
