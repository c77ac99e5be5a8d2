#!/usr/bin/env bash
# Everything that needs the GPU machine, in one call: GPU tests, call-path overheads, and the
# bundled example under eager, Inductor and the bundled pass (direct and Dynamo call paths), and
# the bundled suite (or one rebuilt here: SUITE_REBUILD=1); AB=1 adds the old/new harness A/B
# (below). EXAMPLE_BENCH=0, GPU_TESTS=0 and
# SUITE_BENCH=0 skip a part; PROBE=1 adds the per-layer timing probe (below); THROUGHPUT=1 adds the evaluator-throughput comparison, LATENCY=1
# repeated evaluations in one process and one-shot `passnet eval --server` calls, PROFILE=1
# the per-variant host/device profile of the synthesised passes, P3=1 the suite measured twice,
# NUMERICS=1 the loose half-precision variants against eager's own float32 run, DIAG=1 the
# Inductor zygote's forkability, the call that starts CUDA's driver threads in its image, and
# per-phase profiles of fresh workers (DIAG_PROFILES=0 skips those).
# Expects the wheels of packages missing there in .whl/ (see docs/benchmarks.md); writes to $OUT.
# DEV=cpu (with python3 on PATH being the project's venv) rehearses a flow here before it costs
# device time; REBUILD_ARGS adds scripts/build_suite.py options (a small rehearsal: --models
# bert-eager-attn,gpt2 --tasks 2 --min-families 2), SUITE_WORK and SUITE_STATE move its folders.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
DEV=${DEV:-cuda}
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1
# Bytecode ahead: where Python writes none itself (PYTHONDONTWRITEBYTECODE), every process
# would compile pydantic's and passnet's sources again (0.7 s for a `passnet eval` client)
python3 -m compileall -q -j 0 passnet $([ -d /tmp/site ] && echo /tmp/site) > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a "$OUT/gpu.txt"
python3 -c "import sys; print('writes bytecode:', not sys.dont_write_bytecode)" | tee -a "$OUT/gpu.txt"
TASK=${TASK:-examples/tasks/bert_add_layer_norm}
PASS=${PASS:-examples/passes/add_layer_norm}
run() { python3 -m passnet.cli eval "$TASK" --device "$DEV" "$@"; }
if [ "${EXAMPLE_BENCH:-1}" = 1 ]; then
  python3 scripts/bench_call_overhead.py --device "$DEV" | tee "$OUT/overhead.json"
  run --pass-dir "$PASS" --with-inductor --json "$OUT/pass_direct.json" 2>&1 | tail -25
  run --pass-dir "$PASS" --call-path dynamo --json "$OUT/pass_dynamo.json" 2>&1 | tail -6
  run --compiler inductor --json "$OUT/inductor.json" 2>&1 | tail -6
  run --compiler eager --json "$OUT/eager.json" 2>&1 | tail -6
fi
# THROUGHPUT=1: issue 14's measurements on the example task, side by side in this call: wall
# time of one evaluation with one worker per GPU vs PREPARE_AHEAD workers (compile ahead, time one
# at a time), and with adaptive trials; each twice, so the AS of repeated runs can be compared.
if [ "${THROUGHPUT:-0}" = 1 ]; then
  for rep in 1 2; do
    for mode in "--prepare-ahead 1" "--prepare-ahead ${PREPARE_AHEAD:-3}" \
        "--prepare-ahead ${PREPARE_AHEAD:-3} --trials 20 --ci-target 0.02 --max-trials 200"; do
      tag=$(echo "$mode" | tr -c 'a-z0-9' '_')
      TIMEFORMAT="run $rep, $mode: %R s wall"
      # shellcheck disable=SC2086
      time (python3 -m passnet.cli eval "$TASK" --device "$DEV" --pass-dir "$PASS" $mode \
        --json "$OUT/tp_${rep}_${tag}.json" 2>&1 | tail -3)
    done
  done 2>&1 | tee "$OUT/throughput.txt"
  tar czf "$OUT/throughput.tgz" "$OUT"/tp_*.json && rm -f "$OUT"/tp_*.json
fi
# LATENCY=1: issue 14's P2 as an agent or RL loop sees it: the same pass evaluated 4 times in
# one process (the fork server's zygote started once), one worker per variant; then again with
# the zygote prewarmed during a 10 s "first model turn", as the agent's evaluator does.
# LATENCY_INPROCESS=0 skips the in-process calls (only the service's one-shot calls run).
if [ "${LATENCY:-0}" = 1 ] && [ "${LATENCY_INPROCESS:-1}" = 1 ]; then
  python3 scripts/bench_eval_latency.py "$TASK" --pass-dir "$PASS" --device "$DEV" --repeat 4 \
    --json "$OUT/p2_inprocess.json" 2>&1 | tail -6 | tee "$OUT/latency.txt"
  python3 scripts/bench_eval_latency.py "$TASK" --pass-dir "$PASS" --device "$DEV" --repeat 2 \
    --think 10 --json "$OUT/p2_prewarmed.json" 2>&1 | tail -4 | tee -a "$OUT/latency.txt"
fi
if [ "${LATENCY:-0}" = 1 ]; then
  # P2 one-shot with a running evaluator service: `passnet eval --server` (client wall, from
  # the command's start to its result) against the service started 10 s before.
  python3 -m passnet.cli serve --device "$DEV" --port 0 > /tmp/serve.out 2>/tmp/serve.err &
  SERVE_PID=$!
  sleep 10
  URL=$(grep -o 'http://[0-9.:]*' /tmp/serve.out)
  for rep in 1 2 3; do
    TIMEFORMAT="service call $rep: %R s wall (client, one-shot)"
    time (python3 -m passnet.cli eval "$TASK" --pass-dir "$PASS" --device "$DEV" --server "$URL" \
      --json "$OUT/p2_service_$rep.json" 2>&1 | grep -E "round trip|^wrote")
  done 2>&1 | tee -a "$OUT/latency.txt"
  # issue 14's P2 names a ~10-variant task: a 9-variant suite task with its library pass
  # (both with the default --prepare-ahead: one worker per variant, up to 8, on a GPU)
  P2_TASK=${P2_TASK:-examples/suite/fusible_add_layer_norm_1f059508}
  P2_PASS=${P2_PASS:-examples/synth_passes/fusible_add_layer_norm_1f059508/pass}
  for rep in 1 2 3; do
    TIMEFORMAT="service call $rep, 9 variants: %R s wall (client, one-shot)"
    time (python3 -m passnet.cli eval "$P2_TASK" --pass-dir "$P2_PASS" --device "$DEV" \
      --server "$URL" --json "$OUT/p2_service_9v_$rep.json" 2>&1 | grep -E "round trip|^wrote")
  done 2>&1 | tee -a "$OUT/latency.txt"
  # P2_AHEAD=N: two more 9-variant calls with N workers (one per variant: N=9)
  for rep in ${P2_AHEAD:+1 2}; do
    TIMEFORMAT="service call $rep, 9 variants, --prepare-ahead $P2_AHEAD: %R s wall (client)"
    time (python3 -m passnet.cli eval "$P2_TASK" --pass-dir "$P2_PASS" --device "$DEV" \
      --server "$URL" --prepare-ahead "$P2_AHEAD" --json "$OUT/p2_service_9v_ahead_$rep.json" \
      2>&1 | tail -2)
  done 2>&1 | tee -a "$OUT/latency.txt"
  kill "$SERVE_PID"
  tar czf "$OUT/p2_service.tgz" "$OUT"/p2_service_*.json && rm -f "$OUT"/p2_service_*.json
fi
# NUMERICS=1: the pass vs eager and both vs eager's own float32 run, per variant, for the
# library's tasks whose half-precision variants pass only loose levels (scripts/numerics_probe.py)
if [ "${NUMERICS:-0}" = 1 ]; then
  mkdir -p "$OUT/numerics"
  for t in ${NUMERICS_TASKS:-fusible_layer_norm_58b3a67a \
      fusible_mul_permute_add_mean_etc_874d9f5b}; do
    python3 scripts/numerics_probe.py "examples/suite/$t" --pass-dir "examples/synth_passes/$t/pass" \
      --device "$DEV" --json "$OUT/numerics/$t.json" 2>&1 | tail -6
  done | tee "$OUT/numerics.txt"
  tar czf "$OUT/numerics.tgz" -C "$OUT" numerics && rm -rf "$OUT/numerics"
fi
# DIAG=1: whether the Inductor zygote's full image can be forked here (else its kind falls
# back to a light zygote) and which call starts the driver's threads in its image
# (scripts/trace_cuda_init.py), then where a fresh worker's phases go (scripts/profile_worker.py)
# for eager, Inductor and the library pass on DIAG_TASK, 3 variants each.
if [ "${DIAG:-0}" = 1 ]; then
  mkdir -p "$OUT/diag"
  python3 - <<'EOF2' 2>&1 | tee "$OUT/diag/zygote.txt"
import tempfile
from passnet.evaluation import forkserver, isolation
env = isolation.worker_env("cuda", tempfile.gettempdir(), trusted=True)
try:
    forkserver.Zygote("inductor", env, "cuda").stop()
    print("inductor zygote: full preload forkable")
except forkserver.ForkServerUnavailable as exc:
    print(f"inductor zygote: {exc}")
EOF2
  # which call starts the driver's threads in the Inductor image (scripts/trace_cuda_init.py)
  PYTORCH_NVML_BASED_CUDA_CHECK=1 python3 scripts/trace_cuda_init.py torch._inductor.compile_fx \
    passnet.evaluation.phases passnet.passes.launch triton 2>&1 | tee "$OUT/diag/cuinit.txt"
  T=${DIAG_TASK:-examples/suite/fusible_add_layer_norm_1f059508}
  [ "${DIAG_PROFILES:-1}" = 1 ] && for c in eager inductor pass; do
    extra=""; [ "$c" = pass ] && extra="--pass-dir examples/synth_passes/$(basename "$T")/pass"
    # shellcheck disable=SC2086
    python3 scripts/profile_worker.py "$T" --candidate "$c" $extra --device "$DEV" --variants 3 \
      --top 40 --json "$OUT/diag/$c.json" > "$OUT/diag/$c.txt" 2>&1
    echo "== $c"; grep -E "^graphs|imported during" "$OUT/diag/$c.txt"
  done
  tar czf "$OUT/diag.tgz" -C "$OUT" diag && rm -rf "$OUT/diag"
fi
# AB=1: the library benched by this harness and by the one in HARNESS_OLD (a folder holding
# another revision's passnet/: `mkdir old-harness && git archive REV passnet | tar x -C
# old-harness`, carried), side by side (scripts/harness_ab.sh; AB_BUDGET caps it): does a change
# of the evaluator change any score or flag an honest pass?
if [ "${AB:-0}" = 1 ]; then
  timeout -s INT "${AB_BUDGET:-400}" bash scripts/harness_ab.sh 2>&1 | tail -30 | tee "$OUT/ab.txt"
fi
# PROBE=1: where a candidate's timed calls spend their time (scripts/harness_probe.py): the
# 9-variant P2 task with its library pass under every layer, without the audit hook and
# without the runtime checks, one worker and eight; with HARNESS_OLD also that harness's
# default (run from its folder, so its passnet is imported).
if [ "${PROBE:-0}" = 1 ]; then
  # the SM clock every 100 ms meanwhile: launch-bound timing leaves the GPU idle between
  # calls, and an idle H200 clocks down to 345 MHz
  nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv -lms 100 \
    > "$OUT/probe_clocks.csv" 2>/dev/null &
  CLOCKS_PID=$!
  PT=$PWD/${P2_TASK:-examples/suite/fusible_add_layer_norm_1f059508}
  PP=$PWD/${P2_PASS:-examples/synth_passes/fusible_add_layer_norm_1f059508/pass}
  python3 scripts/harness_probe.py "$PT" --pass-dir "$PP" --device "$DEV" --label new \
    --prepare-ahead 1,8 2>&1 | grep -v "^[EW][0-9]" | tee "$OUT/probe.txt"
  if [ -n "${HARNESS_OLD:-}" ]; then
    (cd "$HARNESS_OLD" && PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" python3 \
      "$OLDPWD/scripts/harness_probe.py" "$PT" --pass-dir "$PP" --device "$DEV" --label old \
      --settings default --prepare-ahead 1,8 2>&1 | grep -v "^[EW][0-9]" | tee -a "$OUT/probe.txt")
  fi
  kill "$CLOCKS_PID" 2>/dev/null
fi
if [ "${GPU_TESTS:-1}" = 1 ]; then
  # Only the modules that hold GPU tests: others import clients (openai) the machine lacks.
  # GPU_TESTS_K picks some by name (pytest -k), e.g. GPU_TESTS_K=secret_draws.
  # shellcheck disable=SC2046
  python3 -m pytest -q -m gpu -p no:cacheprovider ${GPU_TESTS_K:+-k "$GPU_TESTS_K"} \
    $(grep -l "mark.gpu" tests/test_*.py) 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
fi
# SUITE_REBUILD=1: rebuild the suite here with scripts/build_suite.py (CUDA kernel counts,
# eager and Inductor measured on every variant of the candidate pool, curation on this GPU),
# resumable across calls: the work folder comes back as $OUT/suite-work.tgz (carry it in, name it
# in SUITE_WORK_IN) and the pool's measurements in the suite store (suite.db.gz, carried in with
# SUITE_STORE_IN like any suite store), the suite as $OUT/suite-gpu.tgz; the suite step below
# then measures the rebuilt suite (default candidates: eager, Inductor and Inductor's
# reduce-overhead mode; the first two come from the pool's measurements in the store's cache).
# REBUILD_BUDGET caps the seconds this call spends building and curating.
SUITE_DIR=${SUITE_DIR:-examples/suite}
# SUITE_TGZ=examples/graphnet_suite.tgz: measure a packed suite (the 201-task GraphNet corpus
# suite, docs/suites.md) instead: unpacked under /tmp, its folder becomes SUITE_DIR.
if [ -n "${SUITE_TGZ:-}" ]; then
  mkdir -p /tmp/suite-tgz && tar xzf "$SUITE_TGZ" -C /tmp/suite-tgz
  SUITE_DIR=/tmp/suite-tgz/$(tar tzf "$SUITE_TGZ" | head -1 | cut -d/ -f1)
fi
# SYNTH_LIB=1: `passnet synth` on every task of SUITE_DIR, verified on this GPU, every correct
# pass kept (--keep correct): what scripts/synth_library.py makes the pass library
# (examples/synth_passes) from; back as synth-lib.tgz (synth-lib/<task>/..., summary.json).
# Resumable across calls: SYNTH_LIB_BUDGET caps this call (on SIGINT synth writes summary.json
# for the tasks finished and says how many remain); SYNTH_LIB_IN=FILE (a synth-lib.tgz a call
# returned, carried in) is restored first, and synth runs with --resume, so a task finished
# there by the same synthesizer on the same GPU model with the same options is reused and the
# rest are synthesised (a warm machine's /tmp/synth-lib continues as it is). SYNTH_LIB_ARGS
# adds options (e.g. "--filter GLOB").
if [ "${SYNTH_LIB:-0}" = 1 ]; then
  if [ ! -d /tmp/synth-lib ] && [ -n "${SYNTH_LIB_IN:-}" ] && [ -f "$SYNTH_LIB_IN" ]; then
    mkdir -p /tmp/synth-lib && tar xzf "$SYNTH_LIB_IN" -C /tmp/synth-lib --strip-components=1
  fi
  # shellcheck disable=SC2086
  COLUMNS=160 timeout -s INT "${SYNTH_LIB_BUDGET:-420}" python3 -m passnet.cli synth "$SUITE_DIR" \
    --device "$DEV" --keep correct --workers "${PREPARE_AHEAD:-8}" --out /tmp/synth-lib \
    --resume ${SYNTH_LIB_ARGS:-} > "$OUT/synth_lib.log" 2>&1
  tail -45 "$OUT/synth_lib.log"
  tar czf "$OUT/synth-lib.tgz" -C /tmp synth-lib
fi
# The suite store (and the synth candidate's pass cache) live in /tmp/passnet-suite, which
# outlives a call while the machine stays warm; SUITE_STORE_IN (may be gzipped) seeds it.
SDIR=${SUITE_STATE:-/tmp/passnet-suite}; mkdir -p "$SDIR"
if [ ! -f "$SDIR/suite.db" ] && [ -n "${SUITE_STORE_IN:-}" ] && [ -f "$SUITE_STORE_IN" ]; then
  case "$SUITE_STORE_IN" in
    *.gz) gunzip -c "$SUITE_STORE_IN" > "$SDIR/suite.db" ;;
    *) cp "$SUITE_STORE_IN" "$SDIR/suite.db" ;;
  esac
fi
if [ "${SUITE_REBUILD:-0}" = 1 ]; then
  WORK=${SUITE_WORK:-/tmp/suite-work}; mkdir -p "$WORK"; rm -rf /tmp/suite-gpu
  if [ -n "${SUITE_WORK_IN:-}" ] && [ -f "$SUITE_WORK_IN" ]; then tar xzf "$SUITE_WORK_IN" -C "$WORK"; fi
  # shellcheck disable=SC2086
  timeout -s INT "${REBUILD_BUDGET:-480}" python3 scripts/build_suite.py --device "$DEV" \
    --work "$WORK" --out /tmp/suite-gpu --store "$SDIR/suite.db" --workers "$(nproc)" \
    --bench-args "--prepare-ahead ${PREPARE_AHEAD:-8}" ${REBUILD_ARGS:-} 2>&1 | tee "$OUT/rebuild.log" \
    | grep -v "^ *\(eager\|inductor\) " | tail -30
  tar czf "$OUT/suite-work.tgz" -C "$WORK" --exclude=./pool .
  if [ -f /tmp/suite-gpu/suite.json ]; then
    tar czf "$OUT/suite-gpu.tgz" -C /tmp/suite-gpu . && SUITE_DIR=/tmp/suite-gpu
    SUITE_CANDIDATES=${SUITE_CANDIDATES:-eager,inductor,inductor:reduce-overhead}
  else
    SUITE_BENCH=0  # not built yet: rerun with SUITE_WORK_IN and SUITE_STORE_IN to continue
  fi
  gzip -c "$SDIR/suite.db" > "$OUT/suite.db.gz"  # the pool's measurements, built or not
fi
# The suite (default: Inductor vs eager on every variant), resumable across calls:
# SUITE_STORE_IN names a store a previous call wrote (carried in), SUITE_BUDGET caps the seconds
# this call spends on it (the bench stops cleanly on SIGINT; rerun to continue), SUITE_CANDIDATES
# and SUITE_ARGS (e.g. "--dtype float16") pick what is measured.
# A follow-up call on a warm machine continues even before the store comes back; the store and
# cache are copied to $OUT at the end (store as suite.db.gz: the raw store outgrew what comes
# back from $OUT; cache and report in suite-extra.tgz, whose cache SYNTH_CACHE_IN takes back).
if [ "${SUITE_BENCH:-1}" = 1 ]; then
  # SYNTH_CACHE_IN=FILE seeds the synth candidate's pass cache ($SDIR/synth): a suite-extra.tgz
  # a call returned, as it is (its synth/ is taken, its report/ left), or a tarball of the
  # cache's own folders (cuda-<key>/... at its top)
  if [ ! -d "$SDIR/synth" ] && [ -n "${SYNTH_CACHE_IN:-}" ] && [ -f "$SYNTH_CACHE_IN" ]; then
    if tar tzf "$SYNTH_CACHE_IN" synth > /dev/null 2>&1; then
      tar xzf "$SYNTH_CACHE_IN" -C "$SDIR" synth
    else
      mkdir -p "$SDIR/synth" && tar xzf "$SYNTH_CACHE_IN" -C "$SDIR/synth"
    fi
  fi
  # shellcheck disable=SC2086
  timeout -s INT "${SUITE_BUDGET:-420}" python3 -m passnet.cli bench "$SUITE_DIR" --device "$DEV" \
    -c "${SUITE_CANDIDATES:-inductor}" ${SUITE_ARGS:-} --store "$SDIR/suite.db" --seed 0 \
    --no-report 2>&1 | tee "$OUT/suite_bench.log" | tail -40
  gzip -c "$SDIR/suite.db" > "$OUT/suite.db.gz"
  python3 scripts/suite_table.py "$SDIR/suite.db" > "$OUT/suite_table.md" 2>&1
  rm -rf "$SDIR/report"
  python3 -m passnet.cli report latest --store "$SDIR/suite.db" --out "$SDIR/report" 2>&1 | tail -40
  tar czf "$OUT/suite-extra.tgz" -C "$SDIR" report $(cd "$SDIR" && ls -d synth 2>/dev/null)
fi
# P3=1: issue 14's P3, the same candidates measured twice on the suite: two more bench runs
# (--run p3-a, --run p3-b; baselines from the store's cache, every other item measured again,
# the synth candidate's passes from its cache), then both side by side; each candidate's pooled
# AS in each run and their relative difference go to $OUT/p3.txt. P3_BUDGET caps each run.
if [ "${P3:-0}" = 1 ]; then
  for tag in a b; do
    # shellcheck disable=SC2086
    timeout -s INT "${P3_BUDGET:-300}" python3 -m passnet.cli bench "$SUITE_DIR" --device "$DEV" \
      -c "${SUITE_CANDIDATES:-inductor}" ${SUITE_ARGS:-} --store "$SDIR/suite.db" --seed 0 \
      --run "p3-$tag" --no-report 2>&1 | tail -4
  done | tee "$OUT/p3_bench.log"
  rm -rf "$SDIR/p3"
  python3 -m passnet.cli report p3-a p3-b --store "$SDIR/suite.db" --out "$SDIR/p3" > /dev/null 2>&1
  python3 - "$SDIR/p3/leaderboard.json" <<'EOF2' | tee "$OUT/p3.txt"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
by = {}
for r in rows:
    by.setdefault(r["candidate"], {})[r["run_id"]] = r
for cand, runs in by.items():
    a, b = runs.get("p3-a"), runs.get("p3-b")
    if not (a and b) or a["AS"] is None or b["AS"] is None:
        print(f"{cand}: incomplete ({', '.join(runs)})")
        continue
    diff = abs(a["AS"] - b["AS"]) / max(a["AS"], b["AS"])
    print(f"{cand}: AS {a['AS']:.4f} / {b['AS']:.4f}, differ by {diff:.2%} "
          f"(done {a['done']}/{a['planned']}, {b['done']}/{b['planned']})")
EOF2
fi
# PROFILE=1: host and device time of eager and each synthesised pass, per variant
# (scripts/profile_pass.py), to tell host overhead from kernel time; run after the suite, so
# PROFILE_DIRS can name the passes it synthesised (/tmp/passnet-suite/synth/*/<task>-<key>/);
# default: the kept library and the passes rejected on 2026-12-04 (mostly "no win").
# PROFILE_GRAPH narrows the variants.
if [ "${PROFILE:-0}" = 1 ]; then
  mkdir -p "$OUT/profile"
  # shellcheck disable=SC2086
  for d in ${PROFILE_DIRS:-examples/synth_passes/*/ docs/results/h200-2026-12-04-synth/rejected/*/}; do
    t=$(basename "$d"); t=${t%%-*}
    python3 scripts/profile_pass.py "examples/suite/$t" --pass-dir "$d/pass" --device "$DEV" \
      --graph "${PROFILE_GRAPH:-*}" --json "$OUT/profile/$t.json" > /dev/null 2>"$OUT/profile/$t.err" \
      && rm -f "$OUT/profile/$t.err"
    python3 - "$OUT/profile/$t.json" <<'EOF2' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["variants"]:
    if "pass" in v:
        e, p = v["eager"], v["pass"]
        print(f"{d['task'][:50]:50} {v['graph'][-40:]:40} {v['speedup']:.3f}x host {e['host_issue_us']:.1f}/{p['host_issue_us']:.1f} "
              f"device {e.get('device_us', 0):.1f}/{p.get('device_us', 0):.1f} kernels {e.get('kernels')}/{p.get('kernels')}")
EOF2
  done 2>&1 | tee "$OUT/profile.txt"
  tar czf "$OUT/profile.tgz" -C "$OUT" profile && rm -rf "$OUT/profile"
fi
