#!/usr/bin/env bash
# Long-stream soak for the release checklist (issue 18): runs bench/soak_bench for HOURS
# (half rate-micro-batch -> Delta, half a file source over many small files -> Delta) and
# prints per-batch p50/p99 and RSS at 1k, 10k, 100k, 1M batches and at the end, each
# beside the same run's first batches (ratios), plus the files and bytes on disk.
#
#   scripts/soak.sh HOURS [FILES=100000]
#
# Needs a release build (cmake --preset release && cmake --build --preset release
# --target spate_soak_bench). The output is also kept in build/soak/soak-<time>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
hours=${1:?usage: scripts/soak.sh HOURS [FILES]}
files=${2:-100000}
bin=build/release/bench/spate_soak_bench
[[ -x $bin ]] || { echo "missing $bin: build the release preset first" >&2; exit 1; }
secs=$(python3 -c "import sys; print(max(1, int(float(sys.argv[1]) * 3600 / 2)))" "$hours")
mkdir -p build/soak
log=build/soak/soak-$(date -u +%Y%m%dT%H%M%SZ).log
echo "soak: ${hours} h (${secs} s per phase), ${files} landed files; log $log"
# Batch targets far beyond what the time allows: each phase stops on time. A file batch
# takes 5 files, so the file phase ends early when they are all read.
"$bin" 1000000000 "$files" $((files / 5)) 1000 "$secs" 2>&1 | tee "$log"
