// tests/ops_math/random_ops_test.cc: random_uniform, random_normal and
// truncated_normal: shapes, ranges, moments and seeding.
#include <cmath>

#include "tests/ops_math/math_test_util.h"

namespace sluice::testing {
namespace {

using RandomOpsTest = MathOpTest;

struct Moments {
  double mean = 0, sd = 0, lo = 1e300, hi = -1e300;
};
Moments moments(const Tensor &t) {
  Moments m;
  std::vector<double> v = values(t);
  for (double x : v) {
    m.mean += x;
    m.lo = std::min(m.lo, x);
    m.hi = std::max(m.hi, x);
  }
  m.mean /= static_cast<double>(v.size());
  for (double x : v)
    m.sd += (x - m.mean) * (x - m.mean);
  m.sd = std::sqrt(m.sd / static_cast<double>(v.size()));
  return m;
}

TEST_F(RandomOpsTest, UniformRangeAndShape) {
  Tensor r = run("random_uniform", {vec<int32_t>({100, 50})},
                 {{"minval", -2.0}, {"maxval", 3.0}, {"seed", int64_t{7}}});
  ASSERT_EQ(r.dims(), (Dims{100, 50}));
  EXPECT_EQ(r.dtype(), DType::kF32);
  Moments m = moments(r);
  EXPECT_GE(m.lo, -2.0);
  EXPECT_LT(m.hi, 3.0);
  EXPECT_NEAR(m.mean, 0.5, 0.05);
  EXPECT_NEAR(m.sd, 5 / std::sqrt(12.0), 0.05);
}

TEST_F(RandomOpsTest, UniformDtypes) {
  for (DType dt : {DType::kF16, DType::kF64}) {
    Tensor r = run("random_uniform", {vec<int64_t>({1000})}, {{"dtype", dt}});
    EXPECT_EQ(r.dtype(), dt);
    Moments m = moments(r);
    EXPECT_GE(m.lo, 0.0);
    EXPECT_LT(m.hi, 1.0);
  }
  Tensor i = run("random_uniform", {vec<int32_t>({2000})},
                 {{"dtype", DType::kI32}, {"minval", -3.0}, {"maxval", 4.0},
                  {"seed", int64_t{1}}});
  Moments m = moments(i);
  EXPECT_EQ(m.lo, -3);
  EXPECT_EQ(m.hi, 3); // every value in [-3, 4) shows up in 2000 draws
  EXPECT_EQ(addError("random_uniform", {constant(vec<int32_t>({2}))},
                     {{"dtype", DType::kI64}, {"maxval", 0.0}}),
            "Need minval < maxval: 0 >= 0");
}

TEST_F(RandomOpsTest, NormalMoments) {
  Tensor r = run("random_normal", {vec<int32_t>({20000})},
                 {{"mean", 3.0}, {"stddev", 2.0}, {"seed", int64_t{3}},
                  {"dtype", DType::kF64}});
  Moments m = moments(r);
  EXPECT_NEAR(m.mean, 3.0, 0.05);
  EXPECT_NEAR(m.sd, 2.0, 0.05);
  EXPECT_LT(m.lo, 3.0 - 2 * 2.0); // tails exist
}

TEST_F(RandomOpsTest, TruncatedNormalStaysWithinTwoStddevs) {
  Tensor r = run("truncated_normal", {vec<int32_t>({20001})},
                 {{"mean", -1.0}, {"stddev", 0.5}, {"seed", int64_t{3}}});
  EXPECT_EQ(r.numElements(), 20001);
  Moments m = moments(r);
  EXPECT_GE(m.lo, -2.0);
  EXPECT_LE(m.hi, 0.0);
  EXPECT_NEAR(m.mean, -1.0, 0.02);
  // A normal truncated at 2 sd has sd ~0.88 of the original.
  EXPECT_NEAR(m.sd, 0.5 * 0.8796, 0.02);
}

TEST_F(RandomOpsTest, FixedSeedIsReproducibleAndAdvances) {
  ir::AttrMap attrs = {{"seed", int64_t{42}}, {"seed2", int64_t{9}}};
  ir::Node *n = mustAdd("random_normal", {constant(vec<int32_t>({8}))}, attrs);
  std::unique_ptr<backend::OpKernel> k1, k2;
  Tensor a1 = *eval(n, &k1), a2 = *eval(n, &k1);
  Tensor b1 = *eval(n, &k2), b2 = *eval(n, &k2);
  EXPECT_TENSOR_EQ(a1, b1); // a fresh kernel restarts the same stream
  EXPECT_TENSOR_EQ(a2, b2);
  EXPECT_FALSE(a1.equals(a2)); // successive runs draw new values
  ir::Node *other = mustAdd("random_normal", {constant(vec<int32_t>({8}))},
                            {{"seed", int64_t{42}}, {"seed2", int64_t{10}}});
  EXPECT_FALSE(eval1(other).equals(a1));
}

TEST_F(RandomOpsTest, StreamLivesInResourceMgrAcrossKernels) {
  useResources = true;
  ir::Node *n = mustAdd("random_uniform", {constant(vec<int32_t>({4}))},
                        {{"seed", int64_t{5}}});
  Tensor a = eval1(n), b = eval1(n); // two kernels, one session stream
  EXPECT_FALSE(a.equals(b));
  resources.clear();
  EXPECT_TENSOR_EQ(eval1(n), a);
}

TEST_F(RandomOpsTest, UnseededDiffers) {
  ir::Node *n = mustAdd("random_uniform", {constant(vec<int32_t>({16}))});
  EXPECT_FALSE(eval1(n).equals(eval1(n)));
}

TEST_F(RandomOpsTest, StaticShapes) {
  EXPECT_EQ(shapeOf("random_normal", {constant(vec<int64_t>({2, 3}))}),
            Shape({2, 3}));
  EXPECT_EQ(shapeOf("random_uniform", {input(DType::kI32, Shape({3}))}),
            Shape({-1, -1, -1}));
  EXPECT_EQ(shapeOf("truncated_normal", {input(DType::kI32)}), Shape::unknown());
  EXPECT_EQ(shapeOf("random_uniform", {constant(Tensor(DType::kI32, {0}))}),
            Shape::scalar());
  EXPECT_TRUE(ir::opRegistry().find("random_uniform")->stateful);
  ir::Node *n = mustAdd("random_normal", {constant(vec<int32_t>({2}))},
                        {{"dtype", DType::kF64}});
  EXPECT_EQ(n->outputType(0), DType::kF64);
}

TEST_F(RandomOpsTest, Errors) {
  EXPECT_EQ(addError("random_normal", {constant(vec<int32_t>({2, -1}))}),
            "Dimension -1 must be >= 0");
  EXPECT_EQ(runError("random_normal", {vec<int32_t>({2, -1})}),
            "Dimension -1 must be >= 0");
  EXPECT_EQ(addError("random_uniform", {input(DType::kI32, Shape({2, 2}))}),
            "Shape must be rank 1 but is rank 2");
  EXPECT_EQ(runError("random_uniform", {tensor<int32_t>({1, 2, 3, 4}, {2, 2})}),
            "Shape must be rank 1 but is rank 2");
  EXPECT_HAS(addError("random_normal", {constant(vec<int32_t>({2}))},
                      {{"dtype", DType::kI32}}),
             "does not support dtype i32");
  EXPECT_HAS(addError("random_normal", {constant(vec<float>({2}))}),
             "does not support dtype f32");
}

} // namespace
} // namespace sluice::testing
