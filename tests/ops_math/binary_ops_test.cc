// tests/ops_math/binary_ops_test.cc: binary elementwise math ops: values,
// broadcasting, dtypes, static shapes and errors.
#include <cmath>
#include <limits>

#include "tests/ops_math/math_test_util.h"

namespace sluice::testing {
namespace {

using BinaryOpsTest = MathOpTest;

TEST_F(BinaryOpsTest, AddSameShape) {
  Tensor r = run("add", {vec<float>({1, 2, 3}), vec<float>({10, 20, 30})});
  EXPECT_TENSOR_EQ(r, vec<float>({11, 22, 33}));
}

TEST_F(BinaryOpsTest, BroadcastRowVector) {
  Tensor r = run("add", {iota<int32_t>({2, 3}), vec<int32_t>({10, 20, 30})});
  EXPECT_TENSOR_EQ(r, tensor<int32_t>({10, 21, 32, 13, 24, 35}, {2, 3}));
}

TEST_F(BinaryOpsTest, BroadcastColumnTimesRow) {
  Tensor r = run("multiply", {tensor<double>({1, 2}, {2, 1}),
                              tensor<double>({1, 10, 100}, {1, 3})});
  EXPECT_TENSOR_EQ(r, tensor<double>({1, 10, 100, 2, 20, 200}, {2, 3}));
}

TEST_F(BinaryOpsTest, BroadcastScalarBothSides) {
  EXPECT_TENSOR_EQ(run("subtract", {Tensor::scalar<int64_t>(10),
                                    vec<int64_t>({1, 2})}),
                   vec<int64_t>({9, 8}));
  EXPECT_TENSOR_EQ(run("subtract", {vec<int64_t>({1, 2}),
                                    Tensor::scalar<int64_t>(10)}),
                   vec<int64_t>({-9, -8}));
  EXPECT_TENSOR_EQ(run("add", {Tensor::scalar<float>(1.5f),
                               Tensor::scalar<float>(2)}),
                   Tensor::scalar<float>(3.5f));
}

TEST_F(BinaryOpsTest, BroadcastMiddleDims) {
  // [2,1,3] + [4,1] -> [2,4,3]: both operands repeat along different dims.
  Tensor r = run("add", {iota<int32_t>({2, 1, 3}), iota<int32_t>({4, 1}, 0)});
  ASSERT_EQ(r.dims(), (Dims{2, 4, 3}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(r.data<int32_t>()[(i * 4 + j) * 3 + k], i * 3 + k + j);
}

TEST_F(BinaryOpsTest, EmptyBroadcast) {
  Tensor r = run("add", {Tensor(DType::kF32, {0, 3}), vec<float>({1, 2, 3})});
  EXPECT_EQ(r.dims(), (Dims{0, 3}));
}

TEST_F(BinaryOpsTest, HalfArithmetic) {
  Tensor r = run("multiply", {halves({1.5f, -2}, {2}), halves({2, 0.25f}, {2})});
  EXPECT_TENSOR_EQ(r, halves({3, -0.5f}, {2}));
}

TEST_F(BinaryOpsTest, Uint8AndInt8Wrap) {
  EXPECT_TENSOR_EQ(run("add", {vec<uint8_t>({250}), vec<uint8_t>({10})}),
                   vec<uint8_t>({4}));
  EXPECT_TENSOR_EQ(run("multiply", {vec<int8_t>({100}), vec<int8_t>({3})}),
                   vec<int8_t>({44}));
  int32_t big = std::numeric_limits<int32_t>::max();
  EXPECT_TENSOR_EQ(run("add", {vec<int32_t>({big}), vec<int32_t>({1})}),
                   vec<int32_t>({std::numeric_limits<int32_t>::min()}));
}

TEST_F(BinaryOpsTest, DivideIsTrueDivision) {
  Tensor r = run("divide", {vec<int32_t>({7, -7}), vec<int32_t>({2, 2})});
  EXPECT_TENSOR_EQ(r, vec<double>({3.5, -3.5}));
  EXPECT_TENSOR_EQ(run("divide", {vec<int8_t>({1}), vec<int8_t>({4})}),
                   vec<float>({0.25f}));
  EXPECT_TENSOR_EQ(run("divide", {vec<uint8_t>({1}), vec<uint8_t>({4})}),
                   vec<float>({0.25f}));
  EXPECT_TENSOR_EQ(run("divide", {vec<int64_t>({1}), vec<int64_t>({0})}),
                   vec<double>({std::numeric_limits<double>::infinity()}));
  EXPECT_TENSOR_EQ(run("divide", {vec<float>({1}), vec<float>({4})}),
                   vec<float>({0.25f}));
}

TEST_F(BinaryOpsTest, DivideStaticDtype) {
  ir::Node *n = mustAdd("divide", {input(DType::kI32, Shape({2})),
                                   input(DType::kI32, Shape({2}))});
  EXPECT_EQ(n->outputType(0), DType::kF64);
  n = mustAdd("divide", {input(DType::kI16), input(DType::kI16)});
  EXPECT_EQ(n->outputType(0), DType::kF32);
  n = mustAdd("divide", {input(DType::kF16), input(DType::kF16)});
  EXPECT_EQ(n->outputType(0), DType::kF16);
}

TEST_F(BinaryOpsTest, FloorDivFloorsTowardMinusInfinity) {
  EXPECT_TENSOR_EQ(run("floor_div", {vec<int32_t>({7, -7, 7, -7, 6}),
                                     vec<int32_t>({2, 2, -2, -2, 3})}),
                   vec<int32_t>({3, -4, -4, 3, 2}));
  EXPECT_TENSOR_EQ(run("floor_div", {vec<float>({7, -7}), vec<float>({2, 2})}),
                   vec<float>({3, -4}));
  int64_t lo = std::numeric_limits<int64_t>::min();
  EXPECT_TENSOR_EQ(run("floor_div", {vec<int64_t>({lo}), vec<int64_t>({-1})}),
                   vec<int64_t>({lo}));
  EXPECT_TENSOR_EQ(run("floor_div", {vec<uint8_t>({7}), vec<uint8_t>({2})}),
                   vec<uint8_t>({3}));
}

TEST_F(BinaryOpsTest, ModHasDivisorSign) {
  EXPECT_TENSOR_EQ(run("mod", {vec<int32_t>({7, -7, 7, -7}),
                               vec<int32_t>({3, 3, -3, -3})}),
                   vec<int32_t>({1, 2, -2, -1}));
  EXPECT_TENSOR_EQ(run("mod", {vec<double>({7.5, -7.5}), vec<double>({2, 2})}),
                   vec<double>({1.5, 0.5}));
  EXPECT_TENSOR_EQ(run("mod", {vec<float>({7.5f}), vec<float>({-2})}),
                   vec<float>({-0.5f}));
}

TEST_F(BinaryOpsTest, IntegerDivisionByZero) {
  EXPECT_EQ(runError("floor_div", {vec<int32_t>({1, 2}), vec<int32_t>({1, 0})}),
            "Integer division by zero");
  EXPECT_EQ(runError("mod", {vec<int64_t>({1}), vec<int64_t>({0})}),
            "Integer division by zero");
  EXPECT_EQ(runError("mod", {vec<uint8_t>({1}), vec<uint8_t>({0})}),
            "Integer division by zero");
  // Float division by zero is IEEE, not an error.
  Tensor r = run("floor_div", {vec<float>({1}), vec<float>({0})});
  EXPECT_TRUE(std::isinf(r.data<float>()[0]));
}

TEST_F(BinaryOpsTest, Pow) {
  EXPECT_TENSOR_EQ(run("pow", {vec<int32_t>({2, 3, -2, 5}),
                               vec<int32_t>({10, 0, 3, 1})}),
                   vec<int32_t>({1024, 1, -8, 5}));
  expectNear(run("pow", {vec<float>({4, 2}), vec<float>({0.5f, -1})}),
             {2, 0.5});
  EXPECT_EQ(runError("pow", {vec<int32_t>({2}), vec<int32_t>({-1})}),
            "Integers to negative integer powers are not allowed");
}

TEST_F(BinaryOpsTest, MaximumMinimumSquaredDifference) {
  EXPECT_TENSOR_EQ(run("maximum", {vec<int32_t>({1, 5}), vec<int32_t>({3, 2})}),
                   vec<int32_t>({3, 5}));
  EXPECT_TENSOR_EQ(run("minimum", {vec<float>({1, 5}), Tensor::scalar<float>(3)}),
                   vec<float>({1, 3}));
  Tensor nan = run("maximum", {vec<float>({NAN}), vec<float>({1})});
  EXPECT_TRUE(std::isnan(nan.data<float>()[0]));
  EXPECT_TENSOR_EQ(run("squared_difference",
                       {vec<int64_t>({1, 5}), vec<int64_t>({4, 2})}),
                   vec<int64_t>({9, 9}));
}

TEST_F(BinaryOpsTest, Comparisons) {
  Tensor a = vec<float>({1, 2, 3}), b = Tensor::scalar<float>(2);
  EXPECT_TENSOR_EQ(run("equal", {a, b}), bools({0, 1, 0}, {3}));
  EXPECT_TENSOR_EQ(run("not_equal", {a, b}), bools({1, 0, 1}, {3}));
  EXPECT_TENSOR_EQ(run("less", {a, b}), bools({1, 0, 0}, {3}));
  EXPECT_TENSOR_EQ(run("less_equal", {a, b}), bools({1, 1, 0}, {3}));
  EXPECT_TENSOR_EQ(run("greater", {a, b}), bools({0, 0, 1}, {3}));
  EXPECT_TENSOR_EQ(run("greater_equal", {a, b}), bools({0, 1, 1}, {3}));
  EXPECT_TENSOR_EQ(run("less", {vec<uint8_t>({1, 200}), vec<uint8_t>({100, 100})}),
                   bools({1, 0}, {2}));
}

TEST_F(BinaryOpsTest, EqualOnBoolAndString) {
  EXPECT_TENSOR_EQ(run("equal", {bools({1, 0}, {2}), bools({1, 1}, {2})}),
                   bools({1, 0}, {2}));
  Tensor s(DType::kString, {2});
  s.strings()[0] = "a";
  s.strings()[1] = "b";
  EXPECT_TENSOR_EQ(run("equal", {s, Tensor::scalarString("b")}),
                   bools({0, 1}, {2}));
  EXPECT_TENSOR_EQ(run("not_equal", {s, Tensor::scalarString("b")}),
                   bools({1, 0}, {2}));
}

TEST_F(BinaryOpsTest, Logical) {
  Tensor a = bools({0, 0, 1, 1}, {2, 2}), b = bools({0, 1}, {2});
  EXPECT_TENSOR_EQ(run("logical_and", {a, b}), bools({0, 0, 0, 1}, {2, 2}));
  EXPECT_TENSOR_EQ(run("logical_or", {a, b}), bools({0, 1, 1, 1}, {2, 2}));
}

TEST_F(BinaryOpsTest, StaticShapes) {
  EXPECT_EQ(shapeOf("add", {input(DType::kF32, Shape({2, 3})),
                            input(DType::kF32, Shape({3}))}),
            Shape({2, 3}));
  EXPECT_EQ(shapeOf("add", {input(DType::kF32, Shape({2, 1})),
                            input(DType::kF32, Shape({1, 3}))}),
            Shape({2, 3}));
  EXPECT_EQ(shapeOf("less", {input(DType::kF32, Shape({-1, 3})),
                             input(DType::kF32, Shape::scalar())}),
            Shape({-1, 3}));
  EXPECT_EQ(shapeOf("add", {input(DType::kF32), input(DType::kF32, Shape({3}))}),
            Shape::unknown());
  ir::Node *n = mustAdd("equal", {input(DType::kI32), input(DType::kI32)});
  EXPECT_EQ(n->outputType(0), DType::kBool);
}

TEST_F(BinaryOpsTest, StaticErrors) {
  EXPECT_EQ(addError("add", {input(DType::kF32, Shape({2, 3})),
                             input(DType::kF32, Shape({4}))}),
            "Incompatible shapes: [2, 3] vs. [4]");
  EXPECT_HAS(addError("add", {input(DType::kF32), input(DType::kI32)}),
             "does not match dtype");
  EXPECT_HAS(addError("add", {input(DType::kBool), input(DType::kBool)}),
             "add does not support dtype bool");
  EXPECT_HAS(addError("less", {input(DType::kString), input(DType::kString)}),
             "does not support dtype string");
  EXPECT_HAS(addError("logical_and", {input(DType::kF32), input(DType::kBool)}),
             "must be bool");
}

TEST_F(BinaryOpsTest, RunTimeIncompatibleShapes) {
  EXPECT_EQ(runError("add", {iota<float>({2, 3}), iota<float>({4})}),
            "Incompatible shapes: [2, 3] vs. [4]");
  EXPECT_EQ(runError("greater", {iota<int32_t>({2, 3}), iota<int32_t>({2})}),
            "Incompatible shapes: [2, 3] vs. [2]");
}

} // namespace
} // namespace sluice::testing
