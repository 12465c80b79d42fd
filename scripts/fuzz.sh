#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz preset: clang, coverage + ASan + UBSan without recovery
# over every library they call) and runs each one in turn from its seed corpus
# (fuzz/corpus/<name>, read only) and the inputs earlier runs found
# (build/fuzz/corpus/<name>). A crash, sanitizer report, leak, timeout or out-of-memory
# fails the run and prints the report; the input is saved as build/fuzz/<kind>-<hash>.
# Usage:
#   bash scripts/fuzz.sh HOURS          long campaign: HOURS per target (e.g. 1 or 0.25)
#   bash scripts/fuzz.sh --seconds N    smoke run: N seconds per target, fixed seed
#   bash scripts/fuzz.sh --build-only   build the targets only
#   SPATE_FUZZ_TARGETS="csv json"       only these targets (names without _fuzzer)
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

mode=${1:?usage: fuzz.sh HOURS | --seconds N | --build-only}
seconds=0
seed_args=()
case "$mode" in
  --build-only) ;;
  --seconds) seconds=${2:?--seconds N}; seed_args=(-seed=1) ;;  # repeatable smoke runs
  *) seconds=$(awk -v h="$mode" 'BEGIN { printf "%d", h * 3600 }') ;;
esac

cmake --preset fuzz >/dev/null
fuzzers=$(cmake --build --preset fuzz --target help | awk -F: '/_fuzzer:/ {print $1}')
if [ -n "${SPATE_FUZZ_TARGETS:-}" ]; then
  fuzzers=$(for t in $SPATE_FUZZ_TARGETS; do echo "${t}_fuzzer"; done)
fi
[ -n "$fuzzers" ] || { echo "no fuzz targets (needs clang)"; exit 1; }
cmake --build --preset fuzz -j"${SPATE_JOBS:-2}" --target $fuzzers
[ "$mode" = --build-only ] && exit 0

# run_one FUZZER: runs one target; its summary (and report on failure) goes to
# build/fuzz/<fuzzer>.summary, its exit status is the run's.
run_one() {
  local f=$1 name bin work log start rc=0
  name=${f%_fuzzer}
  bin=build/fuzz/fuzz/$f
  work=build/fuzz/corpus/$name
  log=build/fuzz/$f.log
  mkdir -p "$work"
  local seeds=()
  [ -d "fuzz/corpus/$name" ] && seeds=("fuzz/corpus/$name")
  start=$SECONDS
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    "$bin" "${seed_args[@]}" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
    -artifact_prefix=build/fuzz/ "$work" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    echo "-- $f ($((SECONDS - start)) s): $(grep -E '^Done [0-9]+ runs' "$log" | tail -1)," \
      "corpus $(find "$work" -type f | wc -l) inputs" >"build/fuzz/$f.summary"
  else
    {
      echo "-- $f FAILED after $((SECONDS - start)) s (full log: $log)"
      grep -E -A40 'ERROR: |runtime error|deadly signal|Test unit written|SUMMARY' "$log" | head -80
    } >"build/fuzz/$f.summary"
  fi
  return "$rc"
}

# Smoke runs (short, fixed seed) run SPATE_JOBS targets at a time, each single-threaded;
# long campaigns run one target at a time (each gets the whole wall time asked for).
parallel=1
[ "$mode" = --seconds ] && parallel=${SPATE_JOBS:-2}
failed=0
pids=()
names=()
for f in $fuzzers; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do
    wait -n || true
  done
  run_one "$f" &
  pids+=($!)
  names+=("$f")
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || failed=1
  cat "build/fuzz/${names[$i]}.summary"
done
exit "$failed"
