#!/usr/bin/env bash
# scripts/gpu_bundle.sh: packs the GPU checks for a machine that cannot
# build them. The device machines lent to this project run an image with
# CUDA but none of Sluice's build dependencies (LLVM 16, gRPC, ANTLR, ...),
# and nothing can be fetched there; so the checks travel built: gpu_test,
# jit_test, bench_gpu and the fake libcuda, stripped, with every shared
# library they load (from this machine, the loader and libc too, so the
# image's own versions do not matter; libcuda excepted: it must be the
# machine's driver), in .gpu-bundle/ (git-ignored, under the device tool's
# 64 MiB). On the device machine:
#   bash .gpu-bundle/run.sh          (the device tool: carry [".gpu-bundle"])
# runs them as scripts/gpu_check.sh does and copies the logs to $OUT.
#   scripts/gpu_bundle.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=.gpu-bundle
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/sluice-ccache} CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target gpu_test jit_test bench_gpu sluice_fake_cuda
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
bins=("$build/tests/gpu/gpu_test" "$build/tests/jit/jit_test" "$build/bench/bench_gpu")
fake=$(find "$build/tests/gpu" -maxdepth 1 -name 'libsluice_fake_cuda.so*' | head -1)
for b in "${bins[@]}"; do
  cp "$b" "$stage/bin/"
done
cp "$fake" "$stage/lib/libsluice_fake_cuda.so"
# Every library the binaries and the fake load, but the driver.
for f in "${bins[@]}" "$fake"; do
  ldd "$f" | awk '/=> \//{print $3} /^\t\/lib64\//{print $1}'
done | sort -u | grep -v 'libcuda\.so' | while read -r lib; do
  cp -L "$lib" "$stage/lib/"
done
loader=$(ldd "${bins[0]}" | awk '/ld-linux/{print $1}')
cp -L "$loader" "$stage/lib/ld-linux.so"
strip --strip-unneeded "$stage"/bin/* "$stage"/lib/*.so* 2>/dev/null || true
rm -rf "$out"
mkdir -p "$out"
tar -C "$stage" -cf - bin lib | xz -6 -T0 > "$out/bundle.tar.xz"
cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# .gpu-bundle/run.sh (written by scripts/gpu_bundle.sh): the GPU checks on
# a device machine, from the bundle beside this script; logs to $OUT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=/tmp/sluice-gpu-bundle
out=${OUT:-$dir/out}
rm -rf "$dir" && mkdir -p "$dir" "$out"
xz -dc "$here/bundle.tar.xz" | tar -C "$dir" -xf -
run() { "$dir/lib/ld-linux.so" --library-path "$dir/lib" "$@"; }
export SLUICE_FAKE_CUDA=$dir/lib/libsluice_fake_cuda.so SLUICE_GPU_LOG=1
command -v nvidia-smi > /dev/null &&
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv | tee "$out/gpu.txt"
status=0
echo "== gpu_test"
run "$dir/bin/gpu_test" --gtest_brief=1 2>&1 | tee "$out/gpu_test.log" || status=1
echo "== jit_test (PTX, GPU simulation)"
run "$dir/bin/jit_test" --gtest_brief=1 --gtest_filter='Ptx*:GpuSimulation*' 2>&1 |
  tee "$out/jit_test.log" || status=1
echo "== bench_gpu"
run "$dir/bin/bench_gpu" 2>&1 | tee "$out/bench_gpu.log" || status=1
exit $status
RUN
chmod +x "$out/run.sh"
du -sh "$out"
