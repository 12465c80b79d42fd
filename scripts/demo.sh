#!/usr/bin/env bash
# Installs dependencies, builds spate (release) and runs the demo pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"${SPATE_JOBS:-2}" --target spate
./build/release/cli/spate demo "$@"
