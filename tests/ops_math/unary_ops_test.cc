// tests/ops_math/unary_ops_test.cc: unary elementwise math ops and cast.
#include <cmath>
#include <limits>

#include "tests/ops_math/math_test_util.h"

namespace sluice::testing {
namespace {

using UnaryOpsTest = MathOpTest;

TEST_F(UnaryOpsTest, IntegerOps) {
  Tensor x = vec<int32_t>({-3, 0, 4});
  EXPECT_TENSOR_EQ(run("negative", {x}), vec<int32_t>({3, 0, -4}));
  EXPECT_TENSOR_EQ(run("abs", {x}), vec<int32_t>({3, 0, 4}));
  EXPECT_TENSOR_EQ(run("square", {x}), vec<int32_t>({9, 0, 16}));
  EXPECT_TENSOR_EQ(run("relu", {x}), vec<int32_t>({0, 0, 4}));
  EXPECT_TENSOR_EQ(run("sign", {x}), vec<int32_t>({-1, 0, 1}));
  EXPECT_TENSOR_EQ(run("round", {x}), x);
  EXPECT_TENSOR_EQ(run("abs", {vec<int8_t>({-128, -5})}), vec<int8_t>({-128, 5}));
  EXPECT_TENSOR_EQ(run("square", {vec<int64_t>({3000000000})}),
                   vec<int64_t>({9000000000000000000}));
}

TEST_F(UnaryOpsTest, FloatOps) {
  Tensor x = vec<double>({0.25, 1, 4});
  expectNear(run("sqrt", {x}), {0.5, 1, 2});
  expectNear(run("rsqrt", {x}), {2, 1, 0.5});
  expectNear(run("exp", {vec<double>({0, 1})}), {1, std::exp(1.0)});
  expectNear(run("log", {x}), {std::log(0.25), 0, std::log(4.0)});
  expectNear(run("tanh", {vec<double>({-1, 0, 2})}),
             {std::tanh(-1.0), 0, std::tanh(2.0)});
  expectNear(run("sigmoid", {vec<double>({0, 2, -800, 800})}),
             {0.5, 1 / (1 + std::exp(-2.0)), 0, 1});
  EXPECT_TENSOR_EQ(run("negative", {vec<float>({0})}), vec<float>({-0.0f}));
  EXPECT_TRUE(std::signbit(run("negative", {vec<float>({0})}).data<float>()[0]));
}

TEST_F(UnaryOpsTest, FloorCeilRoundHalfToEven) {
  Tensor x = vec<float>({-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f});
  EXPECT_TENSOR_EQ(run("floor", {x}), vec<float>({-2, -1, 0, 1, 2, 2}));
  EXPECT_TENSOR_EQ(run("ceil", {x}), vec<float>({-1, -0.0f, 1, 2, 3, 3}));
  EXPECT_TENSOR_EQ(run("round", {x}), vec<float>({-2, -0.0f, 0, 2, 2, 3}));
}

TEST_F(UnaryOpsTest, HalfOps) {
  EXPECT_TENSOR_EQ(run("sqrt", {halves({4, 9}, {2})}), halves({2, 3}, {2}));
  EXPECT_TENSOR_EQ(run("abs", {halves({-1.5f}, {1})}), halves({1.5f}, {1}));
  EXPECT_TENSOR_EQ(run("relu", {halves({-1, 2}, {1, 2})}), halves({0, 2}, {1, 2}));
}

TEST_F(UnaryOpsTest, NanPropagates) {
  for (const char *op : {"relu", "sign", "abs", "sqrt"}) {
    Tensor r = run(op, {vec<float>({NAN})});
    EXPECT_TRUE(std::isnan(r.data<float>()[0])) << op;
  }
}

TEST_F(UnaryOpsTest, LogicalNot) {
  EXPECT_TENSOR_EQ(run("logical_not", {bools({1, 0}, {2})}), bools({0, 1}, {2}));
}

TEST_F(UnaryOpsTest, ShapesAndDtypes) {
  EXPECT_EQ(shapeOf("exp", {input(DType::kF32, Shape({-1, 3}))}),
            Shape({-1, 3}));
  EXPECT_HAS(addError("sqrt", {input(DType::kI32)}),
             "sqrt does not support dtype i32");
  EXPECT_HAS(addError("negative", {input(DType::kBool)}),
             "does not support dtype bool");
  EXPECT_HAS(addError("logical_not", {input(DType::kI32)}), "must be bool");
  EXPECT_HAS(addError("floor", {input(DType::kI64)}), "does not support");
}

TEST_F(UnaryOpsTest, CastFloatToIntTruncates) {
  Tensor x = vec<float>({-2.7f, -0.5f, 0.5f, 2.7f});
  EXPECT_TENSOR_EQ(run("cast", {x}, {{"dtype", DType::kI32}}),
                   vec<int32_t>({-2, 0, 0, 2}));
  EXPECT_TENSOR_EQ(run("cast", {vec<double>({300, -1e30, NAN})},
                       {{"dtype", DType::kU8}}),
                   vec<uint8_t>({255, 0, 0}));
  EXPECT_TENSOR_EQ(run("cast", {vec<double>({1e30})}, {{"dtype", DType::kI64}}),
                   vec<int64_t>({std::numeric_limits<int64_t>::max()}));
}

TEST_F(UnaryOpsTest, CastBoolAndInts) {
  EXPECT_TENSOR_EQ(run("cast", {vec<int32_t>({0, 3, -1})}, {{"dtype", DType::kBool}}),
                   bools({0, 1, 1}, {3}));
  EXPECT_TENSOR_EQ(run("cast", {bools({1, 0}, {2})}, {{"dtype", DType::kF32}}),
                   vec<float>({1, 0}));
  EXPECT_TENSOR_EQ(run("cast", {vec<int32_t>({300, -1})}, {{"dtype", DType::kU8}}),
                   vec<uint8_t>({44, 255}));
  EXPECT_TENSOR_EQ(run("cast", {vec<uint8_t>({200})}, {{"dtype", DType::kI8}}),
                   vec<int8_t>({-56}));
  EXPECT_TENSOR_EQ(run("cast", {vec<int64_t>({5})}, {{"dtype", DType::kF16}}),
                   halves({5}, {1}));
  EXPECT_TENSOR_EQ(run("cast", {halves({2.5f}, {1})}, {{"dtype", DType::kF64}}),
                   vec<double>({2.5}));
  EXPECT_TENSOR_EQ(run("cast", {halves({-2.5f}, {1})}, {{"dtype", DType::kI16}}),
                   vec<int16_t>({-2}));
}

TEST_F(UnaryOpsTest, CastEveryPair) {
  std::vector<DType> all = {DType::kF16, DType::kF32, DType::kF64,
                            DType::kI8,  DType::kI16, DType::kI32,
                            DType::kI64, DType::kU8,  DType::kBool};
  for (DType src : all)
    for (DType dst : all) {
      Tensor x = run("cast", {vec<int32_t>({0, 1, 7})}, {{"dtype", src}});
      Tensor y = run("cast", {x}, {{"dtype", dst}});
      ASSERT_EQ(y.dtype(), dst);
      std::vector<double> want =
          (src == DType::kBool || dst == DType::kBool) ? std::vector<double>{0, 1, 1}
                                                       : std::vector<double>{0, 1, 7};
      EXPECT_EQ(values(y), want) << dtypeName(src) << " -> " << dtypeName(dst);
    }
}

TEST_F(UnaryOpsTest, CastStatic) {
  ir::Node *n = mustAdd("cast", {input(DType::kF32, Shape({2, -1}))},
                        {{"dtype", DType::kI64}});
  EXPECT_EQ(n->outputType(0), DType::kI64);
  EXPECT_EQ(n->outputShape(0), Shape({2, -1}));
  EXPECT_HAS(addError("cast", {input(DType::kF32)}), "needs attribute 'dtype'");
  EXPECT_HAS(addError("cast", {input(DType::kString)}, {{"dtype", DType::kF32}}),
             "does not support dtype string");
}

} // namespace
} // namespace sluice::testing
