#!/usr/bin/env bash
# Installs every system package and tool spate needs to build and run all its tests on a
# fresh Debian 12 machine (compilers, libraries, Python, node + npm and the interop tests'
# npm packages, librdkafka + kcat + Java + Maven for the Kafka tests, whose broker jars
# scripts/install-kafka.sh then fetches; cpp-httplib for the monitoring server and
# prometheus for the promtool that checks its /metrics, chromium + playwright-core for the
# test of its live page). Fails when something cannot be installed.
# Idempotent; run as root (or with sudo available).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
PKGS=(
  build-essential cmake ninja-build ccache clang libclang-rt-14-dev
  clang-format-14 clang-tidy-14
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev libedit-dev libcli11-dev
  libhowardhinnant-date-dev tzdata
  nlohmann-json3-dev
  pkg-config
  libsnappy-dev libzstd-dev zlib1g-dev liblz4-dev
  nodejs
  libre2-dev libssl-dev libicu-dev libxml2-dev
  librocksdb-dev
  libsimdjson-dev
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-pandas
  librdkafka-dev kcat openjdk-17-jre-headless maven
  libcpp-httplib-dev prometheus chromium
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# npm: Debian's nodejs comes without it (a nodejs from NodeSource bundles it; installing
# Debian's npm beside that one would conflict), so it is installed only when missing.
if ! command -v npm >/dev/null 2>&1; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends npm
fi
# Node packages of the tests, pinned by their package-lock.json: tests/interop (hyparquet,
# hyparquet-writer, DuckDB's node client: independent readers and writers) and tests/ui
# (playwright-core, which drives Debian's chromium and downloads no browser); `npm ci`
# again only when the lock file is newer than the installed tree.
for dir in interop ui; do
  pkg="$(dirname "$0")/../tests/$dir"
  if [ ! -f "$pkg/node_modules/.package-lock.json" ] ||
    [ "$pkg/package-lock.json" -nt "$pkg/node_modules/.package-lock.json" ]; then
    (cd "$pkg" && npm ci --no-audit --no-fund)
  fi
done
# The Apache Kafka broker the Kafka tests start (jars from Maven Central, cached in build/).
bash "$(dirname "$0")/install-kafka.sh"
