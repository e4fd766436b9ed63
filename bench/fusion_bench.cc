// bench/fusion_bench.cc: y = relu(a * x + b) over 64M floats (and a softmax
// over its rows of 1024) three ways in one run: the interpreter running the three ops unfused, the JIT running
// the fused cluster, and a hand-fused C++ loop (the ceiling: one read and
// one write per element, into a buffer it reuses). GB/s counts the 8 bytes
// an element must move (x read, y written) for all three, so the ratio is
// ours / the hand loop's throughput, at 1 and 2 threads. Beside them, in
// the same run: STREAM's triad (the memory ceiling; its ratio is the fused
// JIT's GB/s over it) and, when ../shared/peers and their packages are
// present, numpy's and torch's figures for the same expression (ratio: the
// fused JIT's GB/s over theirs).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <thread>
#include <vector>

#include "backend/jit/jit.h"
#include "bench/peers.h"
#include "bench/bench_graph.h"
#include "runtime/session.h"

using namespace sluice;

namespace {

constexpr int64_t kN = int64_t(64) << 20;
constexpr int kReps = 5;
constexpr double kGoal = 0.8;
constexpr float kA = 1.5f, kB = -0.25f;

ir::Output add(ir::Graph &g, const std::string &op, std::vector<ir::Output> inputs,
               ir::AttrMap attrs = {}) {
  return bench::addOp(g, op, std::move(inputs), std::move(attrs));
}
ir::Output scalar(ir::Graph &g, float v) { return bench::scalarF32(g, v); }

double gbps(double seconds) { return kN * 8.0 / seconds / 1e9; }

// The best of kReps steps (after one warm-up) of y = relu(a * x + b).
double sessionSeconds(const ir::Graph &g, ir::Output x, ir::Output y, const ir::Tensor &xv,
                      const std::string &backend, bool fusion, int threads) {
  rt::SessionOptions o;
  o.backend = backend;
  o.fusion = fusion;
  o.intraOpThreads = threads;
  auto s = rt::Session::create(&g, nullptr, o);
  if (!s.hasValue()) {
    std::fprintf(stderr, "%s\n", s.status().toString().c_str());
    std::exit(1);
  }
  double best = 1e9;
  for (int i = 0; i < kReps + 1; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = (*s)->run({{x, xv}}, {y}, {});
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.hasValue()) {
      std::fprintf(stderr, "%s\n", r.status().toString().c_str());
      std::exit(1);
    }
    if ((*r)[0].data<float>()[7] != std::max(kA * xv.data<float>()[7] + kB, 0.0f)) {
      std::fprintf(stderr, "fusion_bench: %s gave a wrong result\n", backend.c_str());
      std::exit(1);
    }
    if (i > 0)
      best = std::min(best, t);
  }
  return best;
}

/// The best of kReps timed runs (after one warm-up) of part(begin, end)
/// over [0, total) split evenly over `threads` (the caller's thread
/// takes the first share).
template <typename Part> double bestSplitSeconds(const Part &part, int64_t total, int threads) {
  double best = 1e9;
  for (int rep = 0; rep < kReps + 1; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ws;
    int64_t chunk = total / threads;
    for (int t = 1; t < threads; ++t)
      ws.emplace_back(part, t * chunk, t + 1 == threads ? total : (t + 1) * chunk);
    part(0, chunk);
    for (auto &w : ws)
      w.join();
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep > 0)
      best = std::min(best, t);
  }
  return best;
}

double handLoopSeconds(const float *x, float *y, int threads) {
  auto part = [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      float v = kA * x[i] + kB;
      y[i] = v < 0 ? 0 : v;
    }
  };
  return bestSplitSeconds(part, kN, threads);
}

// softmax over rows of 1024: y = exp(x - max) / sum(exp(x - max)), built
// from reduce_max, subtract, exp, reduce_sum and divide. Fusion makes it
// one row-walking kernel (max, then exp kept in a row buffer and summed,
// then the divide), as the hand loop: one pass per row over rows that stay
// in cache.
constexpr int64_t kRow = 1024;

struct Softmax {
  ir::Graph g;
  ir::Output x, y, op;
};

void buildSoftmax(Softmax &m) {
  m.x = add(m.g, "placeholder", {}, {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({kN / kRow, kRow})}});
  ir::AttrMap rows = {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}};
  ir::Output mx = add(m.g, "reduce_max", {m.x}, rows);
  ir::Output e = add(m.g, "exp", {add(m.g, "subtract", {m.x, mx})});
  m.y = add(m.g, "divide", {e, add(m.g, "reduce_sum", {e}, rows)});
  m.op = add(m.g, "softmax", {m.x});
}

double softmaxSeconds(const Softmax &m, ir::Output y, const ir::Tensor &xv,
                      const std::string &backend, bool fusion, int threads) {
  rt::SessionOptions o;
  o.backend = backend;
  o.fusion = fusion;
  o.intraOpThreads = threads;
  auto s = rt::Session::create(&m.g, nullptr, o);
  double best = 1e9;
  for (int i = 0; i < kReps + 1; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = (*s)->run({{m.x, xv}}, {y}, {});
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.hasValue()) {
      std::fprintf(stderr, "%s\n", r.status().toString().c_str());
      std::exit(1);
    }
    if (i > 0)
      best = std::min(best, t);
  }
  return best;
}

double softmaxLoopSeconds(const float *x, float *y, int threads) {
  auto part = [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const float *xr = x + r * kRow;
      float *yr = y + r * kRow;
      float mx = xr[0];
      for (int64_t i = 1; i < kRow; ++i)
        mx = xr[i] > mx ? xr[i] : mx;
      float sum = 0;
      for (int64_t i = 0; i < kRow; ++i) {
        yr[i] = std::exp(xr[i] - mx);
        sum += yr[i];
      }
      float inv = 1.0f / sum;
      for (int64_t i = 0; i < kRow; ++i)
        yr[i] *= inv;
    }
  };
  return bestSplitSeconds(part, kN / kRow, threads);
}

// The first step of a small y = relu(a * x + b) in a fresh session, after
// the JIT forgot what it compiled and pointed its disk cache at `dir`:
// with `dir` empty that is a compile, with it filled a load.
double firstStepMs(const std::string &dir) {
  backend::jit::resetForTesting(dir);
  ir::Graph g;
  ir::Output x = add(g, "placeholder", {}, {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({1024})}});
  ir::Output y = add(g, "relu", {add(g, "add", {add(g, "multiply", {scalar(g, kA), x}), scalar(g, kB)})});
  rt::SessionOptions o;
  auto s = rt::Session::create(&g, nullptr, o);
  ir::Tensor xv(ir::DType::kF32, {1024});
  auto t0 = std::chrono::steady_clock::now();
  auto r = (*s)->run({{x, xv}}, {y}, {});
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!r.hasValue()) {
    std::fprintf(stderr, "%s\n", r.status().toString().c_str());
    std::exit(1);
  }
  return ms;
}

// STREAM triad a = b + s * c: 12 bytes per element (two reads, a write).
double triadSeconds(float *a, const float *b, const float *c, int threads) {
  auto part = [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      a[i] = b[i] + kA * c[i];
  };
  return bestSplitSeconds(part, kN, threads);
}

// numpy (one thread) and torch (1 and 2) on y = max(a*x+b, 0), each line
// with the fused JIT's GB/s at that thread count over the peer's.
void peerLines(const double jitGBps[3]) {
  struct Run {
    const char *lib;
    int threads;
  };
  for (Run r : {Run{"numpy", 1}, Run{"torch", 1}, Run{"torch", 2}}) {
    std::string why;
    auto figures = bench::runPeerScript(
        "elementwise.py", std::string(r.lib) + " " + std::to_string(r.threads) + " 3", &why);
    if (figures.empty())
      std::fprintf(stderr, "fusion_bench: no %s figure: %s\n", r.lib, why.c_str());
    for (const bench::PeerFigure &f : figures) {
      // torch's labels end in ", 1T"; numpy's name no thread count.
      std::string slug = bench::benchSlug(f.name);
      std::string threads = std::to_string(r.threads);
      threads += 't';
      if (slug.size() < threads.size() || slug.compare(slug.size() - threads.size(), threads.size(), threads) != 0) {
        slug += '_';
        slug += threads;
      }
      std::printf("BENCH fusion_relu_axb_peer_%s_GBps %.2f GB/s ratio=%.3f goal=1.0\n",
                  slug.c_str(), f.median, jitGBps[r.threads] / f.median);
    }
  }
}

} // namespace

int main() {
  ir::Graph g;
  ir::Output x = add(g, "placeholder", {}, {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({kN})}});
  ir::Output y = add(g, "relu", {add(g, "add", {add(g, "multiply", {scalar(g, kA), x}), scalar(g, kB)})});
  ir::Tensor xv = ir::Tensor::uninitialized(ir::DType::kF32, {kN});
  for (int64_t i = 0; i < kN; ++i)
    xv.data<float>()[i] = static_cast<float>((i * 7919) % 2001 - 1000) * 0.001f;
  std::vector<float> out(kN, 1.0f); // touched once: the hand loop reuses it

  auto jit0 = backend::jit::stats();
  double jitGBps[3] = {0, 0, 0};
  for (int threads : {1, 2}) {
    double hand = gbps(handLoopSeconds(xv.data<float>(), out.data(), threads));
    double interp = gbps(sessionSeconds(g, x, y, xv, "interp", false, threads));
    double jit = gbps(sessionSeconds(g, x, y, xv, "jit", true, threads));
    std::printf("BENCH fusion_relu_axb_interp_unfused_%dt_GBps %.2f GB/s ratio=%.3f goal=%.1f\n",
                threads, interp, interp / hand, kGoal);
    std::printf("BENCH fusion_relu_axb_jit_fused_%dt_GBps %.2f GB/s ratio=%.3f goal=%.1f\n", threads,
                jit, jit / hand, kGoal);
    std::printf("BENCH fusion_relu_axb_hand_loop_%dt_GBps %.2f GB/s ratio=1.000 goal=%.1f\n",
                threads, hand, kGoal);
    jitGBps[threads] = jit;
  }
  {
    std::vector<float> b(kN, 1.0f), c(kN, 2.0f);
    for (int threads : {1, 2}) {
      double triad = 12.0 * static_cast<double>(kN) /
                     triadSeconds(out.data(), b.data(), c.data(), threads) / 1e9;
      std::printf("BENCH fusion_memory_triad_%dt_GBps %.2f GB/s ratio=%.3f goal=%.1f\n", threads,
                  triad, jitGBps[threads] / triad, kGoal);
    }
  }
  peerLines(jitGBps);
  {
    Softmax sm;
    buildSoftmax(sm);
    for (int threads : {1, 2}) {
      double hand = gbps(softmaxLoopSeconds(xv.data<float>(), out.data(), threads));
      double interp = gbps(softmaxSeconds(sm, sm.y, xv.reshaped({kN / kRow, kRow}), "interp", false, threads));
      double jit = gbps(softmaxSeconds(sm, sm.y, xv.reshaped({kN / kRow, kRow}), "jit", true, threads));
      double op = gbps(softmaxSeconds(sm, sm.op, xv.reshaped({kN / kRow, kRow}), "interp", false, threads));
      std::printf("BENCH fusion_softmax_interp_unfused_%dt_GBps %.2f GB/s ratio=%.3f goal=%.1f\n",
                  threads, interp, interp / hand, kGoal);
      std::printf("BENCH fusion_softmax_jit_fused_%dt_GBps %.2f GB/s ratio=%.3f goal=%.1f\n", threads,
                  jit, jit / hand, kGoal);
      std::printf("BENCH fusion_softmax_op_kernel_%dt_GBps %.2f GB/s ratio=%.3f goal=%.1f\n", threads,
                  op, op / hand, kGoal);
      std::printf("BENCH fusion_softmax_hand_loop_%dt_GBps %.2f GB/s ratio=1.000 goal=%.1f\n",
                  threads, hand, kGoal);
    }
  }
  auto jit1 = backend::jit::stats();
  std::fprintf(stderr, "fusion_bench: jit compiled %lld, loaded %lld from %s\n",
               static_cast<long long>(jit1.compiled - jit0.compiled),
               static_cast<long long>(jit1.diskHits - jit0.diskHits),
               backend::jit::cacheDirectory().c_str());

  // Compile time: the first step cold (an empty cache directory) against
  // warm (the same directory, as a second process sees it).
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("sluice-fusion-bench-" + std::to_string(::getpid())))
                        .string();
  double cold = firstStepMs(dir);
  double warm = firstStepMs(dir);
  std::filesystem::remove_all(dir);
  std::printf("BENCH fusion_jit_first_step_cold_ms %.2f ms ratio=%.3f goal=1\n", cold, 1.0);
  std::printf("BENCH fusion_jit_first_step_disk_cache_ms %.2f ms ratio=%.2f goal=10\n", warm,
              cold / warm);
  return 0;
}
