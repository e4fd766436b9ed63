// tests/jit/ptx_test.cc: PTX for fused clusters (issue #8, the GPU code
// path without a GPU): LLVM's NVPTX target writes it for sm_90, and when
// CUDA's ptxas is installed it must assemble. Running the kernels needs a
// GPU; these tests check everything before that.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "backend/jit/jit.h"
#include "passes/pipeline.h"
#include "tests/jit/jit_test_util.h"

namespace sluice {
namespace {

using jittest::add;
using jittest::placeholder;

/// The graph after the session pipeline with fusion, fetching `fetch`.
std::unique_ptr<ir::Graph> fused(std::unique_ptr<ir::Graph> g, ir::Output fetch) {
  passes::PassContext ctx;
  ctx.fetches = {fetch};
  passes::PipelineOptions po;
  po.fuse = true;
  Status s = passes::runPipeline(g, ctx, po);
  EXPECT_TRUE(s.isOk()) << s.toString();
  return g;
}

std::string ptxasPath() {
  if (const char *p = std::getenv("SLUICE_PTXAS"))
    return p;
  for (const char *p : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"})
    if (std::filesystem::exists(p))
      return p;
  return "";
}

/// Runs ptxas on `ptx` for sm_90; "" when it assembled, else its verdict.
std::string assemble(const std::string &ptx) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("sluice_ptx_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "k.ptx") << ptx; }
  std::string cmd = "'" + ptxasPath() + "' -arch=sm_90 -o '" + (dir / "k.cubin").string() + "' '" +
                    (dir / "k.ptx").string() + "' > '" + (dir / "log").string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream log(dir / "log");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return rc == 0 ? "" : "ptxas failed (" + std::to_string(rc) + "): " + text;
}

/// relu(1.5 * x - b) with b broadcast over rows, a compare and a cast:
/// two inputs, broadcasting, bools, an integer output.
std::unique_ptr<ir::Graph> elementwiseGraph(ir::Output &fetch) {
  auto g = std::make_unique<ir::Graph>();
  ir::Output x = placeholder(*g, ir::DType::kF32, {64, 128});
  ir::Output b = placeholder(*g, ir::DType::kF32, {128});
  ir::Output k = add(*g, "constant", {}, {{"value", ir::Tensor::scalar<float>(1.5f)}, {"dtype", ir::DType::kF32}});
  ir::Output y = add(*g, "relu", {add(*g, "subtract", {add(*g, "multiply", {k, x}), b})});
  ir::Output big = add(*g, "greater", {y, b});
  fetch = add(*g, "add", {add(*g, "cast", {big}, {{"dtype", ir::DType::kI32}}), add(*g, "cast", {y}, {{"dtype", ir::DType::kI32}})});
  return g;
}

TEST(PtxTest, ElementwiseClusterBecomesAnSm90Kernel) {
  ir::Output fetch;
  auto g = fused(elementwiseGraph(fetch), fetch);
  auto ptx = backend::jit::emitPtx(*g, "sm_90");
  ASSERT_TRUE(ptx.hasValue()) << ptx.status().toString();
  EXPECT_NE(ptx->find(".target sm_90"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".visible .entry sluice_"), std::string::npos) << *ptx;
  EXPECT_EQ(ptx->find("no GPU code"), std::string::npos) << *ptx;
  // The grid-stride loop reads the thread and block indices.
  EXPECT_NE(ptx->find("%tid.x"), std::string::npos);
  EXPECT_NE(ptx->find("%ctaid.x"), std::string::npos);
}

TEST(PtxTest, MathFromLibdeviceOrSaysWhyNot) {
  auto g = std::make_unique<ir::Graph>();
  ir::Output x = placeholder(*g, ir::DType::kF32, {1000});
  ir::Output fetch = add(*g, "multiply", {add(*g, "tanh", {x}), add(*g, "exp", {x})});
  g = fused(std::move(g), fetch);
  auto ptx = backend::jit::emitPtx(*g, "sm_90");
  ASSERT_TRUE(ptx.hasValue()) << ptx.status().toString();
  if (ptx->find("no GPU code") != std::string::npos) {
    // Only when CUDA's libdevice is missing, and then it says so.
    EXPECT_NE(ptx->find("libdevice"), std::string::npos) << *ptx;
    GTEST_SKIP() << "CUDA's libdevice is not installed: " << *ptx;
  }
  EXPECT_NE(ptx->find(".entry"), std::string::npos);
  // libdevice is linked in and inlined: no call leaves the kernel.
  EXPECT_EQ(ptx->find(".extern .func"), std::string::npos) << *ptx;
}

TEST(PtxTest, PtxasAssemblesTheKernels) {
  if (ptxasPath().empty())
    GTEST_SKIP() << "ptxas is not installed (CUDA toolkit); the PTX was checked by text only";
  ir::Output fetch;
  auto g = fused(elementwiseGraph(fetch), fetch);
  auto ptx = backend::jit::emitPtx(*g, "sm_90");
  ASSERT_TRUE(ptx.hasValue()) << ptx.status().toString();
  EXPECT_EQ(assemble(*ptx), "");

  auto m = std::make_unique<ir::Graph>();
  ir::Output x = placeholder(*m, ir::DType::kF64, {7, 3});
  ir::Output y = placeholder(*m, ir::DType::kF64, {3});
  ir::Output f = add(*m, "pow", {add(*m, "tanh", {x}), add(*m, "abs", {y})});
  m = fused(std::move(m), f);
  auto mathPtx = backend::jit::emitPtx(*m, "sm_90");
  ASSERT_TRUE(mathPtx.hasValue()) << mathPtx.status().toString();
  if (mathPtx->find("no GPU code") == std::string::npos) {
    EXPECT_EQ(assemble(*mathPtx), "");
  }
}

// A reduction ending a cluster (a thread per output element) and a row
// program (a thread per row, recomputing rather than keeping row buffers)
// have GPU code that assembles.
TEST(PtxTest, ReductionsAndRowProgramsHaveGpuCode) {
  auto g = std::make_unique<ir::Graph>();
  ir::Output x = placeholder(*g, ir::DType::kF32, {16, 32});
  ir::Output fetch = add(*g, "reduce_sum", {add(*g, "relu", {add(*g, "negative", {x})})},
                         {{"axis", std::vector<int64_t>{1}}, {"keepdims", false}});
  g = fused(std::move(g), fetch);
  auto ptx = backend::jit::emitPtx(*g, "sm_90");
  ASSERT_TRUE(ptx.hasValue()) << ptx.status().toString();
  EXPECT_EQ(ptx->find("no GPU code"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".entry"), std::string::npos) << *ptx;
  if (!ptxasPath().empty()) {
    EXPECT_EQ(assemble(*ptx), "");
  }

  auto s = std::make_unique<ir::Graph>();
  ir::Output y = placeholder(*s, ir::DType::kF32, {64, 100});
  ir::AttrMap rows = {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}};
  // softmax's shape without its exp (which needs libdevice): d / sum(d * d).
  ir::Output d = add(*s, "subtract", {y, add(*s, "reduce_max", {y}, rows)});
  ir::Output norm = add(*s, "divide", {d, add(*s, "reduce_sum", {add(*s, "multiply", {d, d})}, rows)});
  s = fused(std::move(s), norm);
  auto rowPtx = backend::jit::emitPtx(*s, "sm_90");
  ASSERT_TRUE(rowPtx.hasValue()) << rowPtx.status().toString();
  EXPECT_EQ(rowPtx->find("no GPU code"), std::string::npos) << *rowPtx;
  if (!ptxasPath().empty()) {
    EXPECT_EQ(assemble(*rowPtx), "");
  }
}

TEST(PtxTest, UnknownArchitectureIsAnError) {
  ir::Output fetch;
  auto g = fused(elementwiseGraph(fetch), fetch);
  auto ptx = backend::jit::emitPtx(*g, "sm_999");
  ASSERT_FALSE(ptx.hasValue());
  EXPECT_EQ(ptx.status().code(), Code::kInvalidArgument);
  EXPECT_NE(ptx.status().message().find("sm_999"), std::string::npos);
}

TEST(PtxTest, AGraphWithoutClustersSaysSo) {
  auto g = std::make_unique<ir::Graph>();
  ir::Output x = placeholder(*g, ir::DType::kF32, {4});
  ir::Output y = add(*g, "relu", {x});
  g = fused(std::move(g), y);
  auto ptx = backend::jit::emitPtx(*g, "sm_90");
  ASSERT_TRUE(ptx.hasValue());
  EXPECT_EQ(*ptx, "// no fused clusters\n");
}

} // namespace
} // namespace sluice
