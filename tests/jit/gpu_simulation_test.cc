// tests/jit/gpu_simulation_test.cc: the GPU kernels (backend/jit/
// gpu_codegen.cc) generated for the host and run thread by thread over
// several grid shapes (simulateGpuKernels), against the unfused
// interpreter: elementwise clusters with broadcasting, reductions ending a
// cluster (a thread per output) and row programs (a thread per row). The
// host's libm stands in for libdevice, so results are bit-identical; on a
// real GPU the math differs within tests/gpu's tolerance.
#include <optional>

#include "backend/jit/detail/codegen.h"
#include "passes/pipeline.h"
#include "tests/jit/jit_test_util.h"

namespace sluice::jittest {
namespace {

class GpuSimulationTest : public ::testing::Test {
protected:
  // Fuses `g` for `fetch`, builds its one cluster's program as GPU code
  // sees it (no row buffers), runs it on grids of 1x1, 3x4 and 2x64
  // threads and compares each result with the interpreter's.
  void check(const ir::Graph &g, const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
             ir::Output fetch, const std::string &what) {
    auto want = runWith(g, {"interp", false}, feeds, {fetch});
    ASSERT_TRUE(want.hasValue()) << what << ": " << want.status().toString();
    std::unique_ptr<ir::Graph> f = g.clone();
    passes::PassContext ctx;
    ctx.fetches = {fetch};
    passes::PipelineOptions po;
    po.fuse = true;
    ctx.options.fuseSingleOps = true;
    ASSERT_TRUE(passes::runPipeline(f, ctx, po).isOk()) << what;
    const ir::Node &fused = f->node(ctx.fetches[0].node);
    ASSERT_EQ(fused.opName(), "fused") << what;
    auto def = backend::jit::fusedBody(*f, fused);
    ASSERT_TRUE(def.hasValue());
    auto p = backend::jit::buildElementProgram(**def, backend::jit::kNoRowBuffers);
    ASSERT_TRUE(p.hasValue()) << what << ": " << p.status().toString();
    for (auto [blocks, threads] : {std::pair{1, 1}, {3, 4}, {2, 64}}) {
      std::vector<ir::Tensor> in, out;
      std::vector<void *> buffers;
      for (const ir::Output &o : fused.inputs())
        for (const auto &[at, t] : feeds)
          if (f->node(o.node).name() == g.node(at.node).name())
            in.push_back(t);
      ASSERT_EQ(in.size(), fused.inputs().size()) << what;
      for (ir::Tensor &t : in)
        buffers.push_back(t.rawData());
      for (size_t k = 0; k < p->outputTypes.size(); ++k) {
        out.emplace_back(p->outputTypes[k], p->outputDims[k]);
        buffers.push_back(out.back().rawData());
      }
      Status s = backend::jit::simulateGpuKernels(*p, buffers, blocks, threads);
      ASSERT_TRUE(s.isOk()) << what << ": " << s.toString();
      EXPECT_EQ(maxUlps((*want)[0], out[ctx.fetches[0].index]), 0)
          << what << " on " << blocks << "x" << threads << "\ninterp: "
          << ir::formatTensor((*want)[0]) << "\ngpu:    " << ir::formatTensor(out[ctx.fetches[0].index]);
    }
  }

  std::mt19937 rng_{5};
};

TEST_F(GpuSimulationTest, ElementwiseWithBroadcasting) {
  for (ir::DType t : {ir::DType::kF32, ir::DType::kI32, ir::DType::kF64}) {
    ir::Graph g;
    ir::Output x = placeholder(g, t, {5, 7}), y = placeholder(g, t, {7}), c = placeholder(g, t, {5, 1});
    ir::Output v = add(g, "maximum", {add(g, "add", {add(g, "multiply", {x, y}), c}), x});
    check(g, {{x, randomTensor(t, {5, 7}, rng_)}, {y, randomTensor(t, {7}, rng_)},
              {c, randomTensor(t, {5, 1}, rng_)}},
          v, std::string("elementwise ") + std::string(ir::dtypeName(t)));
  }
}

TEST_F(GpuSimulationTest, ReductionsEndingACluster) {
  struct Case {
    std::vector<int64_t> dims;
    std::optional<std::vector<int64_t>> axis;
    bool keep;
  };
  const std::vector<Case> cases = {{{5, 7}, std::nullopt, false},
                                   {{5, 7}, std::vector<int64_t>{0}, false},
                                   {{5, 7}, std::vector<int64_t>{1}, true},
                                   {{5, 7, 3}, std::vector<int64_t>{1}, false},
                                   {{5, 7, 3}, std::vector<int64_t>{0, 2}, true},
                                   {{13}, std::vector<int64_t>{0}, false},
                                   {{3, 0}, std::vector<int64_t>{1}, false}};
  for (const char *op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"})
    for (ir::DType t : {ir::DType::kF32, ir::DType::kI64})
      for (const Case &c : cases) {
        ir::Graph g;
        ir::Output x = placeholder(g, t, c.dims);
        ir::AttrMap attrs = {{"keepdims", c.keep}};
        if (c.axis)
          attrs["axis"] = *c.axis;
        ir::Output r = add(g, op, {add(g, "multiply", {x, x})}, attrs);
        check(g, {{x, randomTensor(t, c.dims, rng_)}}, r,
              std::string(op) + " " + std::string(ir::dtypeName(t)) + ir::dimsString(c.dims));
      }
}

TEST_F(GpuSimulationTest, RowPrograms) {
  for (auto dims : std::vector<std::vector<int64_t>>{{6, 10}, {1, 7}, {9, 1}, {4, 300}}) {
    ir::Graph g;
    ir::Output x = placeholder(g, ir::DType::kF32, dims);
    ir::AttrMap rows = {{"axis", std::vector<int64_t>{-1}}, {"keepdims", true}};
    ir::Output e = add(g, "exp", {add(g, "subtract", {x, add(g, "reduce_max", {x}, rows)})});
    ir::Output mean = add(g, "reduce_mean", {e}, rows);
    ir::Output y = add(g, "divide", {add(g, "subtract", {e, mean}), add(g, "reduce_sum", {e}, rows)});
    check(g, {{x, randomTensor(ir::DType::kF32, dims, rng_)}}, y,
          "softmax-like rows " + ir::dimsString(dims));
  }
}

} // namespace
} // namespace sluice::jittest
