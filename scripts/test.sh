#!/usr/bin/env bash
# Runs every test: installs dependencies, builds (release), runs all CTest suites (unit,
# sql, integration), then the unit tests under ASan+UBSan and each fuzz target briefly.
# Usage: bash scripts/test.sh   (SPATE_SKIP_ASAN=1 / SPATE_SKIP_FUZZ=1 to skip stages)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

JOBS=${SPATE_JOBS:-2}
echo "== release build"
cmake --preset release >/dev/null
cmake --build --preset release -j"$JOBS"
echo "== tests (release)"
ctest --preset release

if [ "${SPATE_SKIP_DIFFERENTIAL:-0}" != "1" ]; then
  echo "== differential (real Spark)"
  bash scripts/install-spark.sh   # fails with its reason when Spark cannot be installed
  PYTHONPATH=build/release/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/differential
fi

if [ "${SPATE_SKIP_ASAN:-0}" != "1" ]; then
  echo "== unit tests under ASan+UBSan"
  cmake --preset asan >/dev/null
  # Unit test binaries and the helpers they run (the crash tests' child process).
  targets=$(cmake --build --preset asan --target help | awk -F: '/^spate_.*_(test|driver):/ {print $1}')
  cmake --build --preset asan -j"$JOBS" --target $targets
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset asan
fi

if [ "${SPATE_SKIP_FUZZ:-0}" != "1" ] && [ -f fuzz/CMakeLists.txt ]; then
  echo "== fuzz targets (short runs)"
  cmake --preset fuzz >/dev/null
  fuzzers=$(cmake --build --preset fuzz --target help | awk -F: '/_fuzzer:/ {print $1}')
  if [ -n "$fuzzers" ]; then
    cmake --build --preset fuzz -j"$JOBS" --target $fuzzers
    for f in $fuzzers; do
      bin=$(find build/fuzz -type f -name "$f" -perm -u+x | head -1)
      corpus=build/fuzz/corpus/${f%_fuzzer}
      mkdir -p "$corpus"
      echo "-- $f"
      # A fixed seed makes the smoke run repeatable: the same inputs on every CI run.
      "$bin" -seed=1 -max_total_time="${SPATE_FUZZ_SECONDS:-30}" -rss_limit_mb=4096 "$corpus" 2>&1 | tail -2
    done
  fi
fi
echo "== all tests passed"
