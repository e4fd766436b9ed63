#!/usr/bin/env bash
# scripts/fuzz.sh: builds the frontend fuzz target with AFL++ (GCC) in build-fuzz/
# and runs afl-fuzz on it for $1 seconds (default 60) from fuzz/corpus/.
# Exits non-zero only if a crash or hang was found (or the build failed).
# Findings go to fuzz-out/; replay one with build-fuzz/fuzz/fuzz_frontend FILE.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
out="$root/fuzz-out"

for tool in afl-fuzz afl-g++ afl-gcc; do
  command -v "$tool" >/dev/null || { echo "fuzz.sh: $tool not found (apt-get install afl++)" >&2; exit 2; }
done

# Prefer afl-g++-fast (GCC plugin: persistent mode via libAFLDriver.a). It
# refuses to run when the plugin was built for another GCC build ("GCC and
# plugin have incompatible versions"), as with Debian 12's afl++ 4.04c and
# gcc 12.2.0-14+deb12u1; then use classic afl-g++ with fuzz/afl_main.cc.
cc=afl-gcc cxx=afl-g++ driver=""
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
printf '#include <cstdint>\n#include <cstddef>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }\n' \
  > "$probe/p.cc"
if [ -f /usr/lib/afl/libAFLDriver.a ] && command -v afl-g++-fast >/dev/null &&
   afl-g++-fast "$probe/p.cc" /usr/lib/afl/libAFLDriver.a -o "$probe/p" >/dev/null 2>&1; then
  cc=afl-gcc-fast cxx=afl-g++-fast driver=/usr/lib/afl/libAFLDriver.a
fi
echo "fuzz.sh: compiling with $cxx${driver:+ and $driver}"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_FUZZ=ON \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DSLUICE_FUZZ_DRIVER="$driver" >/dev/null
ninja -C "$build" -j2 fuzz_frontend

target="$build/fuzz/fuzz_frontend"
[ -x "$target" ] || { echo "fuzz.sh: $target was not built (is add_subdirectory(fuzz) in CMakeLists.txt?)" >&2; exit 2; }

rm -rf "$out"
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
# -t: a parse that takes over 2 s counts as a hang.
afl-fuzz -i "$root/fuzz/corpus" -o "$out" -x "$root/fuzz/sluice.dict" -t 2000 -m none \
  -V "$seconds" -- "$target" @@ || { echo "fuzz.sh: afl-fuzz failed" >&2; exit 2; }

crashes=$(find "$out" -path '*/crashes/id*' -type f | wc -l)
hangs=$(find "$out" -path '*/hangs/id*' -type f | wc -l)
echo "fuzz.sh: $crashes crash(es), $hangs hang(s) in $seconds s; findings in $out"
[ "$crashes" -eq 0 ] && [ "$hangs" -eq 0 ]
