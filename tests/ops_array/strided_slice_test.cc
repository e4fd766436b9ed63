// tests/ops_array/strided_slice_test.cc: strided_slice against numpy's
// indexing, as the frontend lowers x[i], x[a:b:c], x[..., i], x[None].
#include "tests/ops_array/op_test_util.h"

namespace sluice::testing {
namespace {

struct Masks {
  int64_t begin = 0, end = 0, ellipsis = 0, newAxis = 0, shrink = 0;
};

class StridedSliceTest : public OpTest {
protected:
  Expected<ir::Node *> slice(ir::Output x, std::vector<int32_t> b,
                             std::vector<int32_t> e, std::vector<int32_t> s,
                             Masks m = {}) {
    return add("strided_slice",
               {x, constant(vec(b)), constant(vec(e)), constant(vec(s))},
               {{"begin_mask", m.begin},
                {"end_mask", m.end},
                {"ellipsis_mask", m.ellipsis},
                {"new_axis_mask", m.newAxis},
                {"shrink_axis_mask", m.shrink}});
  }
  // Checks the static shape, then the value.
  void expectSlice(ir::Output x, std::vector<int32_t> b, std::vector<int32_t> e,
                   std::vector<int32_t> s, Masks m, const Tensor &want) {
    auto n = slice(x, b, e, s, m);
    ASSERT_TRUE(n.hasValue()) << n.status().message();
    EXPECT_EQ((*n)->outputShape(0), Shape(want.dims()));
    EXPECT_TENSOR_EQ(eval1(*n), want);
  }
  std::string sliceError(ir::Output x, std::vector<int32_t> b,
                         std::vector<int32_t> e, std::vector<int32_t> s,
                         Masks m = {}) {
    auto n = slice(x, b, e, s, m);
    return n.hasValue() ? "" : n.status().message();
  }
};

TEST_F(StridedSliceTest, NumpyIndexing) {
  ir::Output x = constant(iota<int32_t>({4, 3}));
  // x[1]
  expectSlice(x, {1}, {2}, {1}, {.shrink = 1}, vec<int32_t>({3, 4, 5}));
  // x[-1]
  expectSlice(x, {-1}, {0}, {1}, {.shrink = 1}, vec<int32_t>({9, 10, 11}));
  // x[1:3]
  expectSlice(x, {1}, {3}, {1}, {}, vec<int32_t>({3, 4, 5, 6, 7, 8}, {2, 3}));
  // x[::2]
  expectSlice(x, {0}, {0}, {2}, {.begin = 1, .end = 1},
              vec<int32_t>({0, 1, 2, 6, 7, 8}, {2, 3}));
  // x[:, 1]
  expectSlice(x, {0, 1}, {0, 2}, {1, 1}, {.begin = 1, .end = 1, .shrink = 2},
              vec<int32_t>({1, 4, 7, 10}));
  // x[::-1]
  expectSlice(x, {0}, {0}, {-1}, {.begin = 1, .end = 1},
              vec<int32_t>({9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2}, {4, 3}));
  // x[1, 2:]
  expectSlice(x, {1, 2}, {2, 0}, {1, 1}, {.end = 2, .shrink = 1},
              vec<int32_t>({5}));
  // x[1, 2]
  expectSlice(x, {1, 2}, {2, 3}, {1, 1}, {.shrink = 3},
              Tensor::scalar<int32_t>(5));
  // x[::-1, ::-2]
  expectSlice(x, {0, 0}, {0, 0}, {-1, -2}, {.begin = 3, .end = 3},
              vec<int32_t>({11, 9, 8, 6, 5, 3, 2, 0}, {4, 2}));
  // x[None, 1]
  expectSlice(x, {0, 1}, {0, 2}, {1, 1}, {.newAxis = 1, .shrink = 2},
              vec<int32_t>({3, 4, 5}, {1, 3}));
  // x[:, None]
  expectSlice(x, {0, 0}, {0, 0}, {1, 1}, {.begin = 1, .end = 1, .newAxis = 2},
              iota<int32_t>({4, 1, 3}));
}

TEST_F(StridedSliceTest, VectorBoundsClampLikeNumpy) {
  ir::Output v = constant(iota<int64_t>({5}));
  // v[-3:-1]
  expectSlice(v, {-3}, {-1}, {1}, {}, vec<int64_t>({2, 3}));
  // v[10:20], v[3:1]
  expectSlice(v, {10}, {20}, {1}, {}, Tensor(DType::kI64, {0}));
  expectSlice(v, {3}, {1}, {1}, {}, Tensor(DType::kI64, {0}));
  // v[::-2], v[-1:0:-1], v[3::-1], v[:-10:-1]
  expectSlice(v, {0}, {0}, {-2}, {.begin = 1, .end = 1},
              vec<int64_t>({4, 2, 0}));
  expectSlice(v, {-1}, {0}, {-1}, {}, vec<int64_t>({4, 3, 2, 1}));
  expectSlice(v, {3}, {0}, {-1}, {.end = 1}, vec<int64_t>({3, 2, 1, 0}));
  expectSlice(v, {0}, {-10}, {-1}, {.begin = 1}, vec<int64_t>({4, 3, 2, 1, 0}));
  // v[1:4:2], v[-100:100]
  expectSlice(v, {1}, {4}, {2}, {}, vec<int64_t>({1, 3}));
  expectSlice(v, {-100}, {100}, {1}, {}, iota<int64_t>({5}));
}

TEST_F(StridedSliceTest, Ellipsis) {
  ir::Output x = constant(iota<float>({2, 3, 4}));
  // x[..., 1]
  expectSlice(x, {0, 1}, {0, 2}, {1, 1}, {.ellipsis = 1, .shrink = 2},
              vec<float>({1, 5, 9, 13, 17, 21}, {2, 3}));
  // x[1, ...]
  expectSlice(x, {1, 0}, {2, 0}, {1, 1}, {.ellipsis = 2, .shrink = 1},
              vec<float>({12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
                         {3, 4}));
  // x[..., None]
  expectSlice(x, {0, 0}, {0, 0}, {1, 1}, {.ellipsis = 1, .newAxis = 2},
              iota<float>({2, 3, 4, 1}));
  EXPECT_EQ(sliceError(x, {0, 0}, {0, 0}, {1, 1}, {.ellipsis = 3}),
            "Multiple ellipses in slice spec not allowed");
}

TEST_F(StridedSliceTest, StringsAndIdentity) {
  ir::Output s = constant(strings({"a", "b", "c"}));
  expectSlice(s, {1}, {0}, {1}, {.end = 1}, strings({"b", "c"}));
  expectSlice(s, {0}, {0}, {-1}, {.begin = 1, .end = 1},
              strings({"c", "b", "a"}));
  expectSlice(s, {0}, {0}, {1}, {.begin = 1, .end = 1}, strings({"a", "b", "c"}));
}

TEST_F(StridedSliceTest, Errors) {
  ir::Output x = constant(iota<int32_t>({4, 3}));
  EXPECT_EQ(sliceError(x, {4}, {5}, {1}, {.shrink = 1}),
            "slice index 4 of dimension 0 out of bounds.");
  EXPECT_EQ(sliceError(x, {-5}, {-4}, {1}, {.shrink = 1}),
            "slice index -1 of dimension 0 out of bounds.");
  EXPECT_EQ(sliceError(x, {0}, {1}, {0}), "strides[0] must be non-zero");
  EXPECT_EQ(sliceError(x, {1, 1, 1}, {2, 2, 2}, {1, 1, 1}),
            "Index out of range using input dim 2; input has only 2 dims");
  EXPECT_EQ(sliceError(x, {1}, {2, 2}, {1}),
            "Expected begin, end, and strides to be 1D equal size tensors, "
            "but got shapes [1], [2], and [1] instead.");
  EXPECT_EQ(sliceError(x, {1}, {2}, {-1}, {.shrink = 1}),
            "only stride 1 allowed on non-range indexing.");
  // The same error when the index is only known at run time.
  auto n = add("strided_slice",
               {x, fed(vec<int32_t>({4}), Shape({1})), constant(vec<int32_t>({5})),
                constant(vec<int32_t>({1}))},
               {{"shrink_axis_mask", int64_t{1}}});
  ASSERT_TRUE(n.hasValue());
  EXPECT_EQ((*n)->outputShape(0), Shape({3}));
  EXPECT_EQ(evalError(*n), "slice index 4 of dimension 0 out of bounds.");
}

TEST_F(StridedSliceTest, PartialStaticShapes) {
  ir::Output p = fed(iota<int32_t>({4, 3}), Shape({-1, 3}));
  // p[1] keeps the known dim; p[1:3] has an unknown first dim.
  auto a = slice(p, {1}, {2}, {1}, {.shrink = 1});
  EXPECT_EQ((*a)->outputShape(0), Shape({3}));
  EXPECT_TENSOR_EQ(eval1(*a), vec<int32_t>({3, 4, 5}));
  auto b = slice(p, {1, 0}, {3, 0}, {1, -1}, {.begin = 2, .end = 2});
  EXPECT_EQ((*b)->outputShape(0), Shape({-1, 3}));
  EXPECT_TENSOR_EQ(eval1(*b), vec<int32_t>({5, 4, 3, 8, 7, 6}, {2, 3}));
  // Unknown input rank: unknown output.
  auto u = slice(fed(iota<int32_t>({4})), {1}, {2}, {1});
  EXPECT_FALSE((*u)->outputShape(0).hasRank());
  // Known rank, unknown begin: shrunk dims still drop out.
  ir::Output x = constant(iota<int32_t>({4, 3}));
  auto d = add("strided_slice",
               {x, fed(vec<int32_t>({2, 0}), Shape({2})),
                fed(vec<int32_t>({3, 0}), Shape({2})),
                constant(vec<int32_t>({1, 1}))},
               {{"shrink_axis_mask", int64_t{1}}, {"end_mask", int64_t{2}}});
  ASSERT_TRUE(d.hasValue()) << d.status().message();
  EXPECT_EQ((*d)->outputShape(0), Shape({-1}));
  EXPECT_TENSOR_EQ(eval1(*d), vec<int32_t>({6, 7, 8}));
}

} // namespace
} // namespace sluice::testing
