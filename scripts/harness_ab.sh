#!/usr/bin/env bash
# The same candidates benched by two harnesses side by side on this machine, for "does a change
# of the evaluator change any score" checks: HARNESS_OLD names a folder holding another
# revision's passnet/ (here: `git archive REV passnet | tar x -C old-harness`, carried to the
# GPU machine), the other harness is this checkout. Each bench runs in its own store
# (/tmp/ab-old.db, /tmp/ab-new.db); the leaderboards and logs land in $OUT. REPS=2 repeats the
# pair (old, new, old, new) for the run-to-run noise beside the difference. NEW_ARGS: bench
# options for this checkout's harness only (e.g. --no-pin-cpus, which the old may not know).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
HERE=$PWD
SUITE=${SUITE:-examples/suite}
CANDIDATES=${CANDIDATES:-library:$HERE/examples/synth_passes}
OLD=${HARNESS_OLD:?HARNESS_OLD names the other harness folder}
for rep in $(seq "${REPS:-1}"); do
  for h in ${ORDER:-new old}; do
    root=$HERE; [ "$h" = old ] && root=$HERE/$OLD
    store=/tmp/ab-$h-$rep.db
    TIMEFORMAT="$h harness, run $rep: %R s"
    time (cd "$root" && PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" python3 -m passnet.cli bench \
      "$HERE/$SUITE" -c "$CANDIDATES" --device "${DEV:-cuda}" --store "$store" --seed 0 \
      --no-report ${BENCH_ARGS:-} $([ "$h" = new ] && echo "${NEW_ARGS:-}") \
      > "$OUT/ab_${h}_$rep.log" 2>&1)
    tail -4 "$OUT/ab_${h}_$rep.log"
    (cd "$root" && PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" python3 -m passnet.cli report \
      latest --store "$store" --out "/tmp/ab-report-$h-$rep" 2>&1 | tail -12) \
      | tee "$OUT/ab_${h}_${rep}_board.txt"
    gzip -c "$store" > "$OUT/ab-$h-$rep.db.gz"
  done
done
# variant by variant, per run: statuses, levels, findings, speedup ratios (new against old)
for rep in $(seq "${REPS:-1}"); do
  python3 scripts/ab_compare.py "$OUT/ab-old-$rep.db.gz" "$OUT/ab-new-$rep.db.gz" \
    --json "$OUT/ab_compare_$rep.json" 2>&1 | tee "$OUT/ab_compare_$rep.txt"
done
