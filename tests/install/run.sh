#!/usr/bin/env bash
# `cmake --install` of a spate build tree into a fresh prefix, then a project outside the
# tree (tests/install/consumer) configured with find_package(spate), built and run against
# it; its output must equal expected.txt.
#   tests/install/run.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/spate-install-XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/spate" || { echo "bin/spate was not installed"; exit 1; }
test -f "$work/prefix/include/spate/spate.h" || { echo "include/spate/spate.h was not installed"; exit 1; }
test ! -e "$work/prefix/include/spate/testing" || { echo "test-only headers were installed"; exit 1; }
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$here/consumer" -B "$work/consumer" "${gen[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" -j2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/consumer/consumer" "$work/warehouse" > "$work/out.txt"
diff -u "$here/expected.txt" "$work/out.txt"
echo "installed spate: find_package + link + run OK"
