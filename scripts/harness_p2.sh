#!/usr/bin/env bash
# P2 with two harnesses side by side on this machine: one pass on a 9-variant task through a
# running `passnet serve`, one service per harness (this checkout's and HARNESS_OLD's, a folder
# holding another revision's passnet/: `git archive REV passnet | tar x -C old-harness`), both
# started together, then CALLS one-shot `passnet eval --server` calls each, alternating (new
# first). Results as $OUT/p2_new_N.json / p2_old_N.json, the client's wall in $OUT/p2.txt, and
# scripts/p2_summary.py's table last. TASK, PASS and DEV pick what is evaluated where; P2_ARGS
# adds `passnet eval` options to every call (e.g. "--prepare-ahead 8").
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
HERE=$PWD
OLD=${HARNESS_OLD:?HARNESS_OLD names the other harness folder}
TASK=$HERE/${TASK:-examples/suite/fusible_add_layer_norm_1f059508}
PASS=$HERE/${PASS:-examples/synth_passes/fusible_add_layer_norm_1f059508/pass}
DEV=${DEV:-cuda}
serve() {  # serve HARNESS_ROOT LOG, run with &: the job becomes the service itself (exec), so
  # the trap's kill reaches it (and it stops its workers), on a free port; its address in LOG
  cd "$1" && exec env PYTHONPATH="$1${PYTHONPATH:+:$PYTHONPATH}" python3 -m passnet.cli serve \
    --device "$DEV" --port 0 > "$2" 2> "$2.err"
}
serve "$HERE" /tmp/p2-serve-new.out & NEW_PID=$!
serve "$HERE/$OLD" /tmp/p2-serve-old.out & OLD_PID=$!
trap 'kill $NEW_PID $OLD_PID 2>/dev/null; wait' EXIT
for _ in $(seq 120); do  # both listening (a cold start imports torch and starts the workers)
  [ "$(grep -l 'http://' /tmp/p2-serve-new.out /tmp/p2-serve-old.out 2>/dev/null | wc -l)" = 2 ] \
    && break
  sleep 1
done
sleep "${WARM_S:-10}"  # the services' workers start, as a user's first model turn would let them
for call in $(seq "${CALLS:-4}"); do
  for h in new old; do
    root=$HERE; [ "$h" = old ] && root=$HERE/$OLD
    url=$(grep -o 'http://[0-9.:]*' "/tmp/p2-serve-$h.out" | head -1)
    TIMEFORMAT="P2 $h $call: %R s wall (client)"
    time (cd "$root" && PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" python3 -m passnet.cli eval \
      "$TASK" --pass-dir "$PASS" --device "$DEV" --server "$url" --json "$OUT/p2_${h}_$call.json" ${P2_ARGS:-} \
      2>&1 | grep -E "round trip")
  done
done 2>&1 | tee "$OUT/p2.txt"
cp /tmp/p2-serve-new.out.err "$OUT/serve_new.err"; cp /tmp/p2-serve-old.out.err "$OUT/serve_old.err"
python3 scripts/p2_summary.py "$OUT" | tee "$OUT/p2_summary.txt"
