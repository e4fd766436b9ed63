// tests/gpu/ptx_ops_test.cc: every elementwise op and dtype the GPU claims
// becomes a module that CUDA's ptxas assembles for sm_90 (where ptxas is
// installed), on any machine: sessions on a fake sm_90 GPU record the
// PTX the driver would have been given (the fake's kernels compute
// nothing, so results are not checked here; RealGpuTest checks them).
#include <gtest/gtest.h>

#include "backend/gpu/host_kernel.h"
#include "backend/gpu/platform.h"
#include "tests/gpu/fake_driver.h"
#include "tests/gpu/ptxas.h"
#include "tests/jit/jit_test_util.h"

namespace sluice {
namespace {

namespace gpu = backend::gpu;
using gputest::fake;
using jittest::add;
using jittest::placeholder;

class PtxOpsTest : public ::testing::Test {
protected:
  void SetUp() override {
    gputest::resetFake(1);
    fake().ccMajor = 9;
    fake().kernels["sluice_"] = [](void **) {};
    gpu::resetForTesting(gputest::fakeDriver());
    fallbacksBefore_ = gpu::stats().hostFallbacks;
  }
  void TearDown() override {
    gputest::resetFake(0);
    gpu::resetForTesting(gputest::fakeDriver());
  }

  // Runs op over `types` then a same-dtype cast; false when the op does
  // not take them.
  bool run(const std::string &op, std::vector<ir::DType> types, ir::AttrMap attrs = {}) {
    ir::Graph g;
    std::vector<ir::Output> ins;
    std::vector<std::pair<ir::Output, ir::Tensor>> feeds;
    for (ir::DType t : types) {
      ins.push_back(placeholder(g, t, {8, 3}));
      feeds.emplace_back(ins.back(), ir::Tensor(t, {8, 3}));
    }
    Status error;
    ir::Output y = add(g, op, ins, attrs, &error);
    if (y.node == ir::kNoNode)
      return false;
    ir::Output z = add(g, "cast", {y}, {{"dtype", g.node(y.node).outputType(0)}});
    auto out = jittest::runWith(g, {"jit", true}, feeds, {z});
    EXPECT_TRUE(out.hasValue()) << op << ": " << out.status().toString();
    return true;
  }

  int64_t fallbacksBefore_ = 0;

  /// Assembles every module the fake loaded, for sm_90.
  void assembleAll(size_t atLeast) {
    std::vector<std::string> modules;
    {
      std::lock_guard<std::mutex> lock(gputest::fakeMutex());
      modules = fake().modules;
    }
    // Every case had GPU code (none ran on the host); identical programs
    // share a module, so there are fewer modules than cases.
    EXPECT_EQ(gpu::stats().hostFallbacks, fallbacksBefore_);
    EXPECT_GE(modules.size(), atLeast);
    for (const std::string &m : modules) {
      auto verdict = gputest::assemblePtx(m, "sm_90");
      if (!verdict)
        GTEST_SKIP() << modules.size() << " modules built; no ptxas to assemble them";
      EXPECT_EQ(*verdict, "") << m;
    }
  }
};

const ir::DType kNumeric[] = {ir::DType::kF32, ir::DType::kF64, ir::DType::kI8, ir::DType::kI16,
                              ir::DType::kI32, ir::DType::kI64, ir::DType::kU8};

TEST_F(PtxOpsTest, UnaryOps) {
  for (const char *op : {"negative", "abs", "square", "sqrt", "rsqrt", "exp", "log", "sigmoid",
                         "tanh", "relu", "sign", "floor", "ceil", "round"})
    for (ir::DType t : kNumeric)
      run(op, {t});
  run("logical_not", {ir::DType::kBool});
  assembleAll(50);
}

TEST_F(PtxOpsTest, BinaryOps) {
  for (const char *op : {"add", "subtract", "multiply", "divide", "maximum", "minimum",
                         "squared_difference", "pow", "equal", "not_equal", "less", "less_equal",
                         "greater", "greater_equal"})
    for (ir::DType t : kNumeric)
      if (std::string(op) != "pow" || ir::isFloating(t))
        run(op, {t, t});
  for (const char *op : {"logical_and", "logical_or"})
    run(op, {ir::DType::kBool, ir::DType::kBool});
  assembleAll(85);
}

TEST_F(PtxOpsTest, Casts) {
  const ir::DType all[] = {ir::DType::kF32, ir::DType::kF64, ir::DType::kI8, ir::DType::kI16,
                           ir::DType::kI32, ir::DType::kI64, ir::DType::kU8, ir::DType::kBool};
  for (ir::DType from : all)
    for (ir::DType to : all)
      run("cast", {from}, {{"dtype", to}});
  assembleAll(50);
}

} // namespace
} // namespace sluice
