// tests/ops_array/array_ops_test.cc: constants, placeholders, reshaping,
// shape queries and tensor constructors.
#include "tests/ops_array/op_test_util.h"

namespace sluice::testing {
namespace {

using AttrList = std::vector<int64_t>;
using ArrayOpsTest = OpTest;

TEST_F(ArrayOpsTest, ConstantOutputsItsValue) {
  Tensor v = vec<float>({1, 2, 3}, {3, 1});
  ir::Output c = constant(v);
  const ir::Node &n = g.node(c.node);
  EXPECT_EQ(n.outputType(0), DType::kF32);
  EXPECT_EQ(n.outputShape(0), Shape({3, 1}));
  EXPECT_TENSOR_EQ(eval1(&n), v);
  // dtype defaults to the value's.
  ir::Node *s = mustAdd("constant", {}, {{"value", strings({"a"})}});
  EXPECT_EQ(s->outputType(0), DType::kString);
  EXPECT_HAS(addError("constant", {}, {{"value", v}, {"dtype", DType::kI32}}),
             "constant value has dtype f32 but dtype is i32");
}

TEST_F(ArrayOpsTest, PlaceholderFailsUnfed) {
  ir::Node *p = mustAdd("placeholder", {},
                        {{"dtype", DType::kF32}, {"shape", Shape({-1, 3})}});
  p = mustAdd("placeholder", {},
              {{"dtype", DType::kF32}, {"shape", Shape({-1, 3})}});
  EXPECT_TRUE(p->op().stateful);
  EXPECT_EQ(p->outputShape(0), Shape({-1, 3}));
  EXPECT_EQ(evalError(p), "You must feed a value for placeholder tensor "
                          "'placeholder_1' with dtype float32 and shape [?, 3]");
  ir::Node *u = mustAdd("placeholder", {}, {{"dtype", DType::kString}});
  EXPECT_FALSE(u->outputShape(0).hasRank());
  EXPECT_EQ(evalError(u), "You must feed a value for placeholder tensor '" +
                              u->name() + "' with dtype string");
  auto r = eval(u);
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
}

TEST_F(ArrayOpsTest, PlaceholderWithDefaultAndIdentity) {
  ir::Output x = constant(vec<int32_t>({1, 2}));
  ir::Node *p = mustAdd("placeholder_with_default", {x},
                        {{"shape", Shape({-1})}});
  EXPECT_EQ(p->outputShape(0), Shape({-1}));
  EXPECT_TENSOR_EQ(eval1(p), vec<int32_t>({1, 2}));
  EXPECT_HAS(addError("placeholder_with_default", {x}, {{"shape", Shape({3})}}),
             "not compatible");
  ir::Node *id = mustAdd("identity", {constant(strings({"a", "b"}))});
  EXPECT_EQ(id->outputType(0), DType::kString);
  EXPECT_TENSOR_EQ(eval1(id), strings({"a", "b"}));
}

TEST_F(ArrayOpsTest, Reshape) {
  ir::Output x = constant(iota<float>({2, 3}));
  ir::Node *r = mustAdd("reshape", {x, constant(vec<int32_t>({3, -1}))});
  EXPECT_EQ(r->outputShape(0), Shape({3, 2}));
  EXPECT_TENSOR_EQ(eval1(r), iota<float>({3, 2}));
  r = mustAdd("reshape", {x, constant(vec<int64_t>({6}))});
  EXPECT_EQ(r->outputShape(0), Shape({6}));
  // Scalar <-> [1].
  r = mustAdd("reshape", {constant(vec<int32_t>({7})),
                          constant(Tensor(DType::kI32, {0}))});
  EXPECT_EQ(r->outputShape(0), Shape::scalar());
  EXPECT_TENSOR_EQ(eval1(r), Tensor::scalar<int32_t>(7));
  // Errors read the same statically and at run time.
  const char *msg =
      "Cannot reshape a tensor with 6 elements to shape [4, 2] (8 elements)";
  EXPECT_EQ(addError("reshape", {x, constant(vec<int32_t>({4, 2}))}), msg);
  ir::Node *dyn = mustAdd("reshape", {fed(iota<float>({2, 3})),
                                      constant(vec<int32_t>({4, 2}))});
  EXPECT_EQ(dyn->outputShape(0), Shape({4, 2}));
  EXPECT_EQ(evalError(dyn), msg);
  EXPECT_EQ(addError("reshape", {x, constant(vec<int32_t>({4, -1}))}),
            "Cannot reshape a tensor with 6 elements to shape [4, -1] "
            "(4 elements)");
  EXPECT_EQ(addError("reshape", {x, constant(vec<int32_t>({-1, -1}))}),
            "Only one input size may be -1, not both 0 and 1");
  EXPECT_EQ(addError("reshape", {x, constant(vec<int32_t>({-2, -3}))}),
            "Size 0 must be non-negative, not -2");
  EXPECT_HAS(addError("reshape", {x, constant(iota<int32_t>({2, 1}))}),
             "sizes input must be 1-D");
  // Unknown shape values: rank from the shape input's length.
  ir::Node *u = mustAdd("reshape", {x, fed(vec<int32_t>({1, 6}), Shape({2}))});
  EXPECT_EQ(u->outputShape(0), Shape({-1, -1}));
  EXPECT_TENSOR_EQ(eval1(u), iota<float>({1, 6}));
  EXPECT_HAS(addError("reshape", {x, constant(vec<float>({6}))}),
             "does not support dtype f32");
}

TEST_F(ArrayOpsTest, ExpandDimsAndSqueeze) {
  ir::Output x = constant(iota<int32_t>({2, 3}));
  ir::Node *e = mustAdd("expand_dims", {x}, {{"axis", int64_t{-1}}});
  EXPECT_EQ(e->outputShape(0), Shape({2, 3, 1}));
  EXPECT_TENSOR_EQ(eval1(e), iota<int32_t>({2, 3, 1}));
  e = mustAdd("expand_dims", {x}, {{"axis", int64_t{0}}});
  EXPECT_EQ(e->outputShape(0), Shape({1, 2, 3}));
  EXPECT_EQ(addError("expand_dims", {x}, {{"axis", int64_t{3}}}),
            "Tried to expand dim index 3 for tensor with 2 dimensions.");
  EXPECT_EQ(addError("expand_dims", {x}, {{"axis", int64_t{-4}}}),
            "Tried to expand dim index -4 for tensor with 2 dimensions.");

  ir::Output y = constant(iota<float>({1, 3, 1}));
  ir::Node *s = mustAdd("squeeze", {y});
  EXPECT_EQ(s->outputShape(0), Shape({3}));
  EXPECT_TENSOR_EQ(eval1(s), iota<float>({3}));
  s = mustAdd("squeeze", {y}, {{"axis", AttrList{-1}}});
  EXPECT_EQ(s->outputShape(0), Shape({1, 3}));
  EXPECT_TENSOR_EQ(eval1(s), iota<float>({1, 3}));
  EXPECT_EQ(addError("squeeze", {y}, {{"axis", AttrList{1}}}),
            "Can not squeeze dim[1], expected a dimension of 1, got 3");
  EXPECT_EQ(addError("squeeze", {y}, {{"axis", AttrList{3}}}),
            "Tried to squeeze dim index 3 for tensor with 3 dimensions.");
  // An unknown dim may be 1: rank unknown without axis, assumed 1 with it.
  ir::Output p = fed(iota<float>({1, 3, 1}), Shape({-1, 3, 1}));
  EXPECT_FALSE(mustAdd("squeeze", {p})->outputShape(0).hasRank());
  ir::Node *s2 = mustAdd("squeeze", {p}, {{"axis", AttrList{0, 2}}});
  EXPECT_EQ(s2->outputShape(0), Shape({3}));
  ir::Node *bad = mustAdd("squeeze", {fed(iota<float>({2, 3, 1}),
                                          Shape({-1, 3, 1}))},
                          {{"axis", AttrList{0}}});
  EXPECT_EQ(evalError(bad),
            "Can not squeeze dim[0], expected a dimension of 1, got 2");
}

TEST_F(ArrayOpsTest, Transpose) {
  ir::Output x = constant(iota<int64_t>({2, 3}));
  ir::Node *t = mustAdd("transpose", {x});
  EXPECT_EQ(t->outputShape(0), Shape({3, 2}));
  EXPECT_TENSOR_EQ(eval1(t), vec<int64_t>({0, 3, 1, 4, 2, 5}, {3, 2}));
  ir::Output y = constant(iota<double>({2, 3, 4}));
  ir::Node *t3 = mustAdd("transpose", {y}, {{"perm", AttrList{1, 2, 0}}});
  EXPECT_EQ(t3->outputShape(0), Shape({3, 4, 2}));
  Tensor r = eval1(t3);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(r.data<double>()[(i * 4 + j) * 2 + k], k * 12 + i * 4 + j);
  ir::Node *s = mustAdd("transpose", {constant(strings({"a", "b", "c", "d"},
                                                       {2, 2}))});
  EXPECT_TENSOR_EQ(eval1(s), strings({"a", "c", "b", "d"}, {2, 2}));
  EXPECT_EQ(addError("transpose", {x}, {{"perm", AttrList{0}}}),
            "transpose expects a vector of size 2. But input(1) is a vector "
            "of size 1");
  EXPECT_EQ(addError("transpose", {x}, {{"perm", AttrList{0, 2}}}),
            "2 is out of range [0 .. 2)");
  EXPECT_HAS(addError("transpose", {x}, {{"perm", AttrList{1, 1}}}),
             "1 is duplicated");
  ir::Node *u = mustAdd("transpose", {fed(iota<int64_t>({2, 3}))},
                        {{"perm", AttrList{1, 0}}});
  EXPECT_EQ(u->outputShape(0), Shape({-1, -1}));
}

TEST_F(ArrayOpsTest, ShapeSizeRank) {
  ir::Output x = constant(iota<float>({2, 3}));
  ir::Node *s = mustAdd("shape", {x});
  EXPECT_EQ(s->outputType(0), DType::kI32);
  EXPECT_EQ(s->outputShape(0), Shape({2}));
  EXPECT_TENSOR_EQ(eval1(s), vec<int32_t>({2, 3}));
  s = mustAdd("shape", {x}, {{"out_type", DType::kI64}});
  EXPECT_TENSOR_EQ(eval1(s), vec<int64_t>({2, 3}));
  ir::Node *z = mustAdd("size", {x});
  EXPECT_EQ(z->outputShape(0), Shape::scalar());
  EXPECT_TENSOR_EQ(eval1(z), Tensor::scalar<int32_t>(6));
  ir::Node *r = mustAdd("rank", {constant(strings({"a"}))});
  EXPECT_TENSOR_EQ(eval1(r), Tensor::scalar<int32_t>(1));
  ir::Node *u = mustAdd("shape", {fed(iota<float>({4}))});
  EXPECT_EQ(u->outputShape(0), Shape({-1}));
}

TEST_F(ArrayOpsTest, FillZerosOnes) {
  ir::Node *f = mustAdd("fill", {constant(vec<int32_t>({2, 2})),
                                 constant(Tensor::scalar<float>(1.5f))});
  EXPECT_EQ(f->outputShape(0), Shape({2, 2}));
  EXPECT_TENSOR_EQ(eval1(f), vec<float>({1.5, 1.5, 1.5, 1.5}, {2, 2}));
  ir::Node *fs = mustAdd("fill", {constant(vec<int64_t>({2})),
                                  constant(Tensor::scalarString("x"))});
  EXPECT_TENSOR_EQ(eval1(fs), strings({"x", "x"}));
  EXPECT_EQ(addError("fill", {constant(vec<int32_t>({2})),
                              constant(vec<float>({1, 2}))}),
            "value must be a scalar, got shape [2]");
  EXPECT_EQ(addError("fill", {constant(vec<int32_t>({-1})),
                              constant(Tensor::scalar<float>(1))}),
            "Dimension -1 must be >= 0");
  ir::Node *fd = mustAdd("fill", {fed(vec<int32_t>({-1}), Shape({1})),
                                  constant(Tensor::scalar<float>(1))});
  EXPECT_EQ(fd->outputShape(0), Shape({-1}));
  EXPECT_EQ(evalError(fd), "Dimension -1 must be >= 0");

  ir::Node *z = mustAdd("zeros", {constant(vec<int32_t>({2, 1}))});
  EXPECT_EQ(z->outputType(0), DType::kF32);
  EXPECT_TENSOR_EQ(eval1(z), vec<float>({0, 0}, {2, 1}));
  ir::Node *o = mustAdd("ones", {constant(vec<int32_t>({3}))},
                        {{"dtype", DType::kI64}});
  EXPECT_TENSOR_EQ(eval1(o), vec<int64_t>({1, 1, 1}));
  ir::Node *ob = mustAdd("ones", {constant(vec<int32_t>({2}))},
                         {{"dtype", DType::kBool}});
  EXPECT_TENSOR_EQ(eval1(ob), vec<bool>({true, true}));
  ir::Node *zu = mustAdd("zeros", {fed(vec<int32_t>({2, 2}))});
  EXPECT_FALSE(zu->outputShape(0).hasRank());
  EXPECT_TENSOR_EQ(eval1(zu), vec<float>({0, 0, 0, 0}, {2, 2}));

  ir::Output x = constant(iota<int32_t>({2, 2}));
  ir::Node *zl = mustAdd("zeros_like", {x});
  EXPECT_EQ(zl->outputType(0), DType::kI32);
  EXPECT_TENSOR_EQ(eval1(zl), vec<int32_t>({0, 0, 0, 0}, {2, 2}));
  ir::Node *ol = mustAdd("ones_like", {x}, {{"dtype", DType::kF64}});
  EXPECT_TENSOR_EQ(eval1(ol), vec<double>({1, 1, 1, 1}, {2, 2}));
  ir::Node *zs = mustAdd("zeros_like", {constant(strings({"a"}))});
  EXPECT_TENSOR_EQ(eval1(zs), strings({""}));
  EXPECT_HAS(addError("ones_like", {constant(strings({"a"}))}),
             "does not support dtype string");
}

TEST_F(ArrayOpsTest, Range) {
  auto range = [&](Tensor a, Tensor b, Tensor c) {
    return mustAdd("range", {constant(a), constant(b), constant(c)});
  };
  ir::Node *r = range(Tensor::scalar<int32_t>(3), Tensor::scalar<int32_t>(18),
                      Tensor::scalar<int32_t>(3));
  EXPECT_EQ(r->outputShape(0), Shape({5}));
  EXPECT_TENSOR_EQ(eval1(r), vec<int32_t>({3, 6, 9, 12, 15}));
  r = range(Tensor::scalar<int64_t>(5), Tensor::scalar<int64_t>(0),
            Tensor::scalar<int64_t>(-2));
  EXPECT_TENSOR_EQ(eval1(r), vec<int64_t>({5, 3, 1}));
  r = range(Tensor::scalar<float>(0), Tensor::scalar<float>(1),
            Tensor::scalar<float>(0.25f));
  EXPECT_EQ(r->outputShape(0), Shape({4}));
  EXPECT_TENSOR_EQ(eval1(r), vec<float>({0, 0.25, 0.5, 0.75}));
  r = range(Tensor::scalar<double>(0), Tensor::scalar<double>(1),
            Tensor::scalar<double>(0.3));
  EXPECT_EQ(r->outputShape(0), Shape({4}));
  EXPECT_HAS(addError("range", {constant(Tensor::scalar<int32_t>(0)),
                                constant(Tensor::scalar<int32_t>(5)),
                                constant(Tensor::scalar<int32_t>(0))}),
             "Requires delta != 0");
  EXPECT_EQ(addError("range", {constant(Tensor::scalar<int32_t>(5)),
                               constant(Tensor::scalar<int32_t>(1)),
                               constant(Tensor::scalar<int32_t>(1))}),
            "Requires start <= limit when delta > 0: 5/1");
  EXPECT_EQ(addError("range", {constant(Tensor::scalar<int32_t>(1)),
                               constant(Tensor::scalar<int32_t>(5)),
                               constant(Tensor::scalar<int32_t>(-1))}),
            "Requires start >= limit when delta < 0: 1/5");
  EXPECT_HAS(addError("range", {constant(vec<int32_t>({1})),
                               constant(Tensor::scalar<int32_t>(5)),
                               constant(Tensor::scalar<int32_t>(1))}),
             "start must be a scalar");
  ir::Node *d = mustAdd("range", {constant(Tensor::scalar<int32_t>(0)),
                                  fed(Tensor::scalar<int32_t>(4)),
                                  fed(Tensor::scalar<int32_t>(0))});
  EXPECT_EQ(d->outputShape(0), Shape({-1}));
  EXPECT_EQ(evalError(d), "Requires delta != 0: 0");
}

TEST_F(ArrayOpsTest, OneHot) {
  ir::Output idx = constant(vec<int32_t>({0, 2, -1, 5}));
  ir::Node *o = mustAdd("one_hot", {idx}, {{"depth", int64_t{3}}});
  EXPECT_EQ(o->outputShape(0), Shape({4, 3}));
  EXPECT_TENSOR_EQ(eval1(o), vec<float>({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},
                                        {4, 3}));
  ir::Node *o0 = mustAdd("one_hot", {idx},
                         {{"depth", int64_t{3}},
                          {"axis", int64_t{0}},
                          {"on_value", 5.0},
                          {"off_value", -1.0},
                          {"dtype", DType::kI32}});
  EXPECT_EQ(o0->outputShape(0), Shape({3, 4}));
  EXPECT_TENSOR_EQ(eval1(o0), vec<int32_t>({5, -1, -1, -1, -1, -1, -1, -1, -1,
                                            5, -1, -1},
                                           {3, 4}));
  EXPECT_EQ(addError("one_hot", {idx}, {{"depth", int64_t{-1}}}),
            "depth must be non-negative, got: -1");
  EXPECT_EQ(addError("one_hot", {idx},
                     {{"depth", int64_t{2}}, {"axis", int64_t{2}}}),
            "Expected axis to be -1 or between [0, 2).  But received: 2");
}

TEST_F(ArrayOpsTest, Tile) {
  ir::Output x = constant(vec<int32_t>({1, 2, 3, 4}, {2, 2}));
  ir::Node *t = mustAdd("tile", {x}, {{"multiples", AttrList{1, 2}}});
  EXPECT_EQ(t->outputShape(0), Shape({2, 4}));
  EXPECT_TENSOR_EQ(eval1(t), vec<int32_t>({1, 2, 1, 2, 3, 4, 3, 4}, {2, 4}));
  t = mustAdd("tile", {x}, {{"multiples", AttrList{2, 1}}});
  EXPECT_TENSOR_EQ(eval1(t), vec<int32_t>({1, 2, 3, 4, 1, 2, 3, 4}, {4, 2}));
  ir::Node *s = mustAdd("tile", {constant(strings({"a", "b"}))},
                        {{"multiples", AttrList{2}}});
  EXPECT_TENSOR_EQ(eval1(s), strings({"a", "b", "a", "b"}));
  ir::Node *z = mustAdd("tile", {x}, {{"multiples", AttrList{0, 3}}});
  EXPECT_EQ(z->outputShape(0), Shape({0, 6}));
  EXPECT_EQ(eval1(z).numElements(), 0);
  EXPECT_EQ(addError("tile", {x}, {{"multiples", AttrList{2}}}),
            "Expected multiples argument to be a vector of length 2 but got "
            "length 1");
  EXPECT_EQ(addError("tile", {x}, {{"multiples", AttrList{1, -1}}}),
            "Expected multiples[1] >= 0, but got -1");
}

} // namespace
} // namespace sluice::testing
