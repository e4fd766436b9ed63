// tests/gpu/real_gpu_test.cc: on a real GPU (the CUDA driver opened at run
// time; skipped, saying why, where there is none): every elementwise op
// and dtype the PTX path has code for gives the interpreter's results
// within the tolerance below, run as GPU kernels; copies round-trip.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "backend/gpu/blas.h"
#include "backend/gpu/host_kernel.h"
#include "backend/gpu/platform.h"
#include "tests/jit/jit_test_util.h"

namespace sluice {
namespace {

namespace gpu = backend::gpu;
using jittest::add;
using jittest::maxUlps;
using jittest::placeholder;
using jittest::randomTensor;

// Stated tolerance (ulp, float dtypes). Integer and bool results must be
// equal. Arithmetic, sqrt and division are IEEE-rounded on both sides;
// one ulp is allowed for NVPTX contracting a multiply and an add into an
// fma. exp, log, pow, tanh and sigmoid come from CUDA's libdevice on the
// GPU and from glibc on the CPU: each is within 1-4 ulp of exact.
constexpr int64_t kArithmeticUlps = 1;
constexpr int64_t kTranscendentalUlps = 8;
const std::set<std::string> kTranscendental = {"exp", "log", "pow", "tanh", "sigmoid"};

class RealGpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    gpu::resetForTesting(); // other tests of this binary install fakes
    if (gpu::deviceCount() == 0)
      GTEST_SKIP() << "no GPU: " << gpu::unavailableReason();
  }

  // op over fresh inputs of `types`/`shapes`, then a same-dtype cast (a
  // two-op cluster): the interpreter on the CPU against the GPU.
  bool check(const std::string &op, std::vector<ir::DType> types,
             std::vector<std::vector<int64_t>> shapes, ir::AttrMap attrs = {}) {
    ir::Graph g;
    std::vector<ir::Output> ins;
    std::vector<std::pair<ir::Output, ir::Tensor>> feeds;
    for (size_t i = 0; i < shapes.size(); ++i) {
      ins.push_back(placeholder(g, types[i], shapes[i]));
      feeds.emplace_back(ins.back(), randomTensor(types[i], shapes[i], rng_));
    }
    Status error;
    ir::Output y = add(g, op, ins, attrs, &error);
    if (y.node == ir::kNoNode)
      return false;
    ir::DType yt = g.node(y.node).outputType(0);
    ir::Output z = add(g, "cast", {y}, {{"dtype", yt}});
    std::string what = op + " " + std::string(ir::dtypeName(types[0]));
    auto want = jittest::runWith(g, {"interp", false}, feeds, {z});
    auto before = gpu::stats();
    auto got = jittest::runWith(g, {"jit", true}, feeds, {z});
    auto after = gpu::stats();
    EXPECT_TRUE(want.hasValue()) << what << ": " << want.status().toString();
    EXPECT_TRUE(got.hasValue()) << what << ": " << got.status().toString();
    if (!want.hasValue() || !got.hasValue())
      return true;
    bool onGpu = after.launches > before.launches && after.hostFallbacks == before.hostFallbacks;
    gpuCases_ += onGpu;
    int64_t tolerance = !ir::isFloating(yt)             ? 0
                        : kTranscendental.count(op) > 0 ? kTranscendentalUlps
                                                        : kArithmeticUlps;
    EXPECT_LE(maxUlps((*want)[0], (*got)[0]), tolerance)
        << what << (onGpu ? " (GPU)" : " (host)") << "\ninterp: " << ir::formatTensor((*want)[0])
        << "\ngpu:    " << ir::formatTensor((*got)[0]);
    return true;
  }

  std::mt19937 rng_{7};
  int gpuCases_ = 0;
};

const ir::DType kNumeric[] = {ir::DType::kF32, ir::DType::kF64, ir::DType::kI8, ir::DType::kI16,
                              ir::DType::kI32, ir::DType::kI64, ir::DType::kU8};

TEST_F(RealGpuTest, UnaryOpsMatchTheInterpreter) {
  for (const char *op : {"negative", "abs", "square", "sqrt", "rsqrt", "exp", "log", "sigmoid",
                         "tanh", "relu", "sign", "floor", "ceil", "round"})
    for (ir::DType t : kNumeric)
      check(op, {t}, {{67, 129}});
  EXPECT_TRUE(check("logical_not", {ir::DType::kBool}, {{1000}}));
  EXPECT_GE(gpuCases_, 30) << "too few cases ran as GPU kernels";
}

TEST_F(RealGpuTest, BinaryOpsWithBroadcastingMatchTheInterpreter) {
  const std::vector<std::vector<std::vector<int64_t>>> patterns = {
      {{600, 5}, {600, 5}}, {{60, 50}, {50}}, {{60, 1}, {1, 50}}, {{}, {600, 5}}};
  for (const char *op : {"add", "subtract", "multiply", "divide", "maximum", "minimum",
                         "squared_difference", "pow", "equal", "not_equal", "less",
                         "less_equal", "greater", "greater_equal"})
    for (ir::DType t : kNumeric)
      for (const auto &shapes : patterns)
        if (std::string(op) != "pow" || ir::isFloating(t))
          check(op, {t, t}, shapes);
  EXPECT_GE(gpuCases_, 200) << "too few cases ran as GPU kernels";
}

TEST_F(RealGpuTest, CastsMatchTheInterpreter) {
  const ir::DType all[] = {ir::DType::kF32, ir::DType::kF64, ir::DType::kI8,  ir::DType::kI16,
                           ir::DType::kI32, ir::DType::kI64, ir::DType::kU8,  ir::DType::kBool};
  for (ir::DType from : all)
    for (ir::DType to : all)
      EXPECT_TRUE(check("cast", {from}, {{4099}}, {{"dtype", to}}));
  EXPECT_GE(gpuCases_, 60);
}

TEST_F(RealGpuTest, MatmulMatchesTheCpu) {
  if (!gpu::blasAvailable())
    GTEST_SKIP() << "no cuBLAS: " << gpu::blasUnavailableReason();
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      ir::Graph g;
      ir::Dims ad = ta ? ir::Dims{300, 257} : ir::Dims{257, 300};
      ir::Dims bd = tb ? ir::Dims{129, 300} : ir::Dims{300, 129};
      ir::Output a = placeholder(g, ir::DType::kF32, ad), b = placeholder(g, ir::DType::kF32, bd);
      ir::Output c = add(g, "matmul", {a, b}, {{"transpose_a", ta}, {"transpose_b", tb}});
      std::uniform_real_distribution<float> u(-1, 1);
      ir::Tensor av(ir::DType::kF32, ad), bv(ir::DType::kF32, bd);
      for (int64_t i = 0; i < av.numElements(); ++i)
        av.data<float>()[i] = u(rng_);
      for (int64_t i = 0; i < bv.numElements(); ++i)
        bv.data<float>()[i] = u(rng_);
      auto want = jittest::runWith(g, {"interp", false}, {{a, av}, {b, bv}}, {c});
      auto before = gpu::stats().launches;
      auto got = jittest::runWith(g, {"jit", true}, {{a, av}, {b, bv}}, {c});
      ASSERT_TRUE(want.hasValue() && got.hasValue());
      EXPECT_GT(gpu::stats().launches, before) << "the product did not run on the GPU";
      // Summation orders differ: each of the 300 terms is below 1 in size.
      double worst = 0;
      for (int64_t i = 0; i < (*want)[0].numElements(); ++i)
        worst = std::max(worst, double(std::abs((*want)[0].data<float>()[i] -
                                                (*got)[0].data<float>()[i])));
      EXPECT_LE(worst, 1e-3) << "ta=" << ta << " tb=" << tb;
    }
}

// Reductions with enough outputs run on the GPU, a thread per output (and
// a softmax as one row program, a thread per row), folding in the CPU
// kernel's order: sums of the same values match to the stated ulps.
TEST_F(RealGpuTest, ReductionsAndSoftmaxMatchTheInterpreter) {
  for (const char *op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"})
    for (ir::DType t : {ir::DType::kF32, ir::DType::kF64, ir::DType::kI32})
      for (bool keep : {false, true})
        check(op, {t}, {{8192, 33}}, {{"axis", std::vector<int64_t>{1}}, {"keepdims", keep}});
  EXPECT_GE(gpuCases_, 24);

  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {8192, 100});
  ir::AttrMap rows = {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}};
  ir::Output e = add(g, "exp", {add(g, "subtract", {x, add(g, "reduce_max", {x}, rows)})});
  ir::Output y = add(g, "divide", {e, add(g, "reduce_sum", {e}, rows)});
  std::vector<std::pair<ir::Output, ir::Tensor>> feeds = {
      {x, randomTensor(ir::DType::kF32, {8192, 100}, rng_)}};
  auto want = jittest::runWith(g, {"interp", false}, feeds, {y});
  auto before = gpu::stats();
  auto got = jittest::runWith(g, {"jit", true}, feeds, {y});
  auto after = gpu::stats();
  ASSERT_TRUE(want.hasValue() && got.hasValue()) << got.status().toString();
  EXPECT_GT(after.launches, before.launches);
  EXPECT_EQ(after.hostFallbacks, before.hostFallbacks);
  // exp from libdevice, then a sum of 100 of them and a divide.
  EXPECT_LE(maxUlps((*want)[0], (*got)[0]), kTranscendentalUlps + 4);
}

TEST_F(RealGpuTest, CopiesRoundTrip) {
  auto d = *gpu::device(0);
  ir::Tensor host = randomTensor(ir::DType::kF32, {1 << 22}, rng_);
  auto dev = d->upload(host);
  ASSERT_TRUE(dev.hasValue()) << dev.status().toString();
  auto copy = d->allocateTensor(ir::DType::kF32, host.dims());
  ASSERT_TRUE(copy.hasValue());
  ASSERT_TRUE(d->copyOnDevice(copy->deviceMemory()->address(), dev->deviceMemory()->address(),
                              host.byteSize())
                  .isOk());
  auto back = copy->toHost();
  ASSERT_TRUE(back.hasValue()) << back.status().toString();
  EXPECT_EQ(std::memcmp(back->rawData(), host.rawData(), host.byteSize()), 0);
}

TEST_F(RealGpuTest, SessionsFreeTheirDeviceMemory) {
  auto d = *gpu::device(0);
  int64_t before = d->memoryStats().liveBuffers;
  {
    ir::Graph g;
    ir::Output x = placeholder(g, ir::DType::kF32, {1 << 20});
    ir::Output y = add(g, "relu", {add(g, "multiply", {x, x})});
    auto out = jittest::runWith(g, {"jit", true}, {{x, randomTensor(ir::DType::kF32, {1 << 20}, rng_)}}, {y});
    ASSERT_TRUE(out.hasValue()) << out.status().toString();
  }
  EXPECT_EQ(d->memoryStats().liveBuffers, before);
}

} // namespace
} // namespace sluice
