#!/usr/bin/env bash
# Writes Parquet files of every type with spate and checks every value with hyparquet, then
# reads files written by hyparquet-writer with spate and checks every value.
# Usage: run_interop.sh <write_parquet_files binary>. Exits 77 (skipped) without node or
# the npm packages (scripts/install-deps.sh runs `npm ci` here); fails instead when CI=true.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null || [ ! -d "$here/node_modules/hyparquet" ]; then
  if [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]; then
    echo "FAIL: node or tests/interop/node_modules missing (CI=true; run scripts/install-deps.sh)"
    exit 1
  fi
  echo "SKIP: node or tests/interop/node_modules missing (run scripts/install-deps.sh)"
  exit 77
fi
out="$(mktemp -d /tmp/spate_interop_XXXXXX)"
trap 'rm -rf "$out"' EXIT
"$1" "$out"
node "$here/read_parquet.mjs" "$out"
mkdir "$out/reverse"
node "$here/write_parquet.mjs" "$out/reverse" "$1"
