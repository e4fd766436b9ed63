// tests/ops_math/matmul_select_test.cc: matmul (against a hand loop),
// add_n, select and where.
#include <random>

#include "tests/ops_math/math_test_util.h"

namespace sluice::testing {
namespace {

using MatmulSelectTest = MathOpTest;

template <typename T> Tensor randomMatrix(int64_t r, int64_t c, int seed) {
  std::mt19937 g(seed);
  Tensor t = Tensor::uninitialized(ir::DTypeOf<T>::value, {r, c});
  for (int64_t i = 0; i < r * c; ++i)
    t.data<T>()[i] = static_cast<T>(static_cast<int>(g() % 11) - 5);
  return t;
}

/// The reference: C = op(A) op(B) computed naively in double.
std::vector<double> handMatmul(const Tensor &a, const Tensor &b, bool ta, bool tb) {
  int64_t m = ta ? a.dim(1) : a.dim(0), k = ta ? a.dim(0) : a.dim(1);
  int64_t n = tb ? b.dim(0) : b.dim(1);
  std::vector<double> c(m * n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) {
        double x = ta ? a.elementAsDouble(p * a.dim(1) + i)
                      : a.elementAsDouble(i * a.dim(1) + p);
        double y = tb ? b.elementAsDouble(j * b.dim(1) + p)
                      : b.elementAsDouble(p * b.dim(1) + j);
        c[i * n + j] += x * y;
      }
  return c;
}

TEST_F(MatmulSelectTest, MatmulTransposesAllTypes) {
  for (DType dt : {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kF16})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        // op(A) is 5x7, op(B) is 7x3.
        Tensor a = randomMatrix<double>(ta ? 7 : 5, ta ? 5 : 7, 1);
        Tensor b = randomMatrix<double>(tb ? 3 : 7, tb ? 7 : 3, 2);
        Tensor ac = run("cast", {a}, {{"dtype", dt}});
        Tensor bc = run("cast", {b}, {{"dtype", dt}});
        Tensor c = run("matmul", {ac, bc},
                       {{"transpose_a", ta}, {"transpose_b", tb}});
        ASSERT_EQ(c.dims(), (Dims{5, 3}));
        EXPECT_EQ(c.dtype(), dt);
        EXPECT_EQ(values(c), handMatmul(a, b, ta, tb))
            << dtypeName(dt) << " ta=" << ta << " tb=" << tb;
      }
}

TEST_F(MatmulSelectTest, MatmulAdjointAndEmpty) {
  Tensor a = iota<float>({2, 3}), b = iota<float>({2, 3});
  Tensor c = run("matmul", {a, b}, {{"adjoint_b", true}});
  EXPECT_EQ(values(c), handMatmul(a, b, false, true));
  Tensor z = run("matmul", {Tensor(DType::kF32, {2, 0}), Tensor(DType::kF32, {0, 3})});
  EXPECT_TENSOR_EQ(z, Tensor(DType::kF32, {2, 3}));
  EXPECT_EQ(run("matmul", {Tensor(DType::kF64, {0, 4}), iota<double>({4, 2})}).dims(),
            (Dims{0, 2}));
}

TEST_F(MatmulSelectTest, MatmulStaticShapes) {
  auto a = input(DType::kF32, Shape({-1, 3}));
  auto b = input(DType::kF32, Shape({3, 4}));
  EXPECT_EQ(shapeOf("matmul", {a, b}), Shape({-1, 4}));
  EXPECT_EQ(shapeOf("matmul", {b, a}, {{"transpose_a", true}, {"transpose_b", true}}),
            Shape({4, -1}));
  EXPECT_EQ(shapeOf("matmul", {input(DType::kF32), b}), Shape({-1, 4}));
  EXPECT_TRUE(ir::opRegistry().find("matmul")->expensive);
}

TEST_F(MatmulSelectTest, MatmulErrors) {
  auto a = input(DType::kF32, Shape({2, 3}));
  auto b = input(DType::kF32, Shape({4, 5}));
  ir::NodeSpec s;
  s.name = "mm";
  s.op = "matmul";
  s.inputs = {a, b};
  auto r = g.addNode(s);
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().message(),
            "Dimensions must be equal, but are 3 and 4 for 'mm' (op: 'matmul') "
            "with input shapes: [2, 3], [4, 5]");
  EXPECT_HAS(addError("matmul", {input(DType::kF32, Shape({2, 3, 4})), b}),
             "Shape must be rank 2 but is rank 3");
  auto r2 = add("matmul", {a, input(DType::kF32, Shape({3, 5}))},
                {{"transpose_a", true}, {"adjoint_a", true}});
  ASSERT_FALSE(r2.hasValue());
  EXPECT_EQ(r2.status().code(), Code::kValueError);
  EXPECT_HAS(addError("matmul", {input(DType::kBool), input(DType::kBool)}),
             "does not support dtype bool");
  EXPECT_HAS(runError("matmul", {iota<float>({2, 3}), iota<float>({4, 5})}),
             "Dimensions must be equal, but are 3 and 4 for 'matmul");
  EXPECT_HAS(runError("matmul", {iota<float>({3}), iota<float>({3, 5})}),
             "Shape must be rank 2 but is rank 1");
}

TEST_F(MatmulSelectTest, AddN) {
  Tensor r = run("add_n", {iota<float>({2, 2}), iota<float>({2, 2}, 1),
                           iota<float>({2, 2}, 2)});
  EXPECT_TENSOR_EQ(r, tensor<float>({3, 6, 9, 12}, {2, 2}));
  EXPECT_TENSOR_EQ(run("add_n", {vec<int32_t>({1, 2})}), vec<int32_t>({1, 2}));
  EXPECT_TENSOR_EQ(run("add_n", {halves({1, 2}, {2}), halves({0.5f, 0.5f}, {2})}),
                   halves({1.5f, 2.5f}, {2}));
  ir::Node *n = mustAdd("add_n", {input(DType::kI64, Shape({-1, 3})),
                                  input(DType::kI64, Shape({2, -1}))});
  EXPECT_EQ(n->outputShape(0), Shape({2, 3}));
  EXPECT_EQ(addError("add_n", {input(DType::kF32, Shape({2})),
                               input(DType::kF32, Shape({3}))}),
            "Inputs to add_n must have the same shape, but input 0 is [2] and "
            "input 1 is [3]");
  EXPECT_EQ(runError("add_n", {iota<float>({2}), iota<float>({3})}),
            "Inputs to add_n must have the same shape, but input 0 is [2] and "
            "input 1 is [3]");
  EXPECT_HAS(addError("add_n", {input(DType::kF32), input(DType::kI32)}),
             "does not match dtype");
  EXPECT_HAS(addError("add_n", {}), "must be at least 1");
}

TEST_F(MatmulSelectTest, SelectSameShape) {
  Tensor r = run("select", {bools({1, 0, 1}, {3}), vec<int32_t>({1, 2, 3}),
                            vec<int32_t>({10, 20, 30})});
  EXPECT_TENSOR_EQ(r, vec<int32_t>({1, 20, 3}));
}

TEST_F(MatmulSelectTest, SelectVectorConditionPicksRows) {
  // TF1: a condition of shape [3] with x of shape [3, 3] selects rows.
  Tensor r = run("select", {bools({1, 0, 1}, {3}), iota<float>({3, 3}),
                            iota<float>({3, 3}, 100)});
  EXPECT_TENSOR_EQ(r, tensor<float>({0, 1, 2, 103, 104, 105, 6, 7, 8}, {3, 3}));
}

TEST_F(MatmulSelectTest, SelectBroadcasts) {
  Tensor r = run("select", {bools({1, 0}, {1, 2}), iota<int64_t>({3, 2}),
                            Tensor::scalar<int64_t>(-1)});
  EXPECT_TENSOR_EQ(r, tensor<int64_t>({0, -1, 2, -1, 4, -1}, {3, 2}));
  Tensor s(DType::kString, {2});
  s.strings()[0] = "a";
  s.strings()[1] = "b";
  Tensor rs = run("select", {bools({0, 1}, {2}), s, Tensor::scalarString("z")});
  EXPECT_EQ(rs.strings()[0], "z");
  EXPECT_EQ(rs.strings()[1], "b");
}

TEST_F(MatmulSelectTest, SelectShapesAndErrors) {
  EXPECT_EQ(shapeOf("select", {input(DType::kBool, Shape({-1})),
                               input(DType::kF32, Shape({4, 5})),
                               input(DType::kF32, Shape({4, 5}))}),
            Shape({4, 5}));
  EXPECT_EQ(shapeOf("select", {input(DType::kBool, Shape({2, 1})),
                               input(DType::kF32, Shape({3})),
                               input(DType::kF32, Shape::scalar())}),
            Shape({2, 3}));
  EXPECT_EQ(addError("select", {input(DType::kBool, Shape({2})),
                                input(DType::kF32, Shape({3, 4})),
                                input(DType::kF32, Shape({3, 4}))}),
            "Incompatible shapes: [2] vs. [3, 4]");
  EXPECT_HAS(addError("select", {input(DType::kI32), input(DType::kF32),
                                 input(DType::kF32)}),
             "must be bool");
  EXPECT_EQ(runError("select", {bools({1, 0}, {2}), iota<float>({3, 4}),
                                iota<float>({3, 4})}),
            "Incompatible shapes: [2] vs. [3, 4]");
  EXPECT_EQ(runError("select", {bools({1}, {1}), iota<float>({3}),
                                iota<float>({2})}),
            "Incompatible shapes: [3] vs. [2]");
}

TEST_F(MatmulSelectTest, WhereCoordinates) {
  Tensor r = run("where", {bools({0, 1, 1, 0, 0, 1}, {2, 3})});
  EXPECT_TENSOR_EQ(r, tensor<int64_t>({0, 1, 0, 2, 1, 2}, {3, 2}));
  Tensor n = run("where", {vec<float>({0, 2.5f, 0, -1})});
  EXPECT_TENSOR_EQ(n, tensor<int64_t>({1, 3}, {2, 1}));
  EXPECT_EQ(run("where", {bools({0, 0}, {2})}).dims(), (Dims{0, 1}));
  EXPECT_EQ(shapeOf("where", {input(DType::kBool, Shape({4, -1, 2}))}),
            Shape({-1, 3}));
  EXPECT_EQ(shapeOf("where", {input(DType::kBool)}), Shape({-1, -1}));
}

} // namespace
} // namespace sluice::testing
