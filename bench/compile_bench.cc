// bench/compile_bench.cc: times `sluice compile` (parse, evaluate, passes,
// print) on generated graphs of 10k and 100k nodes.
//
// The graphs come from scripts/gen_graph.py (python3), written to the temp
// directory. Each size is compiled three times in-process through the same
// library call the CLI makes, and the median wall time is reported.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "driver/driver.h"

#ifndef SLUICE_SOURCE_DIR
#define SLUICE_SOURCE_DIR "."
#endif

namespace {

namespace fs = std::filesystem;

/// Writes an N-node graph file; empty on failure.
std::string generate(int nodes) {
  fs::path out = fs::temp_directory_path() / ("sluice_compile_bench_" + std::to_string(nodes) + ".sluice");
  std::string cmd = "python3 '" SLUICE_SOURCE_DIR "/scripts/gen_graph.py' " + std::to_string(nodes) +
                    " '" + out.string() + "'";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "bench_compile: '%s' failed\n", cmd.c_str());
    return "";
  }
  return out.string();
}

/// Median of three compiles of `file`, in seconds; negative on failure.
double timeCompile(const std::string &file) {
  std::vector<double> times;
  for (int rep = 0; rep < 3; ++rep) {
    sluice::driver::CompileOptions opts;
    opts.file = file;
    opts.emit = "ir";
    // The IR is printed into memory: printing is part of compile, disk
    // speed is not.
    std::ostringstream out, err;
    auto start = std::chrono::steady_clock::now();
    int code = sluice::driver::compileProgram(opts, out, err);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (code != 0) {
      std::fprintf(stderr, "bench_compile: compile of %s failed:\n%s\n", file.c_str(),
                   err.str().c_str());
      return -1;
    }
    times.push_back(s);
  }
  std::sort(times.begin(), times.end());
  return times[1];
}

} // namespace

int main() {
  std::string small = generate(10000);
  std::string large = generate(100000);
  if (small.empty() || large.empty())
    return 1;
  double t10k = timeCompile(small);
  double t100k = timeCompile(large);
  std::error_code ec;
  fs::remove(small, ec);
  fs::remove(large, ec);
  if (t10k <= 0 || t100k <= 0)
    return 1;
  std::printf("BENCH compile_100k_nodes_s %.3f s ratio=%.3f goal=2.0\n", t100k, 2.0 / t100k);
  double scaling = t100k / t10k;
  std::printf("BENCH compile_scaling_100k_over_10k %.2f x ratio=%.3f goal=10\n", scaling,
              10.0 / scaling);
  return 0;
}
