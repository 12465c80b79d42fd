#!/usr/bin/env bash
# The monitoring server's live page in headless Chromium (tests/ui/live_page.mjs).
# Usage: run_ui_test.sh <ui_driver binary> <output folder for the screenshots>.
# Needs node, Debian's chromium and playwright-core (scripts/install-deps.sh installs both:
# chromium from apt, playwright-core with `npm ci` here). Without them it exits 77
# (skipped), or fails when CI=true.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
chromium="${SPATE_CHROMIUM:-$(command -v chromium || true)}"
missing=""
command -v node >/dev/null || missing=" node"
[ -d "$here/node_modules/playwright-core" ] || missing="$missing tests/ui/node_modules/playwright-core"
[ -n "$chromium" ] && [ -x "$chromium" ] || missing="$missing chromium"
if [ -n "$missing" ]; then
  if [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]; then
    echo "FAIL: missing$missing (CI=true; run scripts/install-deps.sh)"
    exit 1
  fi
  echo "SKIP: missing$missing (run scripts/install-deps.sh)"
  exit 77
fi
SPATE_CHROMIUM="$chromium" exec node "$here/live_page.mjs" "$1" "$2"
