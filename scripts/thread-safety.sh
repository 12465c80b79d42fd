#!/usr/bin/env bash
# clang's thread-safety analysis over the files that use spate's annotated Mutex
# (src/spate/base/mutex.h), for a build tree compiled with gcc (which has no such
# analysis). Reads the tree's compile_commands.json, compiles each such file with clang
# -fsyntax-only -Wthread-safety -Werror=thread-safety, and fails on any violation.
#
#   bash scripts/thread-safety.sh [BUILD_DIR]     (default build/release)
#
# CI gets the same check from the fuzz build (clang, SPATE_WARNINGS in cmake/warnings.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json (configure first)"; exit 1; }
clangxx=$(command -v clang++-14 || command -v clang++ || true)
[ -n "$clangxx" ] || { echo "clang++ is needed (Debian's clang-14)"; exit 1; }
files=$(grep -rl --include=*.cc 'MutexLock\|SPATE_GUARDED_BY\|SPATE_REQUIRES' src | sort)
python3 - "$build/compile_commands.json" "$clangxx" $files <<'PY'
import json, shlex, subprocess, sys
db, clang, files = sys.argv[1], sys.argv[2], sys.argv[3:]
entries = {e["file"]: e for e in json.load(open(db))}
failed = 0
checked = 0
for f in files:
    if not f.endswith(".cc"):
        continue
    e = next((v for k, v in entries.items() if k.endswith("/" + f)), None)
    if e is None:
        continue  # not part of this tree (e.g. python/ without the extension)
    args = shlex.split(e["command"]) if "command" in e else e["arguments"]
    cmd, skip = [clang], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD"):
            continue
        cmd.append(a)
    cmd += ["-fsyntax-only", "-Wthread-safety", "-Werror=thread-safety",
            "-Wno-unknown-warning-option"]
    r = subprocess.run(cmd, cwd=e["directory"], capture_output=True, text=True)
    checked += 1
    if r.returncode != 0:
        failed += 1
        sys.stderr.write(r.stderr)
print(f"thread-safety analysis: {checked} files, {failed} failed")
sys.exit(1 if failed else 0)
PY
