#!/usr/bin/env bash
# Installs every system package spate needs to build and test on a fresh Debian 12 machine.
# Idempotent; run as root (or with sudo available).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
PKGS=(
  build-essential cmake ninja-build ccache clang libclang-rt-14-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev libedit-dev libcli11-dev
  libhowardhinnant-date-dev tzdata
  nlohmann-json3-dev
  pkg-config
  libsnappy-dev libzstd-dev zlib1g-dev liblz4-dev
  nodejs
  libre2-dev libssl-dev
  librocksdb-dev
  libsimdjson-dev
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-pandas
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# Node packages of the Parquet interop test (hyparquet, an independent reader), pinned by
# tests/interop/package-lock.json.
if command -v npm >/dev/null 2>&1; then
  (cd "$(dirname "$0")/../tests/interop" && npm ci --no-audit --no-fund)
else
  echo "npm not found: the Parquet interop test (tests/interop) will be skipped" >&2
fi
