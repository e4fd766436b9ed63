// fuzz/afl_main.cc: a main() feeding one file (or stdin) to LLVMFuzzerTestOneInput, for AFL's classic GCC mode.
// Used when no libFuzzer-compatible driver (AFL++'s libAFLDriver.a) can be
// linked: that driver needs the runtime of afl-g++-fast / afl-clang-fast.
// Also handy to replay a crash: `fuzz_frontend crash-file`.
#include <cstdint>
#include <cstdio>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  FILE *file = argc > 1 ? std::fopen(argv[1], "rb") : stdin;
  if (!file) {
    std::perror(argv[1]);
    return 2;
  }
  std::vector<uint8_t> bytes;
  uint8_t chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + n);
  if (file != stdin)
    std::fclose(file);
  return LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}
