// tests/ops_math/reduce_ops_test.cc: reductions, argmax/argmin, softmax.
#include <cmath>
#include <limits>

#include "tests/ops_math/math_test_util.h"

namespace sluice::testing {
namespace {

using ReduceOpsTest = MathOpTest;
using Axes = std::vector<int64_t>;

TEST_F(ReduceOpsTest, SumAllAndAxes) {
  Tensor x = iota<float>({2, 3}); // [[0 1 2] [3 4 5]]
  EXPECT_TENSOR_EQ(run("reduce_sum", {x}), Tensor::scalar<float>(15));
  EXPECT_TENSOR_EQ(run("reduce_sum", {x}, {{"axis", Axes{0}}}),
                   vec<float>({3, 5, 7}));
  EXPECT_TENSOR_EQ(run("reduce_sum", {x}, {{"axis", Axes{1}}}),
                   vec<float>({3, 12}));
  EXPECT_TENSOR_EQ(run("reduce_sum", {x}, {{"axis", Axes{-1}}}),
                   vec<float>({3, 12}));
  EXPECT_TENSOR_EQ(run("reduce_sum", {x}, {{"axis", Axes{0, 1}}}),
                   Tensor::scalar<float>(15));
  EXPECT_TENSOR_EQ(run("reduce_sum", {x}, {{"axis", Axes{}}}), x);
}

TEST_F(ReduceOpsTest, Keepdims) {
  Tensor x = iota<int32_t>({2, 3});
  EXPECT_TENSOR_EQ(run("reduce_sum", {x}, {{"axis", Axes{1}}, {"keepdims", true}}),
                   tensor<int32_t>({3, 12}, {2, 1}));
  EXPECT_TENSOR_EQ(run("reduce_max", {x}, {{"keepdims", true}}),
                   tensor<int32_t>({5}, {1, 1}));
}

TEST_F(ReduceOpsTest, NonAdjacentAxes) {
  Tensor x = iota<int64_t>({2, 3, 4});
  Tensor r = run("reduce_sum", {x}, {{"axis", Axes{0, 2}}});
  // sum over i, k of (12 i + 4 j + k) = 2*4*4j + 4*12 + 2*6
  EXPECT_TENSOR_EQ(r, vec<int64_t>({60, 92, 124}));
  Tensor m = run("reduce_max", {x}, {{"axis", Axes{1}}, {"keepdims", true}});
  EXPECT_TENSOR_EQ(m, tensor<int64_t>({8, 9, 10, 11, 20, 21, 22, 23}, {2, 1, 4}));
  Tensor mid = run("reduce_min", {x}, {{"axis", Axes{-2, 0}}});
  EXPECT_TENSOR_EQ(mid, vec<int64_t>({0, 1, 2, 3}));
}

TEST_F(ReduceOpsTest, MeanProdMaxMin) {
  Tensor x = tensor<double>({1, 2, 3, 4}, {2, 2});
  EXPECT_TENSOR_EQ(run("reduce_mean", {x}, {{"axis", Axes{0}}}),
                   vec<double>({2, 3}));
  EXPECT_TENSOR_EQ(run("reduce_prod", {x}), Tensor::scalar<double>(24));
  EXPECT_TENSOR_EQ(run("reduce_max", {x}, {{"axis", Axes{1}}}), vec<double>({2, 4}));
  EXPECT_TENSOR_EQ(run("reduce_min", {x}, {{"axis", Axes{1}}}), vec<double>({1, 3}));
}

TEST_F(ReduceOpsTest, IntegerMeanTruncates) {
  EXPECT_TENSOR_EQ(run("reduce_mean", {vec<int32_t>({1, 2})}),
                   Tensor::scalar<int32_t>(1));
  EXPECT_TENSOR_EQ(run("reduce_mean", {vec<int32_t>({-1, -2})}),
                   Tensor::scalar<int32_t>(-1));
  // The sum is taken wide, so i8 means do not overflow.
  EXPECT_TENSOR_EQ(run("reduce_mean", {vec<int8_t>({100, 100, 100})}),
                   Tensor::scalar<int8_t>(100));
  EXPECT_TENSOR_EQ(run("reduce_sum", {vec<uint8_t>({200, 100})}),
                   Tensor::scalar<uint8_t>(44));
}

TEST_F(ReduceOpsTest, HalfAndEmpty) {
  EXPECT_TENSOR_EQ(run("reduce_sum", {halves({0.5f, 1, 1.5f}, {3})}),
                   Tensor::scalar<Half>(Half(3.0f)));
  Tensor empty(DType::kF32, {0, 2});
  EXPECT_TENSOR_EQ(run("reduce_sum", {empty}, {{"axis", Axes{0}}}),
                   vec<float>({0, 0}));
  EXPECT_TENSOR_EQ(run("reduce_prod", {empty}, {{"axis", Axes{0}}}),
                   vec<float>({1, 1}));
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_TENSOR_EQ(run("reduce_max", {empty}, {{"axis", Axes{0}}}),
                   vec<float>({-inf, -inf}));
  EXPECT_TENSOR_EQ(run("reduce_min", {Tensor(DType::kI32, {0})}),
                   Tensor::scalar<int32_t>(std::numeric_limits<int32_t>::max()));
  Tensor mean = run("reduce_mean", {empty});
  EXPECT_TRUE(std::isnan(mean.data<float>()[0]));
  EXPECT_EQ(run("reduce_sum", {empty}, {{"axis", Axes{1}}}).dims(), (Dims{0}));
}

TEST_F(ReduceOpsTest, MaxPropagatesNan) {
  Tensor r = run("reduce_max", {vec<float>({1, NAN, 3})});
  EXPECT_TRUE(std::isnan(r.data<float>()[0]));
}

TEST_F(ReduceOpsTest, AnyAll) {
  Tensor x = bools({1, 0, 0, 0}, {2, 2});
  EXPECT_TENSOR_EQ(run("reduce_any", {x}, {{"axis", Axes{1}}}), bools({1, 0}, {2}));
  EXPECT_TENSOR_EQ(run("reduce_all", {x}, {{"axis", Axes{0}}}), bools({0, 0}, {2}));
  EXPECT_TENSOR_EQ(run("reduce_all", {bools({1, 1}, {2})}), Tensor::scalar<bool>(true));
  EXPECT_TENSOR_EQ(run("reduce_all", {Tensor(DType::kBool, {0})}),
                   Tensor::scalar<bool>(true));
  EXPECT_HAS(addError("reduce_any", {input(DType::kF32)}), "must be bool");
}

TEST_F(ReduceOpsTest, StaticShapes) {
  auto x = input(DType::kF32, Shape({2, -1, 4}));
  EXPECT_EQ(shapeOf("reduce_sum", {x}), Shape::scalar());
  EXPECT_EQ(shapeOf("reduce_sum", {x}, {{"axis", Axes{1}}}), Shape({2, 4}));
  EXPECT_EQ(shapeOf("reduce_sum", {x}, {{"axis", Axes{-1}}, {"keepdims", true}}),
            Shape({2, -1, 1}));
  EXPECT_EQ(shapeOf("reduce_mean", {input(DType::kF32)}), Shape::scalar());
  EXPECT_EQ(shapeOf("reduce_mean", {input(DType::kF32)}, {{"axis", Axes{0}}}),
            Shape::unknown());
  EXPECT_EQ(shapeOf("reduce_mean", {input(DType::kF32)}, {{"keepdims", true}}),
            Shape::unknown());
}

TEST_F(ReduceOpsTest, InvalidAxis) {
  auto x = input(DType::kF32, Shape({2, 3}));
  EXPECT_EQ(addError("reduce_sum", {x}, {{"axis", Axes{2}}}),
            "Invalid reduction dimension 2 for input with 2 dimensions");
  EXPECT_EQ(addError("reduce_sum", {x}, {{"axis", Axes{-3}}}),
            "Invalid reduction dimension -3 for input with 2 dimensions");
  EXPECT_EQ(runError("reduce_max", {iota<float>({2, 3})}, {{"axis", Axes{5}}}),
            "Invalid reduction dimension 5 for input with 2 dimensions");
  EXPECT_HAS(addError("reduce_sum", {input(DType::kBool)}), "does not support");
}

TEST_F(ReduceOpsTest, ArgMaxArgMin) {
  Tensor x = tensor<float>({1, 9, 3, 7, 2, 8}, {2, 3});
  EXPECT_TENSOR_EQ(run("argmax", {x}), vec<int64_t>({1, 0, 1}));
  EXPECT_TENSOR_EQ(run("argmax", {x}, {{"axis", int64_t{1}}}), vec<int64_t>({1, 2}));
  EXPECT_TENSOR_EQ(run("argmin", {x}, {{"axis", int64_t{-1}}}), vec<int64_t>({0, 1}));
  EXPECT_TENSOR_EQ(run("argmax", {x}, {{"axis", int64_t{1}},
                                       {"output_type", DType::kI32}}),
                   vec<int32_t>({1, 2}));
  // Ties pick the first index.
  EXPECT_TENSOR_EQ(run("argmax", {vec<int32_t>({3, 5, 5})}),
                   Tensor::scalar<int64_t>(1));
  EXPECT_TENSOR_EQ(run("argmin", {halves({2, 1, 1}, {3})}),
                   Tensor::scalar<int64_t>(1));
}

TEST_F(ReduceOpsTest, ArgMaxShapesAndErrors) {
  auto x = input(DType::kF32, Shape({2, -1, 4}));
  EXPECT_EQ(shapeOf("argmax", {x}, {{"axis", int64_t{1}}}), Shape({2, 4}));
  ir::Node *n = mustAdd("argmin", {x}, {{"output_type", DType::kI32}});
  EXPECT_EQ(n->outputType(0), DType::kI32);
  EXPECT_EQ(addError("argmax", {x}, {{"axis", int64_t{3}}}),
            "Expected dimension in the range [-3, 3), but got 3");
  EXPECT_EQ(runError("argmax", {iota<float>({2})}, {{"axis", int64_t{1}}}),
            "Expected dimension in the range [-1, 1), but got 1");
  EXPECT_EQ(runError("argmax", {Tensor(DType::kF32, {0, 3})}),
            "Reduction axis 0 is empty in shape [0, 3]");
  EXPECT_HAS(addError("argmax", {x}, {{"output_type", DType::kF32}}),
             "does not support dtype f32");
}

TEST_F(ReduceOpsTest, Softmax) {
  Tensor x = tensor<double>({1, 2, 3, 1000, 1000, 1000}, {2, 3});
  Tensor r = run("softmax", {x});
  double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  expectNear(r, {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z,
                 1.0 / 3, 1.0 / 3, 1.0 / 3},
             1e-12);
  Tensor l = run("log_softmax", {x});
  expectNear(l, {1 - std::log(z), 2 - std::log(z), 3 - std::log(z),
                 -std::log(3.0), -std::log(3.0), -std::log(3.0)},
             1e-12);
  Tensor f = run("softmax", {vec<float>({-1000, 0})});
  expectNear(f, {0, 1});
  Tensor h = run("softmax", {halves({0, 0}, {2})});
  expectNear(h, {0.5, 0.5}, 1e-3);
}

TEST_F(ReduceOpsTest, SoftmaxOtherAxis) {
  Tensor x = tensor<float>({0, 0, 1, 1}, {2, 2});
  Tensor r = run("softmax", {x}, {{"axis", int64_t{0}}});
  double e = std::exp(1.0);
  expectNear(r, {1 / (1 + e), 1 / (1 + e), e / (1 + e), e / (1 + e)});
}

TEST_F(ReduceOpsTest, SoftmaxErrors) {
  EXPECT_EQ(addError("softmax", {input(DType::kF32, Shape::scalar())}),
            "Shape must be at least rank 1 but is rank 0");
  EXPECT_EQ(runError("log_softmax", {Tensor::scalar<float>(1)}),
            "Shape must be at least rank 1 but is rank 0");
  EXPECT_HAS(addError("softmax", {input(DType::kI32)}), "does not support dtype i32");
  EXPECT_EQ(shapeOf("softmax", {input(DType::kF32, Shape({-1, 10}))}),
            Shape({-1, 10}));
}

} // namespace
} // namespace sluice::testing
