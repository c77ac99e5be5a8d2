#!/usr/bin/env bash
# Issue 17 on the GPU machine: whole models compiled with the pass library (examples/passes plus
# the synthesizer's passes for the bundled suite), outputs checked against eager, and end-to-end
# latency of eager, Inductor (default, reduce-overhead) and passnet (Inductor, reduce-overhead)
# timed side by side; one JSON per model, size, batch and dtype in $OUT/accelerate (named
# MODEL-bB[-sS][-hH]-DTYPE.json, '/' as '_'), each run's whole output in $OUT/accelerate/log, a
# table in $OUT/accelerate/table.md (scripts/zoo_table.py). Environment:
#   MODELS        entries MODEL[@SIZE][#H]: @SIZE sets --size, #H builds a transformers model at
#                 hidden size H (--hidden); default: the list below
#   BATCHES       batch sizes (default "1 8")
#   ACCEL_ARGS    options added to every run, warm-up or timed (e.g. "--tune --dtype bfloat16");
#                 its --dtype (default float32) goes into the JSON's name
#   MIN_SPEEDUP   --min-speedup for the synthesised library (default 1.0)
#   SYNTH         the synthesizer's library: DIR, or "new" (below); default examples/synth_passes
#   SYNTH_FROM, SYNTH_ARGS, SYNTH_BUDGET   SYNTH=new's suites, options and seconds per suite (240)
#   MODEL_BUDGET  seconds per (model, batch) run, warm-up or timed (default 300): the run gets
#                 SIGINT then (SIGKILL 30 s later), is logged and listed in $OUT/accelerate/timeouts.txt
#   WARM, WARM_JOBS   WARM=1 compiles every run first, WARM_JOBS (4) at a time (below)
#   SKIP_DONE     1: skip a (model, batch) whose JSON is already in $OUT/accelerate (a second
#                 GPU call resumes after copying the first one's $OUT/accelerate back)
#   PASSNET_TUNE_CACHE  --tune's decisions (default $OUT/accelerate/tune.sqlite, so they come
#                 back with the results); TUNE_CACHE_IN=FILE copies a previous cache there first
#   DRY_RUN       1: print every command instead of running it (needs no GPU, nvidia-smi or torch)
#   OUT           the results folder (default out)
# Torchvision and timm models need those packages (their wheels in .whl/, as for
# scripts/gpu_check.sh); a model whose library is missing is reported and skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; ACC=$OUT/accelerate; mkdir -p "$ACC/log"
DRY=${DRY_RUN:-0}
MODEL_BUDGET=${MODEL_BUDGET:-300}
# show CMD...: the command as one shell-quoted line (what DRY_RUN=1 prints)
show() { local q; printf -v q '%q ' "$@"; echo "${q% }"; }
if [ "$DRY" != 1 ]; then
  if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
  else
    export PYTHONPATH=$PWD
  fi
  nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$ACC/gpu.txt"
fi
export PYTHONUNBUFFERED=1
export PASSNET_TUNE_CACHE=${PASSNET_TUNE_CACHE:-$ACC/tune.sqlite}
if [ -n "${TUNE_CACHE_IN:-}" ]; then
  if [ ! -f "$TUNE_CACHE_IN" ]; then
    echo "TUNE_CACHE_IN=$TUNE_CACHE_IN: no such file; --tune starts from $PASSNET_TUNE_CACHE as it is"
  elif [ ! "$TUNE_CACHE_IN" -ef "$PASSNET_TUNE_CACHE" ]; then
    if [ "$DRY" = 1 ]; then show cp "$TUNE_CACHE_IN" "$PASSNET_TUNE_CACHE"
    else cp "$TUNE_CACHE_IN" "$PASSNET_TUNE_CACHE"; fi
  fi
fi
echo "tune cache: $PASSNET_TUNE_CACHE"
# The synthesizer's library (without its folders verified slower than eager on their task:
# MIN_SPEEDUP, 1.0): the committed one (examples/synth_passes), or SYNTH=DIR (any
# folder holding pass folders: a synth --out folder, a bench's synth cache). SYNTH=new
# synthesises here first (minutes of device time) the suites in SYNTH_FROM (default the bundled
# suite) with SYNTH_ARGS (e.g. "-k *layer_norm* --keep correct", not globbed here), each within
# SYNTH_BUDGET seconds (SIGINT then; the pass folders it wrote before stay in the library):
# generic rules unless told otherwise; the library comes back as $OUT/accelerate/synth-lib.tgz.
SYNTH=${SYNTH:-examples/synth_passes}
if [ "$SYNTH" = new ]; then
  SYNTH=/tmp/accel-synth
  set -f  # SYNTH_ARGS' globs are synth's
  for src in ${SYNTH_FROM:-examples/suite}; do
    name=$(basename "$src")
    # shellcheck disable=SC2086
    cmd=(timeout -s INT -k 30 "${SYNTH_BUDGET:-240}" python3 -m passnet.cli synth "$src"
         --out "$SYNTH/$name" --device cuda --workers 8 ${SYNTH_ARGS:-})
    if [ "$DRY" = 1 ]; then echo "synth $name: $(show "${cmd[@]}")"; continue; fi
    "${cmd[@]}" > "$ACC/synth-$name.log" 2>&1
    rc=$?
    tail -4 "$ACC/synth-$name.log"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      echo "synth $name: hit SYNTH_BUDGET (${SYNTH_BUDGET:-240} s); its library holds what it wrote before" |
        tee -a "$ACC/timeouts.txt"
    fi
  done
  set +f
  [ "$DRY" = 1 ] || tar czf "$ACC/synth-lib.tgz" -C /tmp accel-synth
fi
MODELS=${MODELS:-"bert gpt2 t5-encoder vit clip-vision swin convnext whisper-encoder \
  torchvision/resnet18@224 torchvision/mobilenet_v3_small@224 torchvision/vit_b_16@224 \
  timm/resnet10t@224 timm/levit_128s@224"}

# accel_args ENTRY BATCH: `passnet accelerate`'s arguments for one MODEL[@SIZE][#H] entry at one
# batch size (without --json / --no-time), in the array ARGS, and the run's name in TAG:
# MODEL-bB[-sS][-hH]-DTYPE, '/' as '_'. The warm-up and the timed loop both build their runs here.
accel_args() {
  local entry=$1 b=$2 model hidden="" size="" dtype=float32 i
  local -a extra
  case "$entry" in *"#"*) hidden=${entry##*#}; entry=${entry%#*} ;; esac
  model=${entry%@*}
  [ "$entry" != "$model" ] && size=${entry##*@}
  read -ra extra <<< "${ACCEL_ARGS:-}"  # split on blanks, never globbed
  for ((i = 0; i < ${#extra[@]}; i++)); do
    case "${extra[i]}" in
      --dtype) dtype=${extra[i + 1]:-$dtype} ;;
      --dtype=*) dtype=${extra[i]#--dtype=} ;;
    esac
  done
  ARGS=("$model" --passes examples/passes --passes "$SYNTH" --min-speedup "${MIN_SPEEDUP:-1.0}"
        --device cuda --batch "$b")
  [ -n "$size" ] && ARGS+=(--size "$size")
  [ -n "$hidden" ] && ARGS+=(--hidden "$hidden")
  ARGS+=(${extra[@]+"${extra[@]}"})
  TAG=$model-b$b${size:+-s$size}${hidden:+-h$hidden}-$dtype
  TAG=${TAG//\//_}
}

# done_already: SKIP_DONE=1 and the JSON of TAG is there
done_already() { [ "${SKIP_DONE:-0}" = 1 ] && [ -s "$ACC/$TAG.json" ]; }

# budget_hit WHAT RC: log a run that MODEL_BUDGET stopped (timeout's 124, or 137 after SIGKILL)
budget_hit() {
  if [ "$2" = 124 ] || [ "$2" = 137 ]; then
    echo "$1: hit MODEL_BUDGET (${MODEL_BUDGET} s), stopped" | tee -a "$ACC/timeouts.txt"
  fi
}

# WARM=1 first compiles and checks every (model, batch) with --no-time, WARM_JOBS at a time, so
# that the timed runs below find Inductor's caches (/tmp/torchinductor_*) warm and each spends
# its time timing instead of compiling; the warm-up runs' verdicts land in $OUT/accelerate/warm.
# With WARM_JOBS above 1 the warm-ups share the GPU, so --tune's decisions made there would be
# timed under contention: they go to a scratch cache, and the timed runs tune for themselves.
if [ "${WARM:-0}" = 1 ]; then
  mkdir -p "$ACC/warm"
  jobs_max=${WARM_JOBS:-4}
  warm_cache=$PASSNET_TUNE_CACHE
  [ "$jobs_max" -gt 1 ] && warm_cache=$ACC/warm/tune-scratch.sqlite
  for entry in $MODELS; do
    for b in ${BATCHES:-1 8}; do
      accel_args "$entry" "$b"
      done_already && continue
      cmd=(env PASSNET_TUNE_CACHE="$warm_cache" timeout -s INT -k 30 "$MODEL_BUDGET"
           python3 -m passnet.cli accelerate "${ARGS[@]}" --no-time)
      if [ "$DRY" = 1 ]; then echo "warm $TAG: $(show "${cmd[@]}")"; continue; fi
      while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
      (
        "${cmd[@]}" > "$ACC/warm/$TAG.log" 2>&1
        rc=$?
        echo "warm $TAG: exit $rc"
        budget_hit "warm $TAG" "$rc"
      ) &
    done
  done
  wait
fi
for entry in $MODELS; do
  for b in ${BATCHES:-1 8}; do
    accel_args "$entry" "$b"
    if done_already; then echo "== $TAG: $ACC/$TAG.json is there (SKIP_DONE=1), skipped"; continue; fi
    cmd=(timeout -s INT -k 30 "$MODEL_BUDGET" python3 -m passnet.cli accelerate "${ARGS[@]}"
         --json "$ACC/$TAG.json")
    if [ "$DRY" = 1 ]; then echo "timed $TAG: $(show "${cmd[@]}")"; continue; fi
    echo "== $TAG"
    "${cmd[@]}" 2>&1 | tee "$ACC/log/$TAG.log" | tail -16
    budget_hit "$TAG" "${PIPESTATUS[0]}"
  done
done
if [ "$DRY" = 1 ]; then
  echo "table: $(show python3 scripts/zoo_table.py "$ACC")"
else
  python3 scripts/zoo_table.py "$ACC" | tee "$ACC/table.md"
fi
