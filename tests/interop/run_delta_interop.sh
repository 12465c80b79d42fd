#!/usr/bin/env bash
# Writes a Delta table with spate and checks it independently (log replay in JavaScript,
# checkpoint and data files read with DuckDB). Usage: run_delta_interop.sh <write_delta_table>.
# Exits 77 (skipped) without node or the npm packages; fails instead when CI=true.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null || [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
  if [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]; then
    echo "FAIL: node or tests/interop/node_modules missing (CI=true; run scripts/install-deps.sh)"
    exit 1
  fi
  echo "SKIP: node or tests/interop/node_modules missing (run scripts/install-deps.sh)"
  exit 77
fi
out="$(mktemp -d /tmp/spate_delta_interop_XXXXXX)"
trap 'rm -rf "$out"' EXIT
expected="$("$1" "$out/table")"
node "$here/check_delta.mjs" "$out/table" "$expected"
