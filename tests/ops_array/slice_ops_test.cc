// tests/ops_array/slice_ops_test.cc: stack, unstack, concat, split, slice
// and gather.
#include "tests/ops_array/op_test_util.h"

namespace sluice::testing {
namespace {

using AttrList = std::vector<int64_t>;
using SliceOpsTest = OpTest;

TEST_F(SliceOpsTest, Stack) {
  ir::Output a = constant(vec<float>({1, 2})), b = constant(vec<float>({3, 4}));
  ir::Node *s = mustAdd("stack", {a, b});
  EXPECT_EQ(s->attr<int64_t>("N"), 2);
  EXPECT_EQ(s->outputShape(0), Shape({2, 2}));
  EXPECT_TENSOR_EQ(eval1(s), vec<float>({1, 2, 3, 4}, {2, 2}));
  s = mustAdd("stack", {a, b}, {{"axis", int64_t{-1}}});
  EXPECT_TENSOR_EQ(eval1(s), vec<float>({1, 3, 2, 4}, {2, 2}));
  ir::Node *sc = mustAdd("stack", {constant(Tensor::scalar<int32_t>(1)),
                                   constant(Tensor::scalar<int32_t>(2))});
  EXPECT_EQ(sc->outputShape(0), Shape({2}));
  EXPECT_TENSOR_EQ(eval1(sc), vec<int32_t>({1, 2}));
  ir::Node *ss = mustAdd("stack", {constant(Tensor::scalarString("x")),
                                   constant(Tensor::scalarString("y"))});
  EXPECT_TENSOR_EQ(eval1(ss), strings({"x", "y"}));
  EXPECT_EQ(addError("stack", {a, constant(vec<float>({1, 2, 3}))}),
            "Shapes of all inputs must match: values[0].shape = [2] != "
            "values[1].shape = [3]");
  EXPECT_EQ(addError("stack", {a, b}, {{"axis", int64_t{2}}}),
            "axis = 2 not in [-2, 2)");
  EXPECT_HAS(addError("stack", {a, constant(vec<int32_t>({1, 2}))}),
             "does not match dtype f32");
  ir::Node *d = mustAdd("stack", {a, fed(vec<float>({1, 2, 3}))});
  EXPECT_EQ(d->outputShape(0), Shape({2, 2}));
  EXPECT_EQ(evalError(d), "Shapes of all inputs must match: values[0].shape = "
                          "[2] != values[1].shape = [3]");
}

TEST_F(SliceOpsTest, Unstack) {
  ir::Output x = constant(iota<int32_t>({2, 3}));
  ir::Node *u = mustAdd("unstack", {x});
  ASSERT_EQ(u->numOutputs(), 2);
  EXPECT_EQ(u->outputShape(1), Shape({3}));
  auto r = eval(u);
  ASSERT_TRUE(r.hasValue());
  EXPECT_TENSOR_EQ((*r)[0], vec<int32_t>({0, 1, 2}));
  EXPECT_TENSOR_EQ((*r)[1], vec<int32_t>({3, 4, 5}));
  u = mustAdd("unstack", {x}, {{"axis", int64_t{-1}}});
  ASSERT_EQ(u->numOutputs(), 3);
  r = eval(u);
  EXPECT_TENSOR_EQ((*r)[2], vec<int32_t>({2, 5}));
  ir::Node *s = mustAdd("unstack", {constant(strings({"a", "b"}))});
  r = eval(s);
  EXPECT_TENSOR_EQ((*r)[1], Tensor::scalarString("b"));
  auto err = add("unstack", {fed(iota<int32_t>({2}))});
  ASSERT_FALSE(err.hasValue());
  EXPECT_EQ(err.status().code(), Code::kValueError);
  EXPECT_EQ(err.status().message(), "Cannot infer num from shape <unknown>");
  EXPECT_EQ(addError("unstack", {x}, {{"axis", int64_t{2}}}),
            "axis = 2 not in [-2, 2)");
  EXPECT_EQ(addError("unstack", {x}, {{"num", int64_t{3}}}),
            "Input shape axis 0 must equal 3, got shape [2, 3]");
  ir::Node *d = mustAdd("unstack", {fed(iota<int32_t>({2, 3}))},
                        {{"num", int64_t{3}}});
  EXPECT_EQ(evalError(d), "Input shape axis 0 must equal 3, got shape [2, 3]");
}

TEST_F(SliceOpsTest, Concat) {
  ir::Output a = constant(iota<int32_t>({2, 2}));
  ir::Output b = constant(vec<int32_t>({9, 8}, {2, 1}));
  ir::Node *c = mustAdd("concat", {a, b}, {{"axis", int64_t{1}}});
  EXPECT_EQ(c->outputShape(0), Shape({2, 3}));
  EXPECT_TENSOR_EQ(eval1(c), vec<int32_t>({0, 1, 9, 2, 3, 8}, {2, 3}));
  c = mustAdd("concat", {a, a}, {{"axis", int64_t{-2}}});
  EXPECT_TENSOR_EQ(eval1(c), vec<int32_t>({0, 1, 2, 3, 0, 1, 2, 3}, {4, 2}));
  ir::Node *one = mustAdd("concat", {a}, {{"axis", int64_t{0}}});
  EXPECT_TENSOR_EQ(eval1(one), iota<int32_t>({2, 2}));
  ir::Node *s = mustAdd("concat", {constant(strings({"a"})),
                                   constant(strings({"b", "c"}))},
                        {{"axis", int64_t{0}}});
  EXPECT_TENSOR_EQ(eval1(s), strings({"a", "b", "c"}));
  EXPECT_EQ(addError("concat", {a, b}, {{"axis", int64_t{0}}}),
            "ConcatOp : Dimensions of inputs should match: shape[0] = [2, 2] "
            "vs. shape[1] = [2, 1]");
  EXPECT_EQ(addError("concat", {a, constant(vec<int32_t>({1}))},
                     {{"axis", int64_t{0}}}),
            "ConcatOp : Ranks of all input tensors should match: shape[0] = "
            "[2, 2] vs. shape[1] = [1]");
  EXPECT_EQ(addError("concat", {a, b}, {{"axis", int64_t{2}}}),
            "ConcatOp : Expected concatenating dimensions in the range [-2, "
            "2), but got 2");
  EXPECT_EQ(addError("concat", {constant(Tensor::scalar<int32_t>(1)),
                                constant(Tensor::scalar<int32_t>(2))},
                     {{"axis", int64_t{0}}}),
            "ConcatOp : Can't concatenate scalars (use tf.stack instead)");
  EXPECT_HAS(addError("concat", {a, b}), "needs attribute 'axis'");
  ir::Node *d = mustAdd("concat", {a, fed(iota<int32_t>({3, 2}))},
                        {{"axis", int64_t{1}}});
  EXPECT_EQ(d->outputShape(0), Shape({2, -1}));
  EXPECT_HAS(evalError(d), "ConcatOp : Dimensions of inputs should match");
}

TEST_F(SliceOpsTest, Split) {
  ir::Output x = constant(iota<float>({2, 6}));
  ir::Node *s = mustAdd("split", {x},
                        {{"num_split", int64_t{3}}, {"axis", int64_t{1}}});
  ASSERT_EQ(s->numOutputs(), 3);
  EXPECT_EQ(s->outputShape(0), Shape({2, 2}));
  auto r = eval(s);
  ASSERT_TRUE(r.hasValue());
  EXPECT_TENSOR_EQ((*r)[1], vec<float>({2, 3, 8, 9}, {2, 2}));
  ir::Node *v = mustAdd("split", {x},
                        {{"size_splits", AttrList{1, -1, 2}},
                         {"axis", int64_t{-1}}});
  ASSERT_EQ(v->numOutputs(), 3);
  EXPECT_EQ(v->outputShape(1), Shape({2, 3}));
  r = eval(v);
  EXPECT_TENSOR_EQ((*r)[0], vec<float>({0, 6}, {2, 1}));
  EXPECT_TENSOR_EQ((*r)[1], vec<float>({1, 2, 3, 7, 8, 9}, {2, 3}));
  EXPECT_TENSOR_EQ((*r)[2], vec<float>({4, 5, 10, 11}, {2, 2}));
  ir::Node *s0 = mustAdd("split", {constant(strings({"a", "b"}))},
                         {{"num_split", int64_t{2}}});
  r = eval(s0);
  EXPECT_TENSOR_EQ((*r)[1], strings({"b"}));
  EXPECT_EQ(addError("split", {x}, {{"num_split", int64_t{4}},
                                    {"axis", int64_t{1}}}),
            "Number of ways to split should evenly divide the split "
            "dimension, but got split_dim 6 and num_split 4");
  EXPECT_EQ(addError("split", {x}, {{"size_splits", AttrList{1, 2}},
                                    {"axis", int64_t{1}}}),
            "Determined shape must either match input shape along split_dim "
            "exactly if fully specified, or be less than the size of the "
            "input along split_dim if not fully specified.  Got: 3");
  EXPECT_EQ(addError("split", {x}, {{"size_splits", AttrList{-1, -1}}}),
            "There can only be one -1 in the input.");
  EXPECT_EQ(addError("split", {x}, {{"num_split", int64_t{2}},
                                    {"axis", int64_t{2}}}),
            "-input rank(-2) <= split_dim < input rank (2), but got 2");
  EXPECT_EQ(addError("split", {x}), "split needs num_or_size_splits");
  EXPECT_HAS(addError("split", {x}, {{"num_split", int64_t{0}}}),
             "must be at least 1");
  ir::Node *d = mustAdd("split", {fed(iota<float>({5}))},
                        {{"num_split", int64_t{2}}});
  EXPECT_FALSE(d->outputShape(0).hasRank());
  EXPECT_EQ(evalError(d), "Number of ways to split should evenly divide the "
                          "split dimension, but got split_dim 5 and "
                          "num_split 2");
}

TEST_F(SliceOpsTest, Slice) {
  ir::Output x = constant(iota<int32_t>({3, 4}));
  ir::Node *s = mustAdd("slice", {x, constant(vec<int32_t>({1, 1})),
                                  constant(vec<int32_t>({2, -1}))});
  EXPECT_EQ(s->outputShape(0), Shape({2, 3}));
  EXPECT_TENSOR_EQ(eval1(s), vec<int32_t>({5, 6, 7, 9, 10, 11}, {2, 3}));
  ir::Node *w = mustAdd("slice", {x, constant(vec<int64_t>({0, 0})),
                                  constant(vec<int64_t>({-1, -1}))});
  EXPECT_TENSOR_EQ(eval1(w), iota<int32_t>({3, 4}));
  EXPECT_EQ(addError("slice", {x, constant(vec<int32_t>({4, 0})),
                               constant(vec<int32_t>({1, 1}))}),
            "Expected begin[0] in [0, 3], but got 4");
  EXPECT_EQ(addError("slice", {x, constant(vec<int32_t>({1, 0})),
                               constant(vec<int32_t>({3, 1}))}),
            "Expected size[0] in [0, 2], but got 3");
  EXPECT_EQ(addError("slice", {x, constant(vec<int32_t>({1})),
                               constant(vec<int32_t>({3}))}),
            "Expected begin and size arguments to be 1-D tensors of size 2, "
            "but got shapes [1] and [1] instead.");
  ir::Node *d = mustAdd("slice", {x, fed(vec<int32_t>({2, 0})),
                                  constant(vec<int32_t>({2, 2}))});
  EXPECT_EQ(d->outputShape(0), Shape({2, 2}));
  EXPECT_EQ(evalError(d), "Expected size[0] in [0, 1], but got 2");
  ir::Node *ds = mustAdd("slice", {fed(strings({"a", "b", "c"})),
                                   constant(vec<int32_t>({1})),
                                   constant(vec<int32_t>({-1}))});
  EXPECT_EQ(ds->outputShape(0), Shape({-1}));
  EXPECT_TENSOR_EQ(eval1(ds), strings({"b", "c"}));
}

TEST_F(SliceOpsTest, Gather) {
  ir::Output p = constant(iota<float>({3, 2}));
  ir::Node *g0 = mustAdd("gather", {p, constant(vec<int32_t>({2, 0, 2}))});
  EXPECT_EQ(g0->outputShape(0), Shape({3, 2}));
  EXPECT_TENSOR_EQ(eval1(g0), vec<float>({4, 5, 0, 1, 4, 5}, {3, 2}));
  ir::Node *g1 = mustAdd("gather", {p, constant(vec<int64_t>({1, 1, 0, 1},
                                                             {2, 2}))},
                         {{"axis", int64_t{1}}});
  EXPECT_EQ(g1->outputShape(0), Shape({3, 2, 2}));
  EXPECT_TENSOR_EQ(eval1(g1), vec<float>({1, 1, 0, 1, 3, 3, 2, 3, 5, 5, 4, 5},
                                         {3, 2, 2}));
  ir::Node *gs = mustAdd("gather", {constant(strings({"a", "b", "c"})),
                                    constant(Tensor::scalar<int32_t>(1))});
  EXPECT_EQ(gs->outputShape(0), Shape::scalar());
  EXPECT_TENSOR_EQ(eval1(gs), Tensor::scalarString("b"));
  ir::Node *bad = mustAdd("gather", {p, constant(vec<int32_t>({0, 3}))});
  EXPECT_EQ(evalError(bad), "indices[1] = 3 is not in [0, 3)");
  ir::Node *bad2 = mustAdd("gather", {p, constant(vec<int32_t>({0, 0, -1, 0},
                                                               {2, 2}))});
  EXPECT_EQ(evalError(bad2), "indices[1,0] = -1 is not in [0, 3)");
  EXPECT_EQ(addError("gather", {p, constant(vec<int32_t>({0}))},
                     {{"axis", int64_t{2}}}),
            "Expected axis in the range [-2, 2), but got 2");
  EXPECT_EQ(addError("gather", {constant(Tensor::scalar<float>(1)),
                                constant(vec<int32_t>({0}))}),
            "params must be at least 1 dimensional");
}

} // namespace
} // namespace sluice::testing
