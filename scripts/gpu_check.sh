#!/usr/bin/env bash
# scripts/gpu_check.sh: the GPU checks in one go, for a machine with a GPU
# (issue #8): builds only what they need (-j16), then runs the GPU tests
# (the fake-driver ones, and the real-GPU ones, which skip without a GPU
# and say why), the JIT's PTX and GPU-simulation tests, and bench_gpu.
# Prints the device; exits non-zero on the first failure. On a machine
# without the build's dependencies (the device machines lent to this
# project), use scripts/gpu_bundle.sh here and .gpu-bundle/run.sh there.
#   scripts/gpu_check.sh [--full] [build-dir]
# --full also builds everything and runs the whole suite with the GPU
# visible (the language tests that assert CPU placements of unrequested
# elementwise ops then see GPU:0, as TF would place them).
set -euo pipefail
cd "$(dirname "$0")/.."
full=0
if [ "${1:-}" = "--full" ]; then full=1; shift; fi
build=${1:-build-gpu}
jobs=${JOBS:-16}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/sluice-ccache} CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
command -v nvidia-smi > /dev/null &&
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv || true
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_TESTS=ON > /dev/null
fi
cmake --build "$build" -j "$jobs" --target gpu_test jit_test bench_gpu
echo "== gpu_test"
SLUICE_GPU_LOG=1 "$build/tests/gpu/gpu_test" --gtest_brief=1
echo "== jit_test (PTX, GPU simulation)"
"$build/tests/jit/jit_test" --gtest_brief=1 --gtest_filter='Ptx*:GpuSimulation*'
echo "== bench_gpu"
SLUICE_GPU_LOG=1 "$build/bench/bench_gpu"
if [ $full -eq 1 ]; then
  echo "== the whole suite, GPU visible"
  cmake --build "$build" -j "$jobs"
  (cd "$build" && ctest -j "$jobs" --output-on-failure)
fi
