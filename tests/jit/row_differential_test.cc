// tests/jit/row_differential_test.cc: clusters whose reductions feed
// later ops (softmax, log-softmax, layer norm, integer row arithmetic and
// random row graphs) run as one row-walking kernel whose results equal
// the unfused interpreter's bit for bit, on 1 and 2 threads.
#include "tests/jit/jit_test_util.h"

namespace sluice::jittest {
namespace {

class RowDifferentialTest : public ::testing::Test {
protected:
  void SetUp() override { backend::jit::resetForTesting(dir_.str()); }
  void TearDown() override {
    EXPECT_EQ(backend::jit::stats().interpreted, 0) << "a cluster fell back to the interpreter";
  }

  // Runs `fetches` unfused in the interpreter and fused with the JIT;
  // expects one fused node, run by the JIT, and equal results.
  void check(const ir::Graph &g, const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
             const std::vector<ir::Output> &fetches, const std::string &what) {
    auto want = runWith(g, {"interp", false}, feeds, fetches);
    ASSERT_TRUE(want.hasValue()) << what << ": " << want.status().toString();
    for (int threads : {1, 2}) {
      auto before = backend::jit::stats();
      auto got = runWith(g, {"jit", true}, feeds, fetches, threads);
      ASSERT_TRUE(got.hasValue()) << what << ": " << got.status().toString();
      auto after = backend::jit::stats();
      EXPECT_EQ(after.compiled + after.memoryHits - before.compiled - before.memoryHits, 1)
          << what << ": expected one fused kernel";
      for (size_t k = 0; k < fetches.size(); ++k)
        EXPECT_EQ(maxUlps((*want)[k], (*got)[k]), 0)
            << what << " fetch " << k << " on " << threads << " threads\ninterp: "
            << ir::formatTensor((*want)[k]) << "\njit:    " << ir::formatTensor((*got)[k]);
    }
  }

  ir::AttrMap rows(std::vector<int64_t> axis) {
    return {{"axis", std::move(axis)}, {"keepdims", true}};
  }

  TempDir dir_;
  std::mt19937 rng_{7};
};

struct Shape {
  std::vector<int64_t> dims, axis;
};
const std::vector<Shape> kShapes = {
    {{6, 10}, {1}},    {{1, 7}, {-1}},       {{9, 1}, {1}},     {{3, 4, 5}, {-1}},
    {{3, 4, 5}, {1, 2}}, {{5}, {0}},         {{3, 0}, {1}},     {{0, 4}, {1}},
    {{2, 3, 1}, {2}},  {{4, 20000}, {1}}, // too long for a row buffer: recomputed
};

TEST_F(RowDifferentialTest, SoftmaxAndLogSoftmax) {
  for (ir::DType t : {ir::DType::kF32, ir::DType::kF64})
    for (const Shape &s : kShapes) {
      ir::Graph g;
      ir::Output x = placeholder(g, t, s.dims);
      ir::Output mx = add(g, "reduce_max", {x}, rows(s.axis));
      ir::Output sub = add(g, "subtract", {x, mx});
      ir::Output e = add(g, "exp", {sub});
      ir::Output sum = add(g, "reduce_sum", {e}, rows(s.axis));
      ir::Output y = add(g, "divide", {e, sum});
      ir::Output logY = add(g, "subtract", {sub, add(g, "log", {sum})});
      std::string what = std::string(ir::dtypeName(t)) + ir::dimsString(s.dims);
      std::vector<std::pair<ir::Output, ir::Tensor>> feeds = {
          {x, randomTensor(t, s.dims, rng_)}};
      check(g, feeds, {y}, "softmax " + what);
      check(g, feeds, {logY, mx, sum}, "log_softmax " + what);
    }
}

// mean, centred values, their variance, and the scaled and shifted result.
TEST_F(RowDifferentialTest, LayerNorm) {
  for (ir::DType t : {ir::DType::kF32, ir::DType::kF64})
    for (const Shape &s : kShapes) {
      ir::Graph g;
      ir::Output x = placeholder(g, t, s.dims);
      std::vector<int64_t> row(s.dims.end() - static_cast<long>(s.axis.size()), s.dims.end());
      ir::Output gamma = placeholder(g, t, row), beta = placeholder(g, t, row);
      ir::Output mean = add(g, "reduce_mean", {x}, rows(s.axis));
      ir::Output d = add(g, "subtract", {x, mean});
      ir::Output var = add(g, "reduce_mean", {add(g, "square", {d})}, rows(s.axis));
      ir::Output eps = add(g, "constant", {}, {{"value", t == ir::DType::kF32
                                                             ? ir::Tensor::scalar<float>(1e-5f)
                                                             : ir::Tensor::scalar<double>(1e-5)},
                                               {"dtype", t}});
      ir::Output y = add(g, "add", {add(g, "multiply", {add(g, "multiply",
                                                            {d, add(g, "rsqrt", {add(g, "add", {var, eps})})}),
                                                        gamma}),
                                    beta});
      std::vector<std::pair<ir::Output, ir::Tensor>> feeds = {
          {x, randomTensor(t, s.dims, rng_)},
          {gamma, randomTensor(t, row, rng_)},
          {beta, randomTensor(t, row, rng_)}};
      check(g, feeds, {y, var}, "layer_norm " + std::string(ir::dtypeName(t)) +
                                    ir::dimsString(s.dims));
    }
}

TEST_F(RowDifferentialTest, IntegerRows) {
  for (ir::DType t : {ir::DType::kI32, ir::DType::kI64})
    for (const char *op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
      ir::Graph g;
      ir::Output x = placeholder(g, t, {7, 9});
      ir::Output r = add(g, op, {add(g, "multiply", {x, x})}, rows({1}));
      ir::Output y = add(g, "subtract", {add(g, "add", {x, r}), add(g, "reduce_min", {x}, rows({1}))});
      check(g, {{x, randomTensor(t, {7, 9}, rng_)}}, {y, r},
            std::string(op) + " " + std::string(ir::dtypeName(t)));
    }
}

// Random DAGs over [5, 37] values, [5, 1] and [37] inputs, with row
// reductions mixed in; a random few values fetched.
TEST_F(RowDifferentialTest, RandomRowGraphs) {
  const char *unary[] = {"negative", "abs", "square", "exp", "tanh", "relu", "sqrt"};
  const char *binary[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum"};
  const char *reductions[] = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"};
  const std::vector<std::vector<int64_t>> inputs = {{5, 37}, {5, 1}, {37}, {}};
  for (int trial = 0; trial < 40; ++trial) {
    ir::Graph g;
    std::vector<std::pair<ir::Output, ir::Tensor>> feeds;
    ir::Output x = placeholder(g, ir::DType::kF32, {5, 37});
    feeds.emplace_back(x, randomTensor(ir::DType::kF32, {5, 37}, rng_));
    std::vector<ir::Output> values{x};
    for (int i = 0; i < 2; ++i) {
      const auto &s = inputs[rng_() % inputs.size()];
      ir::Output p = placeholder(g, ir::DType::kF32, s);
      feeds.emplace_back(p, randomTensor(ir::DType::kF32, s, rng_));
      values.push_back(p);
    }
    // The first op reads x, so the cluster has the rows' shape.
    values.push_back(add(g, "reduce_max", {x}, rows({1})));
    int numOps = 3 + static_cast<int>(rng_() % 9);
    for (int i = 0; i < numOps; ++i) {
      ir::Output a = values[rng_() % values.size()];
      int kind = static_cast<int>(rng_() % 6);
      const auto &dims = g.node(a.node).outputShape(0).dims();
      if (kind == 0 && dims == std::vector<int64_t>{5, 37})
        values.push_back(add(g, reductions[rng_() % std::size(reductions)], {a}, rows({1})));
      else if (kind < 3)
        values.push_back(add(g, unary[rng_() % std::size(unary)], {a}));
      else
        values.push_back(add(g, binary[rng_() % std::size(binary)],
                             {a, values[rng_() % values.size()]}));
    }
    std::vector<ir::Output> fetches{values.back()};
    for (size_t i = 3; i + 1 < values.size(); ++i)
      if (rng_() % 4 == 0)
        fetches.push_back(values[i]);
    auto want = runWith(g, {"interp", false}, feeds, fetches);
    ASSERT_TRUE(want.hasValue()) << want.status().toString();
    for (int threads : {1, 2}) {
      auto got = runWith(g, {"jit", true}, feeds, fetches, threads);
      ASSERT_TRUE(got.hasValue()) << got.status().toString();
      for (size_t k = 0; k < fetches.size(); ++k)
        EXPECT_EQ(maxUlps((*want)[k], (*got)[k]), 0)
            << "trial " << trial << " fetch " << k << "\ninterp: "
            << ir::formatTensor((*want)[k]) << "\njit:    " << ir::formatTensor((*got)[k]);
    }
  }
  EXPECT_GT(backend::jit::stats().compiled, 20);
}

} // namespace
} // namespace sluice::jittest
