// bench/gpu_bench.cc: on GPU:0, when there is one: the fused kernels of
// y = relu(a * x + b), of softmax's elementwise pass exp(x - m), and of a
// whole softmax over rows of 1024 (one row program: a thread a row) over
// 64M floats, launched as the GPU backend launches them (PTX from the
// fusion pass's cluster), in GB/s (8 bytes an element: x read, y written)
// against the device's memory bandwidth measured in the same run by a
// device-to-device copy; cuBLAS's sgemm (matmul on a GPU) on 4096^2
// matrices; and the host<->device copy bandwidth. Without a GPU it says
// why on one line and exits 0.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <vector>

#include "backend/gpu/blas.h"
#include "backend/gpu/platform.h"
#include "backend/jit/gpu_program.h"
#include "bench/bench_graph.h"
#include "passes/pipeline.h"
#include "runtime/pass_config.h"
#include "runtime/session_devices.h"

using namespace sluice;
namespace jit = backend::jit;
namespace gpu = backend::gpu;

namespace {

constexpr int64_t kDefaultN = int64_t(64) << 20;
constexpr int kReps = 20;
constexpr double kH200GBs = 4800;    // the H200's nominal HBM3e bandwidth
constexpr double kH200Fp32GFs = 67000; // and its nominal FP32 (non-tensor-core) rate

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

ir::Output add(ir::Graph &g, const std::string &op, std::vector<ir::Output> inputs,
               ir::AttrMap attrs = {}) {
  return bench::addOp(g, op, std::move(inputs), std::move(attrs));
}
ir::Output scalar(ir::Graph &g, float v) { return bench::scalarF32(g, v); }

void die(const Status &s) {
  std::fprintf(stderr, "bench_gpu: %s\n", s.toString().c_str());
  std::exit(1);
}

/// The GPU program of the one fused cluster the session pipeline makes of
/// `g` (fetching `y`) when it is placed on GPU:0.
jit::GpuProgram clusterOf(std::unique_ptr<ir::Graph> g, ir::Output y, const std::string &arch) {
  passes::PassContext ctx;
  ctx.fetches = {y};
  ctx.options.devices = rt::sessionDevices(*g, {});
  ctx.options.kernels = rt::kernelQueries(rt::sessionKernels(nullptr, "jit", true));
  passes::PipelineOptions po;
  po.place = true;
  po.fuse = true;
  if (Status s = passes::runPipeline(g, ctx, po); !s.isOk())
    die(s);
  const ir::Node &fused = g->node(ctx.fetches[0].node);
  if (fused.opName() != "fused" || fused.assignedDevice().find("GPU") == std::string::npos)
    die(internalError("the cluster did not form on the GPU: " + fused.opName() + " on " + fused.assignedDevice()));
  auto body = g->functions().find(fused.attr<std::string>("f"));
  auto prog = backend::jit::compileGpuProgram(*body, "sluice_bench", arch);
  if (!prog.hasValue())
    die(prog.status());
  return std::move(*prog);
}

/// Seconds per launch of `prog` over x (the other inputs scalars).
double timeKernel(gpu::Device &d, const jit::GpuProgram &prog, const ir::Tensor &x,
                  const std::vector<float> &scalars) {
  std::vector<ir::Tensor> keep;
  std::vector<gpu::CUdeviceptr> ptrs;
  size_t next = 0;
  for (const auto &dims : prog.program.inputDims) {
    ir::Tensor host = dims.empty() ? ir::Tensor::scalar<float>(scalars.at(next++)) : x;
    auto t = host.isOnDevice() ? Expected<ir::Tensor>(host) : d.upload(host);
    if (!t.hasValue())
      die(t.status());
    ptrs.push_back(t->deviceMemory()->address());
    keep.push_back(*t);
  }
  auto y = d.allocateTensor(ir::DType::kF32, prog.program.outputDims[0]);
  if (!y.hasValue())
    die(y.status());
  ptrs.push_back(y->deviceMemory()->address());
  auto f = d.function(prog.ptx, prog.entries[0]);
  if (!f.hasValue())
    die(f.status());
  int64_t count = prog.counts[0];
  std::vector<void *> params;
  for (auto &p : ptrs)
    params.push_back(&p);
  params.push_back(&count);
  auto launch = [&] {
    if (Status s = d.launch(*f, count, params.data()); !s.isOk())
      die(s);
  };
  launch(); // loads and warms
  if (Status s = d.synchronize(); !s.isOk())
    die(s);
  auto t0 = Clock::now();
  for (int r = 0; r < kReps; ++r)
    launch();
  if (Status s = d.synchronize(); !s.isOk())
    die(s);
  return seconds(t0) / kReps;
}

/// GFLOP/s of cuBLAS's sgemm on n x n matrices (what `matmul` on a GPU
/// calls); 0 without cuBLAS.
double gemmRate(gpu::Device &d, int n) {
  if (!gpu::blasAvailable()) {
    std::fprintf(stderr, "bench_gpu: no matmul figure: %s\n", gpu::blasUnavailableReason().c_str());
    return 0;
  }
  auto h = gpu::blasHandle(d);
  if (!h.hasValue())
    die(h.status());
  ir::Dims dims{n, n};
  auto a = d.upload(ir::Tensor(ir::DType::kF32, dims)), c = d.allocateTensor(ir::DType::kF32, dims);
  if (!a.hasValue() || !c.hasValue())
    die(!a.hasValue() ? a.status() : c.status());
  auto *pa = reinterpret_cast<const float *>(a->deviceMemory()->address());
  auto *pc = reinterpret_cast<float *>(c->deviceMemory()->address());
  const float one = 1, zero = 0;
  auto gemm = [&] {
    if (gpu::blas().cublasSgemm(*h, gpu::kCublasOpN, gpu::kCublasOpN, n, n, n, &one, pa, n, pa, n,
                                &zero, pc, n) != 0)
      die(internalError("cublasSgemm failed"));
  };
  gemm();
  if (Status s = d.synchronize(); !s.isOk())
    die(s);
  auto t0 = Clock::now();
  for (int r = 0; r < kReps; ++r)
    gemm();
  if (Status s = d.synchronize(); !s.isOk())
    die(s);
  return 2.0 * n * n * double(n) * kReps / seconds(t0) / 1e9;
}

} // namespace

int main(int argc, char **argv) {
  // An element count as argument: the fake-driver smoke test's small run.
  const int64_t elements = argc > 1 ? std::max<int64_t>(1, std::atoll(argv[1])) : kDefaultN;
  if (gpu::deviceCount() == 0) {
    std::printf("bench_gpu: skipped: no GPU (%s)\n", gpu::unavailableReason().c_str());
    return 0;
  }
  auto dev = *gpu::device(0);
  gpu::Device &d = *dev;
  std::string archNote;
  std::string arch = gpu::ptxArch(d.computeCapability(), &archNote);
  std::fprintf(stderr, "bench_gpu: %s, compute capability %d.%d, %d SMs, PTX for %s%s%s\n",
               d.name().c_str(), d.computeCapability() / 10, d.computeCapability() % 10,
               d.multiprocessors(), arch.c_str(), archNote.empty() ? "" : ": ", archNote.c_str());
  const size_t bytes = static_cast<size_t>(elements) * sizeof(float);
  ir::Tensor host = ir::Tensor::uninitialized(ir::DType::kF32, {elements});
  for (int64_t i = 0; i < elements; ++i)
    host.data<float>()[i] = static_cast<float>(i % 1000) * 0.01f - 5.0f;

  // Host <-> device (pageable host memory, as the backend's copies).
  auto t0 = Clock::now();
  auto x = d.upload(host);
  if (!x.hasValue())
    die(x.status());
  if (Status s = d.synchronize(); !s.isOk())
    die(s);
  double htod = bytes / seconds(t0) / 1e9;
  t0 = Clock::now();
  auto back = x->toHost();
  if (!back.hasValue())
    die(back.status());
  double dtoh = bytes / seconds(t0) / 1e9;

  // The device's memory bandwidth: a copy reads and writes every byte.
  auto y = d.allocateTensor(ir::DType::kF32, {elements});
  if (!y.hasValue())
    die(y.status());
  auto copy = [&] {
    if (Status s = d.copyOnDevice(y->deviceMemory()->address(), x->deviceMemory()->address(), bytes);
        !s.isOk())
      die(s);
  };
  copy();
  if (Status s = d.synchronize(); !s.isOk())
    die(s);
  t0 = Clock::now();
  for (int r = 0; r < kReps; ++r)
    copy();
  if (Status s = d.synchronize(); !s.isOk())
    die(s);
  double dtod = 2.0 * bytes * kReps / seconds(t0) / 1e9;

  auto relu = std::make_unique<ir::Graph>();
  ir::Output xr = add(*relu, "placeholder", {}, {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({elements})}});
  ir::Output yr = add(*relu, "relu", {add(*relu, "add", {add(*relu, "multiply", {scalar(*relu, 1.5f), xr}), scalar(*relu, -0.25f)})});
  double reluS = timeKernel(d, clusterOf(std::move(relu), yr, arch), *x, {1.5f, -0.25f});

  auto soft = std::make_unique<ir::Graph>();
  ir::Output xs = add(*soft, "placeholder", {}, {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({elements})}});
  ir::Output ys = add(*soft, "exp", {add(*soft, "subtract", {xs, scalar(*soft, 5.0f)})});
  double softS = timeKernel(d, clusterOf(std::move(soft), ys, arch), *x, {5.0f});

  // The whole softmax: rows of 1024, or shorter ones when the run is small
  // (a GPU takes a row reduction from 4096 rows on).
  int64_t rowLen = elements / 1024 >= 4096 ? 1024 : std::max<int64_t>(1, elements / 4096);
  int64_t rows = elements / rowLen;
  auto rowSoft = std::make_unique<ir::Graph>();
  ir::Output xrow = add(*rowSoft, "placeholder", {}, {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({rows, rowLen})}});
  ir::AttrMap byRow = {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}};
  ir::Output erow = add(*rowSoft, "exp", {add(*rowSoft, "subtract", {xrow, add(*rowSoft, "reduce_max", {xrow}, byRow)})});
  ir::Output yrow = add(*rowSoft, "divide", {erow, add(*rowSoft, "reduce_sum", {erow}, byRow)});
  double rowS = timeKernel(d, clusterOf(std::move(rowSoft), yrow, arch), *x, {});
  std::fprintf(stderr, "bench_gpu: softmax over %lld rows of %lld\n", static_cast<long long>(rows),
               static_cast<long long>(rowLen));

  double reluGBs = 8.0 * elements / reluS / 1e9, softGBs = 8.0 * elements / softS / 1e9;
  double rowGBs = 8.0 * static_cast<double>(rows * rowLen) / rowS / 1e9;
  std::printf("BENCH gpu_dtod_copy_GBps %.1f GB/s ratio=%.3f goal=0.9\n", dtod, dtod / kH200GBs);
  std::printf("BENCH gpu_relu_axb_fused_GBps %.1f GB/s ratio=%.3f goal=0.8\n", reluGBs,
              reluGBs / dtod);
  std::printf("BENCH gpu_softmax_exp_pass_fused_GBps %.1f GB/s ratio=%.3f goal=0.8\n", softGBs,
              softGBs / dtod);
  std::printf("BENCH gpu_softmax_rows_fused_GBps %.1f GB/s ratio=%.3f goal=0.8\n", rowGBs,
              rowGBs / dtod);
  if (double gf = gemmRate(d, 4096); gf > 0)
    std::printf("BENCH gpu_matmul_4096_sgemm_GFLOPs %.0f GFLOP/s ratio=%.3f goal=0.5\n", gf,
                gf / kH200Fp32GFs);
  std::printf("BENCH gpu_htod_copy_GBps %.1f GB/s ratio=1.000 goal=1\n", htod);
  std::printf("BENCH gpu_dtoh_copy_GBps %.1f GB/s ratio=1.000 goal=1\n", dtoh);
  std::fprintf(stderr, "bench_gpu: ratios: the kernels against the measured copy bandwidth; the "
                       "copy against the H200's nominal %.0f GB/s\n", kH200GBs);
  return 0;
}
