// tests/backend/row_ring_test.cc: the row ring behind fixed-shape queues:
// FIFO order across wrap-around and growth, front pushes, swap-removal,
// string rows, and whole-batch appends that wrap.
#include "backend/row_ring.h"

#include <gtest/gtest.h>

#include <deque>

namespace sluice::backend {
namespace {

using Tuple = RowRing::Tuple;

std::vector<ir::DType> types() { return {ir::DType::kI32, ir::DType::kString}; }
std::vector<ir::Shape> shapes() { return {ir::Shape({2}), ir::Shape::scalar()}; }

Tuple element(int v) {
  return {ir::Tensor::fromVector<int32_t>({v, -v}), ir::Tensor::scalarString("s" + std::to_string(v))};
}

Tuple batch(int first, int n) {
  ir::Tensor a(ir::DType::kI32, ir::Dims{n, 2}), s(ir::DType::kString, ir::Dims{n});
  for (int i = 0; i < n; ++i) {
    a.data<int32_t>()[2 * i] = first + i;
    a.data<int32_t>()[2 * i + 1] = -(first + i);
    s.strings()[i] = "s" + std::to_string(first + i);
  }
  return {a, s};
}

int valueAt(const RowRing &r, int64_t i) {
  Tuple e = r.element(i);
  EXPECT_EQ(e[0].dims(), (ir::Dims{2}));
  EXPECT_EQ(e[0].data<int32_t>()[1], -e[0].data<int32_t>()[0]);
  EXPECT_EQ(e[1].strings()[0], "s" + std::to_string(e[0].data<int32_t>()[0]));
  return e[0].data<int32_t>()[0];
}

TEST(RowRingTest, SupportsFixedPodAndStringShapesOnly) {
  EXPECT_TRUE(RowRing::supports(types(), shapes()));
  EXPECT_FALSE(RowRing::supports({ir::DType::kF32}, {ir::Shape({-1})}));
  EXPECT_FALSE(RowRing::supports({ir::DType::kF32}, {}));
  EXPECT_FALSE(RowRing::supports({ir::DType::kVariant}, {ir::Shape::scalar()}));
}

TEST(RowRingTest, FifoAcrossWrapAndGrowthMatchesADeque) {
  RowRing r(types(), shapes());
  std::deque<int> want;
  int next = 0;
  // Push and pop at different rates so the head moves around the ring
  // while it grows; every third round pushes a whole batch.
  for (int round = 0; round < 200; ++round) {
    if (round % 3 == 0) {
      r.pushRows(batch(next, 7), 0, 7);
      for (int i = 0; i < 7; ++i)
        want.push_back(next + i);
      next += 7;
    } else {
      r.pushBack(element(next), -1);
      want.push_back(next++);
    }
    for (int k = 0; k < (round % 4) && !want.empty(); ++k) {
      ASSERT_EQ(valueAt(r, 0), want.front());
      r.popFront();
      want.pop_front();
    }
    ASSERT_EQ(r.size(), static_cast<int64_t>(want.size()));
  }
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(valueAt(r, static_cast<int64_t>(i)), want[i]);
}

TEST(RowRingTest, FrontPushesAndBatchRows) {
  RowRing r(types(), shapes());
  r.pushRows(batch(10, 5), 1, 3); // 11, 12, 13
  r.pushFront(element(9), -1);
  r.pushFront(batch(0, 8), 7); // 7
  std::vector<int> got;
  for (int64_t i = 0; i < r.size(); ++i)
    got.push_back(valueAt(r, i));
  EXPECT_EQ(got, (std::vector<int>{7, 9, 11, 12, 13}));
  Tuple out = {ir::Tensor(ir::DType::kI32, ir::Dims{2, 2}),
               ir::Tensor(ir::DType::kString, ir::Dims{2})};
  r.copyTo(4, out, 0);
  r.copyTo(0, out, 1);
  EXPECT_EQ(out[0].data<int32_t>()[0], 13);
  EXPECT_EQ(out[0].data<int32_t>()[2], 7);
  EXPECT_EQ(out[1].strings()[1], "s7");
}

TEST(RowRingTest, SwapRemovalAndAssign) {
  RowRing r(types(), shapes());
  r.pushRows(batch(0, 4), 0, 4); // 0 1 2 3
  r.move(3, 1);                  // 0 3 2 3
  r.popBack();                   // 0 3 2
  r.assign(0, element(42), -1);  // 42 3 2
  RowRing other(types(), shapes());
  other.pushBackRowOf(r, 1);
  other.pushFrontRowOf(r, 0);
  EXPECT_EQ(valueAt(other, 0), 42);
  EXPECT_EQ(valueAt(other, 1), 3);
  std::vector<int> got;
  for (int64_t i = 0; i < r.size(); ++i)
    got.push_back(valueAt(r, i));
  EXPECT_EQ(got, (std::vector<int>{42, 3, 2}));
}

} // namespace
} // namespace sluice::backend
