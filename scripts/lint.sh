#!/usr/bin/env bash
# The lint stage of scripts/test.sh. Two checks, each failing the run:
#  1. clang-format: every tracked C++ file (*.cc, *.h) is formatted as .clang-format says
#     (Debian's clang-format-14, installed by scripts/install-deps.sh). A file that is not
#     is named with the first lines of its diff.
#  2. clang-tidy: the C++ sources changed since the commit named in .ci/lint-base (each
#     session sets it to the commit main was at when the session began, so every landing
#     checks what it changed) are checked with .clang-tidy's checks, every warning an
#     error. A changed header is checked through the .cc beside it (the checks look into
#     src/spate headers included by a checked file). Uses the compile commands of the
#     release build (build/release/compile_commands.json), so it runs after that build.
#     Compiler warnings are the compiler's business, not this stage's (-Wno-everything).
# Usage: bash scripts/lint.sh [--fix]    --fix formats every file in place instead
#   SPATE_LINT_BASE=<commit>             check files changed since that commit instead
#   SPATE_JOBS=N                         parallel clang-tidy processes (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
FORMAT=clang-format-14
TIDY=clang-tidy-14
for tool in "$FORMAT" "$TIDY"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "lint: $tool is not installed (scripts/install-deps.sh installs it)" >&2
    exit 1
  fi
done

mapfile -t files < <(git ls-files '*.cc' '*.h')
if [ "${1:-}" = "--fix" ]; then
  "$FORMAT" -i "${files[@]}"
  exit 0
fi

# 1. Formatting (one clang-format process; it names each file that differs).
mapfile -t bad < <("$FORMAT" --dry-run -Werror "${files[@]}" 2>&1 |
  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*clang-format-violations.*/\1/p' | sort -u)
if [ "${#bad[@]}" -gt 0 ]; then
  echo "lint: ${#bad[@]} file(s) not formatted as .clang-format says" \
    "(fix: bash scripts/lint.sh --fix, or $FORMAT -i FILE):" >&2
  for f in "${bad[@]}"; do
    echo "  $f" >&2
    diff -u "$f" <("$FORMAT" "$f") | sed -n '3,14p' | sed 's/^/    /' >&2 || true
  done
  exit 1
fi
echo "lint: ${#files[@]} C++ files formatted"

# 2. clang-tidy over what changed since the base.
base=${SPATE_LINT_BASE:-$(tr -d '[:space:]' < .ci/lint-base)}
if ! git merge-base --is-ancestor "$base" HEAD 2>/dev/null; then
  echo "lint: the lint base $base (.ci/lint-base) is not a commit before HEAD" >&2
  exit 1
fi
db=build/release/compile_commands.json
if [ ! -f "$db" ]; then
  echo "lint: $db is missing (build the release preset first)" >&2
  exit 1
fi
mapfile -t changed < <(git diff --name-only --diff-filter=AMR "$base" HEAD -- '*.cc' '*.h')
declare -A seen=()
sources=()
for f in "${changed[@]}"; do
  src=$f
  case "$f" in *.h) src=${f%.h}.cc ;; esac
  [ -f "$src" ] || continue
  [ -n "${seen[$src]:-}" ] && continue
  seen[$src]=1
  # Only files the release build compiles (the fuzz targets are built by clang alone).
  if grep -q "\"file\": \"$PWD/$src\"" "$db"; then sources+=("$src"); fi
done
echo "lint: clang-tidy over ${#sources[@]} changed source file(s) since ${base:0:12}"
[ "${#sources[@]}" -eq 0 ] && exit 0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
printf '%s\n' "${sources[@]}" |
  xargs -P "${SPATE_JOBS:-2}" -n 1 "$TIDY" -p build/release --quiet \
    --warnings-as-errors='*' --extra-arg=-Wno-everything >"$log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
  grep -E "(warning|error): " "$log" | sort -u >&2 || cat "$log" >&2
  echo "lint: clang-tidy found the problems above" >&2
  exit 1
fi
echo "lint: clang-tidy clean"
