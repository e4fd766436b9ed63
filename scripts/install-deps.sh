#!/usr/bin/env bash
# scripts/install-deps.sh: installs the Debian packages Sluice builds against.
# Idempotent and quiet when everything is present; needs root (apt-get) otherwise.
set -euo pipefail

packages=(
  cmake ninja-build pkg-config ccache mold g++
  antlr4 libantlr4-runtime-dev
  libboost-graph-dev libgtest-dev libgmock-dev
  libfmt-dev libcli11-dev libopenblas-dev libedit-dev nlohmann-json3-dev afl++
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc openssl
  llvm-16-dev
  gnuplot-nox tmux libgoogle-perftools-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: need root to apt-get install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
