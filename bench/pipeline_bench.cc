// bench/pipeline_bench.cc: records/s of the seed's CSV input pipeline run
// through the language, beside a plain C++ parse loop over the same file.
//
// The file (2,000,000 rows `x1,x2,target`, floats %.6g, int target 0..2,
// like shared/peers/gen_data.py's seed.csv) is generated once into the temp
// directory from a fixed seed and reused. The pipeline is a generated
// .sluice program run by driver::runProgram, the path `sluice run` takes:
// filename fifo_queue -> text_line_reader(skip_header_lines: 1) ->
// read_up_to -> decode_csv -> random_shuffle_queue(10000, 1000).enqueue_many
// with a queue_runner of K enqueue ops, drained by dequeue_many(256) until
// out_of_range. The program prints a marker before starting the runner and
// one after the drain; the output stream timestamps them, so only the drain
// is timed (graph building and session start-up are not). The batched
// chain runs as compiled (fuse-read-decode turns read_up_to + decode_csv
// into one op), and once more with the pass off, for what it saves.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench/timed_program.h"

namespace {

namespace fs = std::filesystem;
using sluice::bench::Clock;
using sluice::bench::median;

constexpr int64_t kRows = 2000000;
constexpr int kBatch = 256;       // dequeue_many
constexpr int kReadUpTo = 1024;   // records per read_up_to / enqueue_many
// The per-record chain dispatches three ops per record; a prefix keeps the
// run short, records/s does not depend on the file length.
constexpr int64_t kPerRecordRows = 200000;

// shared/peers/RESULTS.md medians (same machine, same data shape):
// "DataLoader IterableDataset split(',') parse, shuffle buf 10000, batch
// 256, num_workers=0, seed.csv" 229k records/s (the faster worker setting),
// and "read_csv engine='c', seed.csv" 3.93M records/s.
constexpr double kTorchDataLoaderRecPerS = 229000;
constexpr double kPandasReadCsvRecPerS = 3930000;
// Goal: a third of the plain parse loop, which is ~35x the DataLoader and
// ~2x pandas at RESULTS.md's 25.3M records/s ceiling.
constexpr double kGoalVsCeiling = 0.33;
constexpr double kGoalVsTorch = 35;
constexpr double kGoalVsPandas = 2;


/// Writes `rows` data rows after the header to `path` (atomically, via a
/// temp file) unless a file with that header and row count is there.
bool ensureCsv(const fs::path &path, int64_t rows) {
  {
    std::ifstream in(path);
    if (in) {
      std::string line;
      int64_t n = -1;
      while (std::getline(in, line))
        ++n;
      if (n == rows)
        return true;
    }
  }
  // Box-Muller over mt19937_64 keeps the data identical across standard
  // libraries (std::normal_distribution is implementation-defined).
  std::mt19937_64 rng(20240601);
  auto uniform = [&] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };
  auto normal = [&] {
    return std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
  };
  fs::path tmp = path;
  tmp += ".tmp" + std::to_string(::getpid());
  std::FILE *f = std::fopen(tmp.c_str(), "w");
  if (!f)
    return false;
  std::fputs("x1,x2,target\n", f);
  for (int64_t i = 0; i < rows; ++i) {
    float x1 = static_cast<float>(normal()), x2 = static_cast<float>(normal());
    double logit = 1.5 * x1 - 2.0 * x2 + 0.5 * normal();
    int target = logit < -1 ? 0 : logit < 1 ? 1 : 2;
    std::fprintf(f, "%.6g,%.6g,%d\n", static_cast<double>(x1), static_cast<double>(x2), target);
  }
  if (std::fclose(f) != 0)
    return false;
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return !ec;
}

/// The ceiling: from_chars over the in-memory file into float/int arrays
/// (RESULTS.md's "CSV parse (from_chars)" loop: the read is not timed).
/// Returns records/s, median of 3 after a warm-up; negative on bad data.
double ceiling(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> x1(kRows + 1, 0), x2(kRows + 1, 0);
  std::vector<int32_t> y(kRows + 1, 0);
  auto parse = [&]() -> int64_t {
    const char *p = data.data(), *end = p + data.size();
    p = static_cast<const char *>(std::memchr(p, '\n', end - p)) + 1;
    int64_t n = 0;
    while (p < end && n <= kRows) {
      auto r1 = std::from_chars(p, end, x1[n]);
      if (r1.ec != std::errc() || *r1.ptr != ',')
        return -1;
      auto r2 = std::from_chars(r1.ptr + 1, end, x2[n]);
      if (r2.ec != std::errc() || *r2.ptr != ',')
        return -1;
      auto r3 = std::from_chars(r2.ptr + 1, end, y[n]);
      if (r3.ec != std::errc())
        return -1;
      p = r3.ptr;
      if (p < end && *p == '\r')
        ++p;
      if (p < end && *p == '\n')
        ++p;
      ++n;
    }
    return n;
  };
  if (parse() != kRows)
    return -1;
  std::vector<double> rates;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = Clock::now();
    int64_t n = parse();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (n != kRows)
      return -1;
    rates.push_back(static_cast<double>(n) / s);
  }
  return median(rates);
}

/// The pipeline program: `threads` enqueue ops on one shared reader
/// (TF serialises reads on a reader; decode and enqueue run in parallel),
/// batched (read_up_to + enqueue_many) or per record (read + enqueue).
std::string program(const std::string &file, int threads, bool batched, bool fused) {
  std::ostringstream p;
  p << "filename_queue = fifo_queue(capacity: 10, dtypes: [string], shapes: [[]])\n"
       "filename = placeholder(string)\n"
       "enqueue_filename = filename_queue.enqueue(filename)\n"
       "close_filename_queue = filename_queue.close()\n"
       "instance_queue = random_shuffle_queue(capacity: 10000, min_after_dequeue: 1000,\n"
       "    dtypes: [f32, i32], shapes: [[2], []], seed: 7)\n"
       "batch_x, batch_y = instance_queue.dequeue_many("
    << kBatch << ")\n"
    << "reader = text_line_reader(skip_header_lines: 1)\n";
  if (batched)
    p << "fn push(reader) {\n"
         "    key, value = reader.read_up_to(filename_queue, "
      << kReadUpTo << ")\n"
      << "    x1, x2, target = decode_csv(value, record_defaults: [[-1.0], [-1.0], [-1]])\n"
         "    return instance_queue.enqueue_many([stack([x1, x2], axis: 1), target])\n"
         "}\n";
  else
    p << "fn push(reader) {\n"
         "    key, value = reader.read(filename_queue)\n"
         "    x1, x2, target = decode_csv(value, record_defaults: [[-1.0], [-1.0], [-1]])\n"
         "    return instance_queue.enqueue([stack([x1, x2]), target])\n"
         "}\n";
  p << "ops = [push(reader) for i in range(" << threads << ")]\n"
    << "runner = queue_runner(instance_queue, ops)\n"
    << (fused ? "session {\n" : "session(config: config_proto(fuse_read_decode: false)) {\n")
    << "    run(enqueue_filename, feed: {filename: \""
    << file << "\"})\n"
    << "    run(close_filename_queue)\n"
       "    coord = coordinator()\n"
       "    print(\"START\")\n"
       "    threads = runner.create_threads(coord, start: true)\n"
       "    n = 0\n"
       "    try {\n"
       "        while true { run([batch_x, batch_y]); n = n + 1 }\n"
       "    } catch out_of_range { }\n"
       "    print(\"END\")\n"
       "    print(n)\n"
       "    coord.request_stop()\n"
       "    coord.join(threads)\n"
       "}\n";
  return p.str();
}

/// Records/s of one drain of `file` (`rows` data rows); nullopt on failure.
std::optional<double> runPipeline(const fs::path &file, int64_t rows, int threads, bool batched,
                                  bool fused) {
  std::string what = std::string(batched ? "batched" : "per-record") + " " +
                     std::to_string(threads) + "-thread pipeline";
  auto r = sluice::bench::runTimed(program(file.string(), threads, batched, fused), what);
  if (!r)
    return std::nullopt;
  int64_t batches = r->after.empty() ? -1 : std::strtoll(r->after[0].c_str(), nullptr, 10);
  // dequeue_many drops the final partial batch (TF: out_of_range when
  // fewer than 256 remain after close); all full batches must arrive.
  if (batches != rows / kBatch) {
    std::fprintf(stderr, "bench_pipeline: expected %lld batches, got %lld\n",
                 static_cast<long long>(rows / kBatch), static_cast<long long>(batches));
    return std::nullopt;
  }
  return static_cast<double>(batches * kBatch) / r->seconds;
}

/// Median of `reps` drains; nullopt if any failed.
std::optional<double> medianPipeline(const fs::path &file, int64_t rows, int threads,
                                     bool batched, int reps, bool fused = true) {
  std::vector<double> rates;
  for (int i = 0; i < reps; ++i) {
    auto r = runPipeline(file, rows, threads, batched, fused);
    if (!r)
      return std::nullopt;
    rates.push_back(*r);
  }
  return median(rates);
}

} // namespace

int main(int argc, char **argv) {
  // Optional: the number of repetitions per pipeline figure (default 3).
  int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  fs::path dir = fs::temp_directory_path();
  fs::path file = dir / "sluice_pipeline_bench_2000000.csv";
  fs::path prefix = dir / "sluice_pipeline_bench_200000.csv";
  if (!ensureCsv(file, kRows) || !ensureCsv(prefix, kPerRecordRows)) {
    std::fprintf(stderr, "bench_pipeline: cannot write the CSV files in %s\n", dir.c_str());
    return 1;
  }
  double ceil = ceiling(file);
  if (ceil <= 0) {
    std::fprintf(stderr, "bench_pipeline: %s does not parse\n", file.c_str());
    return 1;
  }
  std::printf("BENCH csv_ceiling_records_per_s %.0f rec/s ratio=1 goal=1\n", ceil);
  std::fflush(stdout);
  double best = 0;
  int status = 0;
  for (int k : {1, 2, 4}) {
    auto r = medianPipeline(file, kRows, k, true, reps);
    if (!r) {
      status = 1;
      continue;
    }
    best = std::max(best, *r);
    std::printf("BENCH csv_pipeline_%dthreads_records_per_s %.0f rec/s ratio=%.3f goal=%.2f\n", k,
                *r, *r / ceil, kGoalVsCeiling);
    std::fflush(stdout);
  }
  // Without the fuse-read-decode pass: read_up_to's strings, then
  // decode_csv (what the pass saves).
  if (auto r = medianPipeline(file, kRows, 1, true, 1, false)) {
    std::printf("BENCH csv_pipeline_unfused_1threads_records_per_s %.0f rec/s ratio=%.3f "
                "goal=%.2f\n",
                *r, *r / ceil, kGoalVsCeiling);
    std::fflush(stdout);
  } else {
    status = 1;
  }
  // The per-record chain: one run, on the 200k-row prefix (it is slow).
  if (auto r = medianPipeline(prefix, kPerRecordRows, 1, false, 1)) {
    std::printf("BENCH csv_pipeline_per_record_records_per_s %.0f rec/s ratio=%.3f goal=%.2f\n", *r,
                *r / ceil, kGoalVsCeiling);
  } else {
    status = 1;
  }
  if (best > 0) {
    double vsTorch = best / kTorchDataLoaderRecPerS;
    double vsPandas = best / kPandasReadCsvRecPerS;
    std::printf("BENCH csv_pipeline_vs_torch_dataloader %.2f x ratio=%.3f goal=%g\n", vsTorch,
                vsTorch, kGoalVsTorch);
    std::printf("BENCH csv_pipeline_vs_pandas %.2f x ratio=%.3f goal=%g\n", vsPandas, vsPandas,
                kGoalVsPandas);
  }
  return status;
}
