// tests/jit/dynamic_shapes_test.cc: clusters whose dims are known only at
// run time (a batch of `none` rows) compile once per distinct set of call
// shapes, give the interpreter's results, report shape errors as it does,
// and stop compiling after kMaxSpecializations shapes.
#include "tests/jit/jit_test_util.h"

namespace sluice::jittest {
namespace {

class DynamicShapesTest : public ::testing::Test {
protected:
  void SetUp() override { backend::jit::resetForTesting(dir_.str()); }
  TempDir dir_;
  std::mt19937 rng_{11};
};

// y = relu(x * w + b) for x of [?, 5].
struct Model {
  ir::Graph g;
  ir::Output x, b, y;
  Model() {
    x = placeholder(g, ir::DType::kF32, {-1, 5});
    b = placeholder(g, ir::DType::kF32, {5});
    ir::Output w = add(g, "constant", {}, {{"value", ir::Tensor::scalar<float>(1.5f)},
                                           {"dtype", ir::DType::kF32}});
    y = add(g, "relu", {add(g, "add", {add(g, "multiply", {x, w}), b})});
  }
};

TEST_F(DynamicShapesTest, EachBatchSizeCompilesOnceAndMatches) {
  Model m;
  ir::Tensor bias = randomTensor(ir::DType::kF32, {5}, rng_);
  for (int64_t rows : {1, 3, 7, 3, 0, 7}) {
    std::vector<std::pair<ir::Output, ir::Tensor>> feeds = {
        {m.x, randomTensor(ir::DType::kF32, {rows, 5}, rng_)}, {m.b, bias}};
    auto want = runWith(m.g, {"interp", false}, feeds, {m.y});
    auto got = runWith(m.g, {"jit", true}, feeds, {m.y}, 2);
    ASSERT_TRUE(want.hasValue() && got.hasValue()) << got.status().toString();
    EXPECT_EQ(maxUlps((*want)[0], (*got)[0]), 0) << rows << " rows";
  }
  // Sessions are new each run, so the disk and memory caches serve repeats.
  auto s = backend::jit::stats();
  EXPECT_EQ(s.specialized, 6);
  EXPECT_EQ(s.compiled, 4); // 1, 3, 7 and 0 rows
  EXPECT_EQ(s.interpreted, 0);
}

TEST_F(DynamicShapesTest, OneSessionCompilesEachShapeOnce) {
  Model m;
  rt::SessionOptions o;
  o.constantFolding = false;
  auto s = rt::Session::create(&m.g, nullptr, o);
  ASSERT_TRUE(s.hasValue());
  ir::Tensor bias = randomTensor(ir::DType::kF32, {5}, rng_);
  for (int64_t rows : {2, 4, 2, 2, 4})
    ASSERT_TRUE((*s)->run({{m.x, randomTensor(ir::DType::kF32, {rows, 5}, rng_)}, {m.b, bias}},
                          {m.y}, {})
                    .hasValue());
  EXPECT_EQ(backend::jit::stats().specialized, 2);
}

// Shapes that do not broadcast fail as the unfused graph does: an
// invalid_argument naming the op.
TEST_F(DynamicShapesTest, ShapesThatDoNotBroadcastAreLocatedErrors) {
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {-1});
  ir::Output z = placeholder(g, ir::DType::kF32, {-1});
  ir::Output y = add(g, "exp", {add(g, "add", {x, z})});
  std::vector<std::pair<ir::Output, ir::Tensor>> feeds = {
      {x, ir::Tensor::fromVector<float>({1, 2, 3})}, {z, ir::Tensor::fromVector<float>({1, 2})}};
  auto want = runWith(g, {"interp", false}, feeds, {y});
  auto got = runWith(g, {"jit", true}, feeds, {y});
  ASSERT_FALSE(want.hasValue());
  ASSERT_FALSE(got.hasValue());
  EXPECT_EQ(got.status().code(), want.status().code()) << got.status().toString();
  EXPECT_EQ(got.status().node(), want.status().node()) << got.status().toString();
}

TEST_F(DynamicShapesTest, PastTheLimitFurtherShapesAreInterpreted) {
  Model m;
  rt::SessionOptions o;
  o.constantFolding = false;
  auto s = rt::Session::create(&m.g, nullptr, o);
  ASSERT_TRUE(s.hasValue());
  ir::Tensor bias = randomTensor(ir::DType::kF32, {5}, rng_);
  for (int64_t rows = 1; rows <= 35; ++rows) {
    std::vector<std::pair<ir::Output, ir::Tensor>> feeds = {
        {m.x, randomTensor(ir::DType::kF32, {rows, 5}, rng_)}, {m.b, bias}};
    auto got = (*s)->run(feeds, {m.y}, {});
    auto want = runWith(m.g, {"interp", false}, feeds, {m.y});
    ASSERT_TRUE(got.hasValue() && want.hasValue()) << got.status().toString();
    EXPECT_EQ(maxUlps((*want)[0], (*got)[0]), 0) << rows << " rows";
  }
  EXPECT_EQ(backend::jit::stats().specialized, 32);
  EXPECT_EQ(backend::jit::stats().interpreted, 1); // the interpreter is made once
}

} // namespace
} // namespace sluice::jittest
