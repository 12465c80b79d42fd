#!/usr/bin/env bash
# Runs every test: installs dependencies, builds (release), checks formatting and
# clang-tidy (scripts/lint.sh), runs all CTest suites
# (unit, sql, integration, ...), the differential suite against real Spark, then the unit
# and stream tests under ASan+UBSan, the exec/table/state/stream tests under TSan
# (scripts/tsan.sh), then each fuzz target for a short smoke run (ASan+UBSan; a sanitizer
# report or crash fails the run). Prints the wall time of each stage at the end. Budget:
# 35 minutes on a 2-core machine from a clean clone (ccache shared across clones, below).
# Usage: bash scripts/test.sh
#   SPATE_SKIP_ASAN=1 / SPATE_SKIP_TSAN=1 / SPATE_SKIP_FUZZ=1 / SPATE_SKIP_DIFFERENTIAL=1
#   SPATE_SKIP_LINT=1                       skip a stage
#   SPATE_FUZZ_SECONDS=N                    seconds per fuzz target (default 10)
#   SPATE_JOBS=N                            build and test parallelism (default 2)
# Long campaigns are separate scripts: scripts/fuzz.sh HOURS, scripts/crash-campaign.sh N.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the repository, so a clone in another folder (CI)
# hits the objects an earlier build of any clone left in the cache.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1

JOBS=${SPATE_JOBS:-2}
stage_names=()
stage_secs=()
report() {
  local rc=$?
  if [ "${#stage_names[@]}" -gt 0 ]; then
    echo "== stage times"
    for i in "${!stage_names[@]}"; do
      printf '  %-28s %5d s\n' "${stage_names[$i]}" "${stage_secs[$i]}"
    done
    printf '  %-28s %5d s\n' total "$SECONDS"
  fi
  exit "$rc"
}
trap report EXIT
# stage NAME COMMAND...: runs the command, records its wall time (also when it fails).
# (bash ignores `set -e` inside a command on the left of ||: the stage functions below
# chain their steps with && instead.)
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  echo "== $name"
  "$@" || rc=$?
  stage_names+=("$name")
  stage_secs+=($((SECONDS - start)))
  return "$rc"
}

release_build() {
  cmake --preset release >/dev/null && cmake --build --preset release -j"$JOBS"
}

# The unit test binaries and the helpers they run (the crash tests' child process): no
# benchmarks, CLI or Python under the sanitizers.
asan_build() {
  local targets
  cmake --preset asan >/dev/null &&
    targets=$(cmake --build --preset asan --target help |
      awk -F: '/^spate_.*_(test|driver):/ {print $1}') &&
    cmake --build --preset asan -j"$JOBS" --target $targets
}

# Real Spark as the oracle: the pinned pyspark/delta-spark (installed once into build/,
# failing with its reason when it cannot be) runs the same cases as spate. Cases whose
# recorded Spark answer is still valid (tests/differential/answers.py: the case module,
# the suite's code and the pinned versions unchanged) are answered from the recording,
# except a sample per commit that Spark answers live and that must equal it;
# SPATE_DIFF_LIVE=all asks Spark for every case.
differential() {
  bash scripts/install-spark.sh &&
    PYTHONPATH=build/release/python /usr/bin/python3 -m pytest -q -p no:cacheprovider \
      tests/differential
}

asan_tests() {
  ASAN_OPTIONS=detect_leaks=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset asan -j"$JOBS"
}

# Real Spark (pinned pyspark + delta-spark, build/spark-venv) before any test: the release
# stage's python tests run spark-submit too (tests/test_submit.py), not only the differential
# stage.
install_dependencies() {
  bash scripts/install-deps.sh && bash scripts/install-spark.sh
}
stage "install dependencies" install_dependencies
stage "release build" release_build
# clang-format over every C++ file, clang-tidy over the sources changed since .ci/lint-base.
if [ "${SPATE_SKIP_LINT:-0}" != "1" ]; then
  stage "lint" bash scripts/lint.sh
fi
stage "tests (release)" ctest --preset release -j"$JOBS"
# The differential suite (mostly a JVM answering queries) runs while the ASan build
# compiles; its output is printed, and its status checked, before the ASan tests start.
diff_pid=""
if [ "${SPATE_SKIP_DIFFERENTIAL:-0}" != "1" ]; then
  mkdir -p build/differential
  diff_log=build/differential/stage.log
  diff_start=$SECONDS
  (differential >"$diff_log" 2>&1; echo "$?" >"$diff_log.rc") &
  diff_pid=$!
fi
wait_differential() {
  [ -n "$diff_pid" ] || return 0
  wait "$diff_pid" || true
  diff_pid=""
  echo "== differential (real Spark)"
  cat "$diff_log"
  stage_names+=("differential (real Spark)")
  stage_secs+=($((SECONDS - diff_start)))
  return "$(cat "$diff_log.rc" 2>/dev/null || echo 1)"
}
# Only the ASan build compiles beside the differential suite: the TSan and fuzz builds
# there too starved the Spark server when cold (session 19: a Spark VACUUM over the 180 s
# answer limit while the fuzz build and a lint ran beside it).
if [ "${SPATE_SKIP_ASAN:-0}" != "1" ]; then
  stage "ASan+UBSan build" asan_build
fi
wait_differential
if [ "${SPATE_SKIP_ASAN:-0}" != "1" ]; then
  stage "tests (ASan+UBSan)" asan_tests
fi
if [ "${SPATE_SKIP_TSAN:-0}" != "1" ]; then
  stage "TSan build" bash scripts/tsan.sh --build-only
  stage "tests (TSan)" bash scripts/tsan.sh
fi
if [ "${SPATE_SKIP_FUZZ:-0}" != "1" ] && [ -f fuzz/CMakeLists.txt ]; then
  stage "fuzz build" bash scripts/fuzz.sh --build-only
  stage "fuzz smoke" bash scripts/fuzz.sh --seconds "${SPATE_FUZZ_SECONDS:-10}"
fi
echo "== all tests passed"
