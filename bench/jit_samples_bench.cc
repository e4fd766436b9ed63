// bench/jit_samples_bench.cc: the JIT's compile cost on the samples that
// fuse: each sample run in-process as `sluice run` runs it, with the JIT
// and an empty disk cache (every cluster compiled), with the JIT and the
// cache that run filled (a second process: objects loaded, none
// compiled), and with the interpreter (nothing to compile), the
// reference. Medians of three; ratios are interpreter time over ours.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "backend/jit/jit.h"
#include "driver/driver.h"

#ifndef SLUICE_SOURCE_DIR
#define SLUICE_SOURCE_DIR "."
#endif

namespace {

namespace fs = std::filesystem;

// One run of `sample`; -1 when it fails (its errors on stderr).
double runMs(const std::string &sample, const std::string &backend) {
  sluice::driver::RunProgramOptions o;
  o.file = std::string(SLUICE_SOURCE_DIR) + "/samples/" + sample + ".sluice";
  o.workDir = std::string(SLUICE_SOURCE_DIR) + "/samples";
  o.backend = backend;
  std::ostringstream out, err;
  auto t0 = std::chrono::steady_clock::now();
  int rc = sluice::driver::runProgram(o, out, err);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (rc != 0) {
    std::fprintf(stderr, "bench_jit_samples: %s failed:\n%s\n", sample.c_str(), err.str().c_str());
    return -1;
  }
  return ms;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main() {
  int status = 0;
  fs::path root = fs::temp_directory_path() / "sluice_jit_samples_bench";
  for (const char *sample : {"fusion", "iris", "linear_regression"}) {
    std::vector<double> cold, warm, interp;
    int64_t clusters = 0;
    for (int rep = 0; rep < 3; ++rep) {
      fs::path dir = root / (std::string(sample) + "_" + std::to_string(rep));
      fs::remove_all(dir);
      sluice::backend::jit::resetForTesting(dir.string()); // a process with an empty cache
      cold.push_back(runMs(sample, "jit"));
      clusters = sluice::backend::jit::stats().compiled;
      sluice::backend::jit::resetForTesting(dir.string()); // a second process, cache filled
      warm.push_back(runMs(sample, "jit"));
      interp.push_back(runMs(sample, "interp"));
      fs::remove_all(dir);
    }
    for (const auto *v : {&cold, &warm, &interp})
      if (*std::min_element(v->begin(), v->end()) < 0)
        status = 1;
    if (status)
      continue;
    double c = median(cold), w = median(warm), i = median(interp);
    std::fprintf(stderr, "bench_jit_samples: %s compiles %lld clusters\n", sample,
                 static_cast<long long>(clusters));
    std::printf("BENCH jit_sample_%s_cold_ms %.1f ms ratio=%.3f goal=0.5\n", sample, c, i / c);
    std::printf("BENCH jit_sample_%s_warm_cache_ms %.1f ms ratio=%.3f goal=1.0\n", sample, w, i / w);
    std::printf("BENCH jit_sample_%s_interp_ms %.1f ms ratio=1.000 goal=1.0\n", sample, i);
  }
  fs::remove_all(root);
  return status;
}
