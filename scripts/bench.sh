#!/usr/bin/env bash
# scripts/bench.sh: runs every benchmark binary; each prints
# `BENCH <name> <value> <unit> ratio=<r> goal=<g>` lines.
set -euo pipefail
build=${1:-build}
status=0
for b in "$build"/bench/bench_*; do
  [ -x "$b" ] || continue
  "$b" || status=1
done
exit $status
