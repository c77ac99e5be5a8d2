#!/usr/bin/env bash
# Harness revisions timed side by side on one task, for "which change made the candidates
# slower" on the GPU machine: every line of PLAN is `label|folder|env|setting`, where folder
# holds a revision's passnet/ (`git archive REV passnet | tar x -C folder`, carried to the
# machine), env is space-separated VAR=value settings for that run (may be empty) and setting
# one of scripts/harness_probe.py's (default, no-audit, no-runtime). The lines run in order,
# ROUNDS times over (interleaved, so drift hits them alike), each in a process of its own;
# per run: the G-mean eager/candidate speedup and both sides' G-mean wall medians.
#   PLAN=bisect.plan TASK=examples/suite/fusible_add_layer_norm_1f059508 \
#     PASS=examples/synth_passes/fusible_add_layer_norm_1f059508/pass bash scripts/harness_bisect.sh
set -uo pipefail
cd "$(dirname "$0")/.."
HERE=$PWD
PLAN=${PLAN:?PLAN names the plan file}
TASK=$(realpath "${TASK:-examples/suite/fusible_add_layer_norm_1f059508}")
PASS=$(realpath "${PASS:-examples/synth_passes/fusible_add_layer_norm_1f059508/pass}")
for round in $(seq "${ROUNDS:-2}"); do
  while IFS='|' read -r label folder envs setting; do
    [ -z "$label" ] || [ "${label:0:1}" = "#" ] && continue
    root=$(realpath "$folder")
    # shellcheck disable=SC2086
    (cd "$root" && env $envs PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" timeout "${RUN_LIMIT:-90}" \
      python3 "$HERE/scripts/harness_probe.py" "$TASK" --pass-dir "$PASS" --device "${DEV:-cuda}" \
      --label "$label" --settings "${setting:-default}" --prepare-ahead "${AHEAD:-8}" 2>&1 \
      | grep -v "^[EW][0-9]" | python3 "$HERE/scripts/harness_bisect_row.py" "$round")
  done < "$PLAN"
done
