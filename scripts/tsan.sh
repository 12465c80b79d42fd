#!/usr/bin/env bash
# ThreadSanitizer stage: builds the exec, table, state and stream unit tests and the
# streaming query tests (testing/: StreamTest, the stream DSL suites, joins,
# transformWithState) with the libraries under them with -fsanitize=thread (preset `tsan`,
# build/tsan) and runs them; a data race, a lock-order inversion or a use of a destroyed
# mutex reported by TSan fails the run (halt_on_error). Left out: the million-row
# throughput tests (single-threaded hot loops, minutes under TSan) and the DSL's extra run
# modes (restarts, a memory file system, injected faults: the same threads as the plain
# mode). tests/tsan.supp lists what is suppressed (races inside uninstrumented system
# libraries only). clang's static thread-safety analysis (scripts/thread-safety.sh,
# -Werror=thread-safety in clang builds) is the other half.
# Usage: bash scripts/tsan.sh [--build-only] [gtest filter]
#   SPATE_JOBS=N   build parallelism (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
JOBS=${SPATE_JOBS:-2}
build_only=0
if [ "${1:-}" = "--build-only" ]; then
  build_only=1
  shift
fi
filter=${1:--*Million*:*RestartAfterChecks*:*MemoryFileSystem*:*InjectedFaults*}
# Longest first (testing ~40 s, table, exec, state ~25 s each under TSan).
tests=(spate_testing_test spate_table_test spate_exec_test spate_state_test spate_stream_test)
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j"$JOBS" --target "${tests[@]}"
[ "$build_only" = 1 ] && exit 0
# Debian 12's kernel randomizes mmap more than TSan's shadow layout allows at 32 bits of
# entropy; the tests run with that lowered for themselves only (setarch -R) when needed.
run=()
if [ "$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)" -gt 28 ]; then
  run=(setarch "$(uname -m)" -R)
fi
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4:suppressions=$PWD/tests/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
# The binaries run SPATE_JOBS at a time (each runs its tests one after another), each
# into its own log, printed in order once all have finished.
logs=build/tsan/logs
mkdir -p "$logs"
run_one() {
  local t=$1 bin start rc=0
  bin=$(find build/tsan -name "$t" -type f -perm -u+x | head -1)
  start=$SECONDS
  (cd "$(dirname "$bin")" && "${run[@]}" "./$t" --gtest_filter="$filter" --gtest_brief=1) \
    >"$logs/$t.log" 2>&1 || rc=$?
  echo "   $((SECONDS - start)) s" >>"$logs/$t.log"
  return "$rc"
}
failed=()
pids=()
for t in "${tests[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
    wait -n || true
  done
  run_one "$t" &
  pids+=($!)
done
for i in "${!tests[@]}"; do
  t=${tests[$i]}
  rc=0
  wait "${pids[$i]}" || rc=$?
  echo "== $t (TSan)"
  cat "$logs/$t.log"
  [ "$rc" = 0 ] || failed+=("$t")
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "TSan: failed: ${failed[*]}" >&2
  exit 1
fi
echo "TSan: ${#tests[@]} test binaries passed"
