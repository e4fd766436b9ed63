// bench/partition_bench.cc: what spreading a step over several devices
// costs. The same 4-tower graph (each tower a chain of small matmuls, the
// towers summed on /cpu:0) runs in a session with 4 CPU devices, where the
// partitioner cuts it into 4 executors joined by the rendezvous, and with
// --one-device's setting, where one executor runs it all; the ratio is
// single-device step time over multi-device step time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/session.h"

using namespace sluice;

namespace {

constexpr int kTowers = 4;
constexpr int kWarmup = 20;
constexpr int kSteps = 400;
// A step this small shows the partitioning overhead itself; the goal is
// that cutting a step over 4 devices costs at most a third more.
constexpr double kGoal = 0.75;

ir::Output add(ir::Graph &g, std::string name, std::string op, std::vector<ir::Output> inputs,
               ir::AttrMap attrs, const std::string &device) {
  ir::NodeSpec spec;
  spec.name = std::move(name);
  spec.op = std::move(op);
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  spec.requestedDevice = device;
  auto n = g.addNode(std::move(spec));
  if (!n.hasValue()) {
    std::fprintf(stderr, "%s\n", n.status().toString().c_str());
    std::exit(1);
  }
  return {(*n)->id(), 0};
}

struct Model {
  ir::Graph g;
  ir::Output x, out;
};

// x[16,16] fed on /cpu:0; tower i on /cpu:i multiplies it by its own
// weights `depth` times; the sum comes back to /cpu:0.
void build(Model &m, int depth) {
  ir::Tensor w(ir::DType::kF32, ir::Dims{16, 16});
  for (int64_t i = 0; i < w.numElements(); ++i)
    w.data<float>()[i] = (i % 7 == 0) ? 0.1f : 0.0f;
  m.x = add(m.g, "x", "placeholder", {}, {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({16, 16})}},
            "/cpu:0");
  std::vector<ir::Output> towers;
  for (int t = 0; t < kTowers; ++t) {
    std::string dev = "/cpu:" + std::to_string(t);
    ir::Output wt = add(m.g, "w" + std::to_string(t), "constant", {},
                        {{"value", w}, {"dtype", ir::DType::kF32}}, dev);
    ir::Output h = m.x;
    for (int d = 0; d < depth; ++d)
      h = add(m.g, "t" + std::to_string(t) + "_mm" + std::to_string(d), "matmul", {h, wt}, {}, dev);
    towers.push_back(h);
  }
  m.out = add(m.g, "sum", "add_n", towers, {}, "/cpu:0");
}

double stepSeconds(const Model &m, bool oneDevice) {
  rt::SessionOptions o;
  o.deviceCount = {{"CPU", kTowers}};
  o.ignoreDeviceRequests = oneDevice;
  auto s = rt::Session::create(&m.g, nullptr, o);
  if (!s.hasValue()) {
    std::fprintf(stderr, "%s\n", s.status().toString().c_str());
    std::exit(1);
  }
  ir::Tensor feed(ir::DType::kF32, ir::Dims{16, 16});
  std::fill(feed.data<float>(), feed.data<float>() + 256, 1.0f);
  std::vector<double> secs;
  for (int i = 0; i < kWarmup + kSteps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = (*s)->run({{m.x, feed}}, {m.out}, {});
    auto t1 = std::chrono::steady_clock::now();
    if (!r.hasValue()) {
      std::fprintf(stderr, "%s\n", r.status().toString().c_str());
      std::exit(1);
    }
    if (i >= kWarmup)
      secs.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::sort(secs.begin(), secs.end());
  return secs[secs.size() / 2];
}

} // namespace

int main() {
  for (int depth : {1, 16}) {
    Model m;
    build(m, depth);
    double multi = stepSeconds(m, false);
    double single = stepSeconds(m, true);
    std::printf("BENCH partitioned_step_%dx%d_us %.1f us ratio=%.3f goal=%.2f\n", kTowers, depth,
                multi * 1e6, single / multi, kGoal);
  }
  return 0;
}
