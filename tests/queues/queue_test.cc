// tests/queues/queue_test.cc: the attempt model on FIFOQueue: blocking,
// ordering, partial batches, close, cancellation and the TF messages.
#include "tests/queues/queue_test_util.h"

namespace sluice::backend::testing {
namespace {

using ir::DType;
using ir::Shape;

std::shared_ptr<QueueBase> fifo(int64_t capacity = -1) {
  return make(spec("FIFOQueue", {DType::kI32}, {Shape::scalar()}, capacity));
}

int32_t value(const PendingPtr &p, int c = 0) { return p->tuple[c].scalarValue<int32_t>(); }

TEST(FIFOQueueTest, KeepsArrivalOrderAndSize) {
  auto q = fifo();
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(enqueue(*q, {i32(i)})->status.isOk());
  EXPECT_EQ(q->size(), 3);
  for (int i = 0; i < 3; ++i) {
    auto d = dequeue(*q);
    ASSERT_TRUE(d->isDone());
    EXPECT_EQ(value(d), i);
  }
  EXPECT_EQ(q->size(), 0);
}

TEST(FIFOQueueTest, EnqueueChecksArityTypesAndShapes) {
  auto q = make(spec("FIFOQueue", {DType::kI32, DType::kF32}, {Shape::scalar(), Shape({2})}));
  auto a = enqueue(*q, {i32(1)});
  EXPECT_EQ(a->status.message(), "Wrong number of components in tuple. Expected 2, got 1");
  auto t = enqueue(*q, {i32(1), ir::Tensor::fromVector<int32_t>({1, 2})});
  EXPECT_EQ(t->status.code(), Code::kInvalidArgument);
  EXPECT_EQ(t->status.message(), "Type mismatch in tuple component 1. Expected f32, got i32");
  auto s = enqueue(*q, {i32(1), ir::Tensor::fromVector<float>({1, 2, 3})});
  EXPECT_EQ(s->status.message(), "Shape mismatch in tuple component 1. Expected [2], got [3]");
  auto m = enqueueMany(*q, {ir::Tensor::fromVector<int32_t>({1, 2}),
                            ir::Tensor(DType::kF32, {2, 3})});
  EXPECT_EQ(m->status.message(), "Shape mismatch in tuple component 1. Expected [2,2], got [2,3]");
}

TEST(FIFOQueueTest, UnshapedEnqueueManyNeedsOneBatchSize) {
  auto q = make(spec("FIFOQueue", {DType::kI32, DType::kI32}));
  auto m = enqueueMany(*q, {ir::Tensor::fromVector<int32_t>({1, 2}),
                            ir::Tensor::fromVector<int32_t>({1, 2, 3})});
  EXPECT_NE(m->status.message().find("All input tensors must have the same size in the 0th dimension"),
            std::string::npos);
  auto d = dequeueMany(*q, 1);
  EXPECT_EQ(d->status.message(),
            "FIFOQueue's DequeueMany and DequeueUpTo require the components to have "
            "specified shapes.");
}

TEST(FIFOQueueTest, FullQueueBlocksEnqueue) {
  auto q = fifo(1);
  ASSERT_TRUE(enqueue(*q, {i32(1)})->isDone());
  auto second = enqueue(*q, {i32(2)});
  EXPECT_FALSE(second->isDone());
  EXPECT_EQ(value(dequeue(*q)), 1);
  ASSERT_TRUE(second->isDone());
  EXPECT_TRUE(second->status.isOk());
  EXPECT_EQ(value(dequeue(*q)), 2);
}

TEST(FIFOQueueTest, EmptyQueueBlocksDequeueAndClosedEmptyIsOutOfRange) {
  auto q = fifo();
  auto d = dequeue(*q);
  EXPECT_FALSE(d->isDone());
  ASSERT_TRUE(closeQueue(*q)->status.isOk());
  ASSERT_TRUE(d->isDone());
  EXPECT_EQ(d->status.code(), Code::kOutOfRange);
  EXPECT_EQ(d->status.message(),
            "FIFOQueue 'q' is closed and has insufficient elements (requested 1, current size 0)");
  auto e = enqueue(*q, {i32(1)});
  EXPECT_EQ(e->status.code(), Code::kCancelled);
  EXPECT_EQ(e->status.message(), "FIFOQueue 'q' is closed.");
}

TEST(FIFOQueueTest, CloseWaitsBehindPendingEnqueuesWhichSucceed) {
  auto q = fifo(1);
  enqueue(*q, {i32(1)});
  auto pending = enqueue(*q, {i32(2)});
  auto close = closeQueue(*q);
  EXPECT_FALSE(close->isDone());
  EXPECT_FALSE(q->isClosed());
  EXPECT_EQ(value(dequeue(*q)), 1);
  ASSERT_TRUE(pending->isDone());
  EXPECT_TRUE(pending->status.isOk());
  ASSERT_TRUE(close->isDone());
  EXPECT_TRUE(q->isClosed());
  EXPECT_EQ(value(dequeue(*q)), 2);
  auto again = closeQueue(*q);
  EXPECT_EQ(again->status.code(), Code::kCancelled);
  EXPECT_EQ(again->status.message(), "Queue 'q' is already closed.");
}

TEST(FIFOQueueTest, CancelPendingEnqueuesClosesAtOnce) {
  auto q = fifo(1);
  enqueue(*q, {i32(1)});
  auto pending = enqueue(*q, {i32(2)});
  auto close = closeQueue(*q, true);
  ASSERT_TRUE(close->isDone());
  EXPECT_TRUE(close->status.isOk());
  ASSERT_TRUE(pending->isDone());
  EXPECT_EQ(pending->status.code(), Code::kCancelled);
  EXPECT_EQ(pending->status.message(), "Enqueue operation was cancelled");
  EXPECT_EQ(value(dequeue(*q)), 1);
  EXPECT_EQ(dequeue(*q)->status.code(), Code::kOutOfRange);
  EXPECT_TRUE(closeQueue(*q, true)->status.isOk()); // never errors
}

TEST(FIFOQueueTest, DequeueManyOnClosedQueueKeepsElements) {
  auto q = make(spec("FIFOQueue", {DType::kI32}, {Shape::scalar()}, -1, "_1_q"));
  enqueue(*q, {i32(7)});
  closeQueue(*q);
  auto d = dequeueMany(*q, 2);
  EXPECT_EQ(d->status.code(), Code::kOutOfRange);
  EXPECT_EQ(d->status.message(), "FIFOQueue '_1_q' is closed and has insufficient elements "
                                 "(requested 2, current size 1)");
  EXPECT_EQ(q->size(), 1);
}

TEST(FIFOQueueTest, PartlyFilledBatchGivesElementsBackOnClose) {
  auto q = fifo();
  enqueue(*q, {i32(1)});
  enqueue(*q, {i32(2)});
  auto d = dequeueMany(*q, 3);
  EXPECT_FALSE(d->isDone());
  EXPECT_EQ(q->size(), 0); // reserved elements do not count
  closeQueue(*q);
  ASSERT_TRUE(d->isDone());
  EXPECT_EQ(d->status.message(), "FIFOQueue 'q' is closed and has insufficient elements "
                                 "(requested 1, current size 0)");
  EXPECT_EQ(q->size(), 2);
  EXPECT_EQ(value(dequeue(*q)), 1); // back at the front, in order
}

TEST(FIFOQueueTest, DequeueUpToAfterClose) {
  auto q = fifo();
  for (int i = 0; i < 3; ++i)
    enqueue(*q, {i32(i)});
  closeQueue(*q);
  auto a = dequeueMany(*q, 2, true);
  ASSERT_TRUE(a->status.isOk());
  EXPECT_TRUE(a->tuple[0].equals(ir::Tensor::fromVector<int32_t>({0, 1})));
  auto b = dequeueMany(*q, 2, true);
  EXPECT_TRUE(b->tuple[0].equals(ir::Tensor::fromVector<int32_t>({2})));
  auto c = dequeueMany(*q, 2, true);
  EXPECT_EQ(c->status.code(), Code::kOutOfRange);
}

TEST(FIFOQueueTest, PendingDequeueUpToReturnsWhatIsLeftOnClose) {
  auto q = fifo();
  enqueue(*q, {i32(5)});
  auto d = dequeueMany(*q, 3, true);
  EXPECT_FALSE(d->isDone());
  closeQueue(*q);
  ASSERT_TRUE(d->isDone());
  ASSERT_TRUE(d->status.isOk()) << d->status.toString();
  EXPECT_TRUE(d->tuple[0].equals(ir::Tensor::fromVector<int32_t>({5})));
}

TEST(FIFOQueueTest, LaterSmallRequestNeverOvertakes) {
  auto q = fifo();
  auto many = dequeueMany(*q, 2);
  auto one = dequeue(*q);
  enqueue(*q, {i32(1)});
  EXPECT_FALSE(many->isDone());
  EXPECT_FALSE(one->isDone());
  enqueue(*q, {i32(2)});
  ASSERT_TRUE(many->isDone());
  EXPECT_TRUE(many->tuple[0].equals(ir::Tensor::fromVector<int32_t>({1, 2})));
  EXPECT_FALSE(one->isDone());
  enqueue(*q, {i32(3)});
  EXPECT_EQ(value(one), 3);
}

TEST(FIFOQueueTest, EnqueueManyProgressesPartially) {
  auto q = fifo(2);
  auto e = enqueueMany(*q, {ir::Tensor::fromVector<int32_t>({1, 2, 3, 4, 5})});
  EXPECT_FALSE(e->isDone());
  EXPECT_EQ(q->size(), 2);
  auto d = dequeueMany(*q, 5);
  ASSERT_TRUE(e->isDone());
  ASSERT_TRUE(d->isDone());
  EXPECT_TRUE(d->tuple[0].equals(ir::Tensor::fromVector<int32_t>({1, 2, 3, 4, 5})));
}

TEST(FIFOQueueTest, ZeroSizedRequestsReturnAtOnceEvenClosed) {
  auto q = make(spec("FIFOQueue", {DType::kF32}, {Shape({2})}));
  closeQueue(*q);
  EXPECT_TRUE(enqueueMany(*q, {ir::Tensor(DType::kF32, {0, 2})})->status.isOk());
  auto d = dequeueMany(*q, 0);
  ASSERT_TRUE(d->status.isOk());
  EXPECT_EQ(d->tuple[0].dims(), (ir::Dims{0, 2}));
  auto neg = dequeueMany(*q, -1);
  EXPECT_EQ(neg->status.code(), Code::kInvalidArgument);
  EXPECT_NE(neg->status.message().find("requested -1 < 0 elements"), std::string::npos);
}

TEST(FIFOQueueTest, CancelledDequeueLeavesTheQueueUsable) {
  auto q = fifo();
  CancellationManager cm;
  auto d = dequeue(*q, &cm);
  cm.startCancel();
  ASSERT_TRUE(d->isDone());
  EXPECT_EQ(d->status.code(), Code::kCancelled);
  EXPECT_EQ(d->status.message(), "Dequeue operation was cancelled");
  enqueue(*q, {i32(4)});
  EXPECT_EQ(value(dequeue(*q)), 4);
  // Already cancelled: fails at once.
  auto late = dequeue(*q, &cm);
  EXPECT_EQ(late->status.code(), Code::kCancelled);
}

TEST(FIFOQueueTest, CancelledBatchGivesReservedElementsBack) {
  auto q = fifo();
  CancellationManager cm;
  enqueue(*q, {i32(1)});
  auto d = dequeueMany(*q, 3, false, &cm);
  auto behind = dequeue(*q);
  EXPECT_EQ(q->size(), 0);
  cm.startCancel();
  EXPECT_EQ(d->status.code(), Code::kCancelled);
  // The element goes back and the request behind it gets it.
  ASSERT_TRUE(behind->isDone());
  EXPECT_EQ(value(behind), 1);
}

TEST(FIFOQueueTest, CancelledEnqueue) {
  auto q = fifo(1);
  CancellationManager cm;
  enqueue(*q, {i32(1)});
  auto e = enqueue(*q, {i32(2)}, &cm);
  cm.startCancel();
  EXPECT_EQ(e->status.message(), "Enqueue operation was cancelled");
  EXPECT_EQ(q->size(), 1);
  EXPECT_TRUE(enqueue(*q, {i32(3)}, nullptr)->isDone() == false);
}

} // namespace
} // namespace sluice::backend::testing
