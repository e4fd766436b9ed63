// tests/jit/differential_test.cc: every fusible op, each dtype it takes and
// several broadcast patterns, then random fused graphs: the JIT's results
// equal the interpreter's (unfused, and fused) within kUlpTolerance.
#include "tests/jit/jit_test_util.h"

#include <optional>

#include "ir/text/parser.h"

namespace sluice::jittest {
namespace {

// The JIT emits each op as its CPU kernel computes it (no fast-math, same
// libm calls), so results are expected bit-identical; one ulp is allowed
// for libm calls vectorized differently.
constexpr int64_t kUlpTolerance = 1;

const ir::DType kNumeric[] = {ir::DType::kF32, ir::DType::kF64, ir::DType::kI8,
                              ir::DType::kI16, ir::DType::kI32, ir::DType::kI64,
                              ir::DType::kU8};
const ir::DType kAll[] = {ir::DType::kF32, ir::DType::kF64, ir::DType::kI8,
                          ir::DType::kI16, ir::DType::kI32, ir::DType::kI64,
                          ir::DType::kU8,  ir::DType::kBool};

class DifferentialTest : public ::testing::Test {
protected:
  void SetUp() override { backend::jit::resetForTesting(dir_.str()); }

  // Builds inputs of `shapes` and dtype `t`, applies `op` and a same-dtype
  // cast after it (so that the cluster has two ops), runs the three ways
  // and compares. Returns false when the op does not take `t`.
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
      return false; // the op does not take these dtypes
    ir::DType yt = g.node(y.node).outputType(0);
    ir::Output z = add(g, "cast", {y}, {{"dtype", yt}});
    std::string what = op + " " + std::string(ir::dtypeName(types[0]));
    for (const auto &s : shapes)
      what += " " + ir::dimsString(s);
    auto want = runWith(g, {"interp", false}, feeds, {z});
    auto fusedInterp = runWith(g, {"interp", true}, feeds, {z});
    int64_t before = jitRuns();
    auto got = runWith(g, {"jit", true}, feeds, {z});
    EXPECT_TRUE(want.hasValue()) << what << ": " << want.status().toString();
    EXPECT_TRUE(got.hasValue()) << what << ": " << got.status().toString();
    EXPECT_TRUE(fusedInterp.hasValue()) << what;
    if (!want.hasValue() || !got.hasValue() || !fusedInterp.hasValue())
      return true;
    int64_t d = maxUlps((*want)[0], (*got)[0]);
    worst_ = std::max(worst_, d);
    EXPECT_LE(d, kUlpTolerance) << what << "\ninterp: " << ir::formatTensor((*want)[0])
                                << "\njit:    " << ir::formatTensor((*got)[0]);
    EXPECT_EQ(maxUlps((*want)[0], (*fusedInterp)[0]), 0) << what;
    jitCases_ += jitRuns() > before;
    ++cases_;
    return true;
  }

  static int64_t jitRuns() {
    auto s = backend::jit::stats();
    return s.compiled + s.memoryHits + s.diskHits;
  }

  void TearDown() override {
    EXPECT_EQ(backend::jit::stats().interpreted, 0) << "a cluster fell back to the interpreter";
    std::printf("%d cases, %d through the JIT, worst %lld ulp\n", cases_, jitCases_,
                static_cast<long long>(worst_));
  }

  TempDir dir_;
  std::mt19937 rng_{42};
  int cases_ = 0, jitCases_ = 0;
  int64_t worst_ = 0;
};

const char *kUnary[] = {"negative", "abs",  "square", "sqrt",  "rsqrt", "exp",  "log",
                        "sigmoid",  "tanh", "relu",   "sign",  "floor", "ceil", "round"};
const char *kBinary[] = {"add",     "subtract",   "multiply", "divide",
                         "maximum", "minimum",    "squared_difference", "pow",
                         "equal",   "not_equal",  "less",     "less_equal",
                         "greater", "greater_equal"};

TEST_F(DifferentialTest, UnaryOps) {
  for (const char *op : kUnary)
    for (ir::DType t : kNumeric)
      check(op, {t}, {{7, 9}});
  EXPECT_TRUE(check("logical_not", {ir::DType::kBool}, {{7, 9}}));
  EXPECT_GE(jitCases_, 59); // 14 ops x the dtypes each takes, and logical_not
}

TEST_F(DifferentialTest, BinaryOpsWithBroadcasting) {
  const std::vector<std::vector<std::vector<int64_t>>> patterns = {
      {{6, 5}, {6, 5}}, {{6, 5}, {5}}, {{6, 1}, {1, 5}}, {{}, {6, 5}}, {{3, 1, 4}, {2, 1}}};
  for (const char *op : kBinary)
    for (ir::DType t : kNumeric)
      for (const auto &shapes : patterns)
        if (std::string(op) != "pow" || ir::isFloating(t)) // integer pow is not fused
          check(op, {t, t}, shapes);
  for (const char *op : {"logical_and", "logical_or", "equal", "not_equal"})
    for (const auto &shapes : patterns)
      EXPECT_TRUE(check(op, {ir::DType::kBool, ir::DType::kBool}, shapes));
  EXPECT_GE(jitCases_, 400);
}

TEST_F(DifferentialTest, CastsBetweenEveryPair) {
  for (ir::DType from : kAll)
    for (ir::DType to : kAll)
      EXPECT_TRUE(check("cast", {from}, {{11}}, {{"dtype", to}}));
  EXPECT_GE(jitCases_, 64);
}

TEST_F(DifferentialTest, SelectAddNAndBroadcastTo) {
  for (ir::DType t : {ir::DType::kF32, ir::DType::kI64, ir::DType::kBool}) {
    EXPECT_TRUE(check("select", {ir::DType::kBool, t, t}, {{6, 5}, {6, 5}, {6, 5}}));
    EXPECT_TRUE(check("select", {ir::DType::kBool, t, t}, {{6, 1}, {5}, {6, 5}}));
  }
  for (ir::DType t : {ir::DType::kF32, ir::DType::kF64, ir::DType::kI32, ir::DType::kU8})
    EXPECT_TRUE(check("add_n", {t, t, t}, {{4, 3}, {4, 3}, {4, 3}}));
  // Scalars only, and no elements at all.
  EXPECT_TRUE(check("add", {ir::DType::kF32, ir::DType::kF32}, {{}, {}}));
  EXPECT_TRUE(check("add", {ir::DType::kF32, ir::DType::kF32}, {{0, 3}, {3}}));
  {
    ir::Graph g;
    ir::Output x = placeholder(g, ir::DType::kF32, {5});
    ir::Tensor shape = ir::Tensor::fromVector<int32_t>({6, 5});
    ir::Output s = add(g, "constant", {}, {{"value", shape}, {"dtype", ir::DType::kI32}});
    ir::Output b = add(g, "broadcast_to", {x, s});
    ir::Output y = add(g, "exp", {b});
    ir::Tensor xv = randomTensor(ir::DType::kF32, {5}, rng_);
    auto want = runWith(g, {"interp", false}, {{x, xv}}, {y});
    auto got = runWith(g, {"jit", true}, {{x, xv}}, {y});
    ASSERT_TRUE(want.hasValue() && got.hasValue());
    EXPECT_EQ(maxUlps((*want)[0], (*got)[0]), 0);
  }
  EXPECT_GE(jitCases_, 12);
}

// A reduction ending a cluster: the JIT walks the input in the kernel's
// order, with its accumulators, so results are bit-identical.
TEST_F(DifferentialTest, ReductionsEndingAClusterMatchExactly) {
  struct Case {
    std::vector<int64_t> dims, other;
    std::optional<std::vector<int64_t>> axis;
    bool keep;
  };
  const std::vector<Case> cases = {
      {{5, 7}, {5, 7}, std::nullopt, false}, {{5, 7}, {}, std::vector<int64_t>{0}, false},
      {{5, 7}, {7}, std::vector<int64_t>{1}, true}, {{5, 7, 3}, {5, 7, 3}, std::vector<int64_t>{1}, false},
      {{5, 7, 3}, {}, std::vector<int64_t>{0, 2}, true}, {{4, 1, 9}, {9}, std::vector<int64_t>{-1}, false},
      {{13}, {13}, std::vector<int64_t>{0}, false}, {{3, 0}, {}, std::vector<int64_t>{1}, false},
      // An input broadcasting inside a reduced run, and inside a kept one.
      {{5, 7}, {7}, std::nullopt, false}, {{6, 4, 5}, {4, 1}, std::vector<int64_t>{1, 2}, false},
      {{4, 6, 5}, {6, 1}, std::vector<int64_t>{2}, true}};
  for (const char *op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"})
    for (ir::DType t : {ir::DType::kF32, ir::DType::kF64, ir::DType::kI32, ir::DType::kI64})
      for (const Case &c : cases) {
        ir::Graph g;
        ir::Output x = placeholder(g, t, c.dims), y = placeholder(g, t, c.other);
        ir::Output v = add(g, "multiply", {x, y});
        ir::AttrMap attrs = {{"keepdims", c.keep}};
        if (c.axis)
          attrs["axis"] = *c.axis;
        ir::Output r = add(g, op, {add(g, "subtract", {v, x})}, attrs);
        std::vector<std::pair<ir::Output, ir::Tensor>> feeds = {
            {x, randomTensor(t, c.dims, rng_)}, {y, randomTensor(t, c.other, rng_)}};
        std::string what = std::string(op) + " " + std::string(ir::dtypeName(t)) + " " +
                           ir::dimsString(c.dims);
        auto want = runWith(g, {"interp", false}, feeds, {r, v});
        int64_t before = jitRuns();
        auto got = runWith(g, {"jit", true}, feeds, {r, v}, 2);
        ASSERT_TRUE(want.hasValue()) << what << ": " << want.status().toString();
        ASSERT_TRUE(got.hasValue()) << what << ": " << got.status().toString();
        for (int k = 0; k < 2; ++k)
          EXPECT_EQ(maxUlps((*want)[k], (*got)[k]), 0)
              << what << " fetch " << k << "\ninterp: " << ir::formatTensor((*want)[k])
              << "\njit:    " << ir::formatTensor((*got)[k]);
        jitCases_ += jitRuns() > before;
        ++cases_;
      }
  EXPECT_EQ(jitCases_, cases_);
}

// Random DAGs of 2-12 elementwise ops over f32 inputs of broadcastable
// shapes, some values fetched from the middle: the JIT (fused, 1 and 2
// threads) against the unfused interpreter.
TEST_F(DifferentialTest, RandomFusedGraphs) {
  const char *unary[] = {"negative", "abs", "square", "exp", "tanh", "sigmoid", "relu",
                         "floor", "sqrt", "sign"};
  const char *binary[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum",
                          "squared_difference"};
  const std::vector<std::vector<int64_t>> shapes = {{}, {8}, {3, 8}, {3, 1}, {1, 8}};
  for (int trial = 0; trial < 60; ++trial) {
    ir::Graph g;
    std::vector<std::pair<ir::Output, ir::Tensor>> feeds;
    std::vector<ir::Output> values;
    int numInputs = 1 + static_cast<int>(rng_() % 3);
    for (int i = 0; i < numInputs; ++i) {
      const auto &s = shapes[rng_() % shapes.size()];
      ir::Output p = placeholder(g, ir::DType::kF32, s);
      feeds.emplace_back(p, randomTensor(ir::DType::kF32, s, rng_));
      values.push_back(p);
    }
    int numOps = 2 + static_cast<int>(rng_() % 11);
    for (int i = 0; i < numOps; ++i) {
      ir::Output a = values[rng_() % values.size()];
      if (rng_() % 2)
        values.push_back(add(g, unary[rng_() % std::size(unary)], {a}));
      else
        values.push_back(add(g, binary[rng_() % std::size(binary)],
                             {a, values[rng_() % values.size()]}));
    }
    std::vector<ir::Output> fetches{values.back()};
    for (size_t i = numInputs; i + 1 < values.size(); ++i)
      if (rng_() % 4 == 0)
        fetches.push_back(values[i]);
    auto want = runWith(g, {"interp", false}, feeds, fetches);
    ASSERT_TRUE(want.hasValue()) << want.status().toString();
    int64_t before = jitRuns();
    for (int threads : {1, 2}) {
      auto got = runWith(g, {"jit", true}, feeds, fetches, threads);
      ASSERT_TRUE(got.hasValue()) << got.status().toString();
      for (size_t k = 0; k < fetches.size(); ++k) {
        int64_t d = maxUlps((*want)[k], (*got)[k]);
        worst_ = std::max(worst_, d);
        EXPECT_LE(d, kUlpTolerance) << "trial " << trial << " fetch " << k;
      }
    }
    jitCases_ += jitRuns() > before;
    ++cases_;
  }
  EXPECT_GT(backend::jit::stats().compiled, 30);
}

// Big enough that the kernel splits over threads.
TEST_F(DifferentialTest, LargeTensorsSplitOverThreads) {
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {3, 1 << 19});
  ir::Output b = placeholder(g, ir::DType::kF32, {1 << 19});
  ir::Output y = add(g, "relu", {add(g, "add", {add(g, "multiply", {x, x}), b})});
  std::vector<std::pair<ir::Output, ir::Tensor>> feeds = {
      {x, randomTensor(ir::DType::kF32, {3, 1 << 19}, rng_)},
      {b, randomTensor(ir::DType::kF32, {1 << 19}, rng_)}};
  auto want = runWith(g, {"interp", false}, feeds, {y});
  auto got = runWith(g, {"jit", true}, feeds, {y}, 2);
  ASSERT_TRUE(want.hasValue() && got.hasValue());
  EXPECT_EQ(maxUlps((*want)[0], (*got)[0]), 0);
}

} // namespace
} // namespace sluice::jittest

namespace sluice::jittest {
namespace {

// A fused body the JIT has no code for (floor_div) runs interpreted under
// both backends; an error inside it names the body's node.
TEST(FusedFallbackTest, UnsupportedBodiesAreInterpretedAndErrorsNameTheBodyNode) {
  TempDir dir;
  backend::jit::resetForTesting(dir.str());
  auto g = ir::parseGraph(
      "# sluice ir v1\n"
      "%x = placeholder() {dtype = i32, shape = shape[3]} : (i32 [3])\n"
      "%y = placeholder() {dtype = i32, shape = shape[3]} : (i32 [3])\n"
      "%f = fused(%x:0, %y:0) {Tout = types[i32], f = \"body\", output_shapes = shapes[[3]]} "
      ": (i32 [3])\n"
      "func \"body\" {\n"
      "  %a = function_arg() {T = i32, index = 0, shape = shape[3]} : (i32 [3])\n"
      "  %b = function_arg() {T = i32, index = 1, shape = shape[3]} : (i32 [3])\n"
      "  %fd = floor_div(%a:0, %b:0) : (i32 [3])\n"
      "  %n = negative(%fd:0) : (i32 [3])\n"
      "  return %n:0\n"
      "}\n",
      "t.sir");
  ASSERT_TRUE(g.hasValue()) << g.status().toString();
  ir::Output x{(*g)->findNode("x")->id(), 0}, y{(*g)->findNode("y")->id(), 0};
  ir::Output f{(*g)->findNode("f")->id(), 0};
  for (const char *backend : {"interp", "jit"}) {
    auto ok = runWith(**g, {backend, true}, {{x, ir::Tensor::fromVector<int32_t>({7, -7, 9})},
                                             {y, ir::Tensor::fromVector<int32_t>({2, 2, 3})}},
                      {f});
    ASSERT_TRUE(ok.hasValue()) << backend << ": " << ok.status().toString();
    EXPECT_EQ(ir::formatTensor((*ok)[0]), "[-3 4 -3]") << backend;
    auto bad = runWith(**g, {backend, true}, {{x, ir::Tensor::fromVector<int32_t>({1, 2, 3})},
                                              {y, ir::Tensor::fromVector<int32_t>({1, 0, 1})}},
                       {f});
    ASSERT_FALSE(bad.hasValue()) << backend;
    EXPECT_EQ(bad.status().node(), "fd") << backend;
    EXPECT_NE(bad.status().message().find("Integer division by zero"), std::string::npos)
        << bad.status().toString();
  }
  EXPECT_EQ(backend::jit::stats().interpreted, 2); // one kernel per jit session
}

} // namespace
} // namespace sluice::jittest

namespace sluice::jittest {
namespace {

// A cluster only waited on through a control edge has no results: the
// JIT runs it as nothing (it cannot fail), not through the interpreter.
TEST(FusedFallbackTest, AClusterWithoutResultsRunsNothing) {
  TempDir dir;
  backend::jit::resetForTesting(dir.str());
  auto g = ir::parseGraph("# sluice ir v1\n"
                          "%x = placeholder() {dtype = f32, shape = shape[3]} : (f32 [3])\n"
                          "%e = exp(%x:0) : (f32 [3])\n"
                          "%n = negative(%e:0) : (f32 [3])\n"
                          "%done = no_op() ^%n : ()\n",
                          "t.sir");
  ASSERT_TRUE(g.hasValue()) << g.status().toString();
  rt::SessionOptions o;
  auto s = rt::Session::create(g->get(), nullptr, o);
  ASSERT_TRUE(s.hasValue());
  ir::Output x{(*g)->findNode("x")->id(), 0};
  auto r = (*s)->run({{x, ir::Tensor::fromVector<float>({1, 2, 3})}}, {},
                     {(*g)->findNode("done")->id()});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ(backend::jit::stats().interpreted, 0);
  EXPECT_EQ(backend::jit::stats().compiled, 1);
}

} // namespace
} // namespace sluice::jittest
