// tests/queues/queue_types_test.cc: RandomShuffleQueue, PaddingFIFOQueue,
// PriorityQueue, and opening shared queues.
#include <algorithm>

#include "backend/resource_mgr.h"
#include "tests/queues/queue_test_util.h"

namespace sluice::backend::testing {
namespace {

using ir::DType;
using ir::Shape;

QueueSpec shuffleSpec(int64_t capacity, int64_t minAfter, int64_t seed = 0, int64_t seed2 = 0) {
  QueueSpec s = spec("RandomShuffleQueue", {DType::kI32}, {Shape::scalar()}, capacity);
  s.minAfterDequeue = minAfter;
  s.seed = seed;
  s.seed2 = seed2;
  return s;
}

TEST(RandomShuffleQueueTest, KeepsMinAfterDequeueWhileOpen) {
  auto q = make(shuffleSpec(10, 2, 1, 2));
  enqueue(*q, {i32(1)});
  enqueue(*q, {i32(2)});
  auto d = dequeue(*q);
  EXPECT_FALSE(d->isDone());
  enqueue(*q, {i32(3)});
  ASSERT_TRUE(d->isDone());
  EXPECT_EQ(q->size(), 2);
  // dequeue_many takes size - min_after_dequeue at a time.
  auto m = dequeueMany(*q, 2);
  EXPECT_FALSE(m->isDone());
  closeQueue(*q); // the floor no longer applies
  ASSERT_TRUE(m->isDone());
  ASSERT_TRUE(m->status.isOk()) << m->status.toString();
  std::vector<int32_t> got{d->tuple[0].scalarValue<int32_t>(), m->tuple[0].data<int32_t>()[0],
                           m->tuple[0].data<int32_t>()[1]};
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<int32_t>{1, 2, 3}));
}

TEST(RandomShuffleQueueTest, SeededOrderIsRepeatableAndShuffled) {
  auto order = [](int64_t seed) {
    auto q = make(shuffleSpec(100, 0, seed, 7));
    enqueueMany(*q, {ir::Tensor::fromVector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})});
    auto d = dequeueMany(*q, 10);
    const int32_t *v = d->tuple[0].data<int32_t>();
    return std::vector<int32_t>(v, v + 10);
  };
  auto a = order(42), b = order(42);
  EXPECT_EQ(a, b);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_NE(a, sorted);
}

TEST(RandomShuffleQueueTest, KernelChecks) {
  auto bad = makeQueue(shuffleSpec(10, 10));
  ASSERT_FALSE(bad.hasValue());
  EXPECT_NE(bad.status().message().find("must be < capacity"), std::string::npos);
  auto neg = makeQueue(shuffleSpec(10, -1));
  EXPECT_NE(neg.status().message().find("must be >= 0"), std::string::npos);
  auto q = make(shuffleSpec(10, 0));
  EXPECT_EQ(dequeue(*q)->isDone(), false);
  closeQueue(*q);
  auto d = dequeue(*q);
  EXPECT_EQ(d->status.message(), "RandomShuffleQueue 'q' is closed and has insufficient "
                                 "elements (requested 1, current size 0)");
}

TEST(PaddingFIFOQueueTest, PadsToTheBatchMaximum) {
  auto q = make(spec("PaddingFIFOQueue", {DType::kI32, DType::kString},
                     {Shape({-1}), Shape::scalar()}));
  enqueue(*q, {ir::Tensor::fromVector<int32_t>({1}), ir::Tensor::scalarString("a")});
  enqueue(*q, {ir::Tensor::fromVector<int32_t>({1, 2, 3}), ir::Tensor::scalarString("b")});
  enqueue(*q, {ir::Tensor(DType::kI32, {0}), ir::Tensor::scalarString("c")});
  auto first = dequeue(*q);
  EXPECT_TRUE(first->tuple[0].equals(ir::Tensor::fromVector<int32_t>({1}))); // unpadded
  enqueue(*q, {ir::Tensor::fromVector<int32_t>({4, 5}), ir::Tensor::scalarString("d")});
  auto d = dequeueMany(*q, 3);
  ASSERT_TRUE(d->status.isOk()) << d->status.toString();
  EXPECT_TRUE(d->tuple[0].equals(
      ir::Tensor::fromVector<int32_t>({1, 2, 3, 0, 0, 0, 4, 5, 0}, {3, 3})));
  EXPECT_EQ(d->tuple[1].strings()[2], "d");
  auto z = dequeueMany(*q, 0);
  EXPECT_EQ(z->tuple[0].dims(), (ir::Dims{0, 0}));
}

TEST(PaddingFIFOQueueTest, PadsStringsAndMatrices) {
  auto q = make(spec("PaddingFIFOQueue", {DType::kString}, {Shape({-1, 2})}));
  ir::Tensor a(DType::kString, {1, 2});
  a.strings()[0] = "x";
  a.strings()[1] = "y";
  ir::Tensor b(DType::kString, {2, 2});
  for (int i = 0; i < 4; ++i)
    b.strings()[i] = std::string(1, char('a' + i));
  enqueue(*q, {a});
  enqueue(*q, {b});
  auto d = dequeueMany(*q, 2);
  ASSERT_TRUE(d->status.isOk());
  EXPECT_EQ(d->tuple[0].dims(), (ir::Dims{2, 2, 2}));
  const std::string *s = d->tuple[0].strings();
  EXPECT_EQ(std::vector<std::string>(s, s + 8),
            (std::vector<std::string>{"x", "y", "", "", "a", "b", "c", "d"}));
  auto bad = enqueue(*q, {ir::Tensor(DType::kString, {3, 4})});
  EXPECT_EQ(bad->status.message(), "Shape mismatch in tuple component 0. Expected [?,2], got [3,4]");
  auto noShapes = makeQueue(spec("PaddingFIFOQueue", {DType::kI32}));
  EXPECT_EQ(noShapes.status().message(),
            "When providing partial shapes, a list of shapes must be provided.");
}

QueueSpec prioritySpec(bool shapes = true) {
  return spec("PriorityQueue", {DType::kI64, DType::kString},
              shapes ? std::vector<Shape>{Shape::scalar(), Shape::scalar()} : std::vector<Shape>{});
}

TEST(PriorityQueueTest, SmallestPriorityFirst) {
  auto q = make(prioritySpec());
  for (auto [p, s] : std::vector<std::pair<int64_t, const char *>>{{5, "e"}, {1, "a"}, {3, "c"}, {1, "a2"}})
    ASSERT_TRUE(enqueue(*q, {i64(p), ir::Tensor::scalarString(s)})->status.isOk());
  auto d = dequeue(*q);
  EXPECT_EQ(d->tuple[0].scalarValue<int64_t>(), 1);
  auto m = dequeueMany(*q, 2);
  EXPECT_TRUE(m->tuple[0].equals(ir::Tensor::fromVector<int64_t>({1, 3})));
  EXPECT_EQ(m->tuple[1].strings()[1], "c");
}

TEST(PriorityQueueTest, DequeueManyWaitsForAllAtOnce) {
  auto q = make(prioritySpec());
  auto m = dequeueMany(*q, 2);
  enqueue(*q, {i64(9), ir::Tensor::scalarString("z")});
  EXPECT_EQ(q->size(), 1); // nothing reserved
  EXPECT_FALSE(m->isDone());
  enqueue(*q, {i64(2), ir::Tensor::scalarString("b")});
  ASSERT_TRUE(m->isDone());
  EXPECT_TRUE(m->tuple[0].equals(ir::Tensor::fromVector<int64_t>({2, 9})));
}

TEST(PriorityQueueTest, DequeueUpToOnClosedQueueReturnsTheRest) {
  auto q = make(prioritySpec());
  enqueue(*q, {i64(4), ir::Tensor::scalarString("d")});
  enqueue(*q, {i64(2), ir::Tensor::scalarString("b")});
  auto m = dequeueMany(*q, 3, true);
  EXPECT_FALSE(m->isDone());
  closeQueue(*q);
  ASSERT_TRUE(m->isDone());
  ASSERT_TRUE(m->status.isOk()) << m->status.toString();
  EXPECT_TRUE(m->tuple[0].equals(ir::Tensor::fromVector<int64_t>({2, 4})));
  EXPECT_EQ(dequeueMany(*q, 3, true)->status.code(), Code::kOutOfRange);
}

TEST(PriorityQueueTest, Messages) {
  auto q = make(prioritySpec());
  auto bad = enqueue(*q, {ir::Tensor::fromVector<int64_t>({1, 2}), ir::Tensor::scalarString("x")});
  EXPECT_EQ(bad->status.message(), "Shape mismatch in tuple component 0. Expected [], got [2]");
  auto unshaped = make(prioritySpec(false));
  EXPECT_EQ(dequeueMany(*unshaped, 1)->status.message(),
            "PriorityQueue's DequeueMany requires the components to have specified shapes.");
  auto scalarOnly = enqueue(*unshaped, {ir::Tensor::fromVector<int64_t>({1, 2}),
                                        ir::Tensor::scalarString("x")});
  EXPECT_NE(scalarOnly->status.message().find("priority element to be a scalar"), std::string::npos);
  closeQueue(*q);
  EXPECT_EQ(enqueue(*q, {i64(1), ir::Tensor::scalarString("x")})->status.message(),
            "PriorityQueue 'q' is closed.");
}

TEST(SharedQueueTest, SharedAcrossResourceManagersWhileHeld) {
  ResourceMgr a, b;
  QueueSpec s = spec("FIFOQueue", {DType::kI32}, {Shape::scalar()}, 10);
  auto ka = openQueue(a, "", "shared_q_test", "q1", s);
  auto kb = openQueue(b, "", "shared_q_test", "q2", s);
  ASSERT_TRUE(ka.hasValue() && kb.hasValue());
  auto qa = a.lookup<QueueInterface>("", "shared_q_test");
  auto qb = b.lookup<QueueInterface>("", "shared_q_test");
  EXPECT_EQ(qa.get(), qb.get());
  EXPECT_EQ(qa->name(), "shared_q_test");

  QueueSpec other = s;
  other.capacity = 5;
  ResourceMgr c;
  auto kc = openQueue(c, "", "shared_q_test", "q3", other);
  ASSERT_FALSE(kc.hasValue());
  EXPECT_EQ(kc.status().code(), Code::kInvalidArgument);
  EXPECT_NE(kc.status().message().find("capacity"), std::string::npos);
  other = s;
  other.types = {DType::kI64};
  ResourceMgr d;
  EXPECT_NE(openQueue(d, "", "shared_q_test", "q4", other).status().message().find("component types"),
            std::string::npos);
  other = s;
  other.shapes = {};
  ResourceMgr e;
  EXPECT_NE(openQueue(e, "", "shared_q_test", "q5", other).status().message().find("component shapes"),
            std::string::npos);
}

TEST(SharedQueueTest, PrivateQueuesAreNamedByUidAndNode) {
  ResourceMgr a;
  auto k = openQueue(a, "", "", "scope/q", spec("FIFOQueue", {DType::kI32}));
  ASSERT_TRUE(k.hasValue());
  EXPECT_EQ(*k, "#private:scope/q");
  auto q = a.lookup<QueueInterface>("#private", "scope/q");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->name().front(), '_');
  EXPECT_NE(q->name().find("_scope/q"), std::string::npos);
  auto again = openQueue(a, "", "", "scope/q", spec("FIFOQueue", {DType::kI32}));
  EXPECT_EQ(a.lookup<QueueInterface>("#private", "scope/q").get(), q.get());
}

} // namespace
} // namespace sluice::backend::testing
