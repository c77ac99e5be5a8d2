#!/usr/bin/env bash
# Issue 17 on the GPU machine: whole models compiled with the pass library (examples/passes plus
# the synthesizer's passes for the bundled suite), outputs checked against eager, and end-to-end
# latency of eager, Inductor (default, reduce-overhead) and passnet (Inductor, reduce-overhead)
# timed side by side; one JSON per model and batch in $OUT/accelerate, a table in
# $OUT/accelerate/table.md. MODELS and BATCHES override the lists (MODEL@SIZE sets --size);
# SYNTH=DIR picks the synthesizer's library (below). Torchvision and timm models need those packages
# (their wheels in .whl/, as for scripts/gpu_check.sh); a model whose library is missing is
# reported and skipped. ACCEL_ARGS adds options to every timed run (e.g. "--tune", "--dtype
# bfloat16"); MODEL#H in MODELS builds a transformers model at hidden size H (--hidden).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT/accelerate"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/accelerate/gpu.txt"
# The synthesizer's library (without its folders verified slower than eager on their task:
# MIN_SPEEDUP, 1.0): the committed one (examples/synth_passes), or SYNTH=DIR (any
# folder holding pass folders: a synth --out folder, a bench's synth cache). SYNTH=new
# synthesises here first (minutes of device time) the suites in SYNTH_FROM (default the bundled
# suite) with SYNTH_ARGS (e.g. "-k *layer_norm* --keep correct", not globbed here): generic
# rules unless told otherwise; the library comes back as $OUT/accelerate/synth-lib.tgz.
SYNTH=${SYNTH:-examples/synth_passes}
if [ "$SYNTH" = new ]; then
  SYNTH=/tmp/accel-synth
  set -f  # SYNTH_ARGS' globs are synth's
  for src in ${SYNTH_FROM:-examples/suite}; do
    # shellcheck disable=SC2086
    python3 -m passnet.cli synth "$src" --out "$SYNTH/$(basename "$src")" --device cuda --workers 8 \
      ${SYNTH_ARGS:-} > "$OUT/accelerate/synth-$(basename "$src").log" 2>&1
    tail -4 "$OUT/accelerate/synth-$(basename "$src").log"
  done
  set +f
  tar czf "$OUT/accelerate/synth-lib.tgz" -C /tmp accel-synth
fi
MODELS=${MODELS:-"bert gpt2 t5-encoder vit clip-vision swin convnext whisper-encoder \
  torchvision/resnet18@224 torchvision/mobilenet_v3_small@224 torchvision/vit_b_16@224 \
  timm/resnet10t@224 timm/levit_128s@224"}
# WARM=1 first compiles and checks every (model, batch) with --no-time, WARM_JOBS at a time, so
# that the timed runs below find Inductor's caches (/tmp/torchinductor_*) warm and each spends
# its time timing instead of compiling; the warm-up runs' verdicts land in $OUT/accelerate/warm.
if [ "${WARM:-0}" = 1 ]; then
  mkdir -p "$OUT/accelerate/warm"
  for entry in $MODELS; do for b in ${BATCHES:-1 8}; do echo "$entry $b"; done; done |
    xargs -P "${WARM_JOBS:-4}" -L 1 sh -c 'model=${0%@*}; size=""
      [ "$0" != "$model" ] && size="--size ${0#*@}"
      tag=$(echo "$model-b$1" | tr "/" "_")
      python3 -m passnet.cli accelerate "$model" --passes examples/passes --passes "'"$SYNTH"'" \
        --min-speedup "'"${MIN_SPEEDUP:-1.0}"'" --device cuda --batch "$1" $size --no-time > "'"$OUT"'/accelerate/warm/$tag.log" 2>&1
      echo "warm $model b$1: exit $?"'
fi
for entry in $MODELS; do
  hidden=""
  case "$entry" in *"#"*) hidden="--hidden ${entry#*#}"; entry=${entry%#*} ;; esac
  model=${entry%@*}; size=""
  [ "$entry" != "$model" ] && size="--size ${entry#*@}"
  for b in ${BATCHES:-1 8}; do
    tag=$(echo "$model-b$b${hidden:+-h${hidden#--hidden }}" | tr '/' '_')
    echo "== $model batch $b"
    # shellcheck disable=SC2086
    python3 -m passnet.cli accelerate "$model" --passes examples/passes --passes "$SYNTH" \
      --min-speedup "${MIN_SPEEDUP:-1.0}" --device cuda --batch "$b" $size $hidden ${ACCEL_ARGS:-} \
      --json "$OUT/accelerate/$tag.json" 2>&1 | tail -16
  done
done
python3 - "$OUT/accelerate" <<'EOF' | tee "$OUT/accelerate/table.md"
import json, sys
from pathlib import Path
sides = ["eager", "inductor", "inductor-ro", "passnet", "passnet-ro"]
print("| model | shape | fired | sites fused | t (passnet) | " + " | ".join(f"{s} µs" for s in sides)
      + " | eager/passnet | inductor/passnet | inductor-ro/passnet-ro |")
print("|" + "---|" * (len(sides) + 8))
for f in sorted(Path(sys.argv[1]).glob("*.json")):  # the timed runs only
    d = json.loads(f.read_text())
    med = {s: d["timing"].get(s, {}).get("wall", {}).get("median_us") for s in sides}
    sp = d["speedups"]
    cells = [f"{med[s]:,.0f}" if med[s] else "-" for s in sides]
    ratios = [f"{sp[k]:.3f}x" if k in sp else "-"
              for k in ("eager/passnet", "inductor/passnet", "inductor-ro/passnet-ro")]
    t = d["checks"].get("passnet", {}).get("tightest_t")
    fused = ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in d.get("sites", {}).items() if v[0])
    print(f"| {d['model']} | {d['shape']} | {d['fired']} | {fused or '-'} | {t} | "
          + " | ".join(cells + ratios) + " |")
EOF
