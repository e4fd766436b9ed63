// tests/queues/queue_deterministic_test.cc: RandomShuffleQueue in a
// deterministic session: the k-th dequeue draws from the first
// min_after_dequeue + k + 1 elements enqueued, so what comes out depends
// on the seeds and the enqueue order only, never on timing.
#include <algorithm>
#include <random>
#include <thread>

#include "backend/resource_mgr.h"
#include "tests/queues/queue_test_util.h"

namespace sluice::backend::testing {
namespace {

using ir::DType;
using ir::Shape;

constexpr int kElements = 60;

QueueSpec detSpec(int64_t capacity, int64_t minAfter, int64_t seed = 11, int64_t seed2 = 5) {
  QueueSpec s = spec("RandomShuffleQueue", {DType::kI32}, {Shape::scalar()}, capacity);
  s.minAfterDequeue = minAfter;
  s.seed = seed;
  s.seed2 = seed2;
  s.deterministic = true;
  return s;
}

std::vector<int32_t> values(const Tuple &t) {
  const int32_t *v = t[0].data<int32_t>();
  return std::vector<int32_t>(v, v + t[0].numElements());
}

/// Drives one queue single-threaded: `schedule` picks, step by step,
/// whether to issue the next enqueue or the next dequeue (of `batch`
/// elements; attempts wait asynchronously), then the queue is closed and
/// every dequeue's elements come back in issue order.
std::vector<int32_t> drive(QueueSpec s, uint32_t schedule, int64_t batch = 1,
                           bool upTo = false) {
  auto q = make(s);
  std::mt19937 rng(schedule);
  std::vector<PendingPtr> enqs, deqs;
  int next = 0;
  int64_t requested = 0;
  while (next < kElements || requested < kElements) {
    bool enq = next < kElements && (requested >= kElements || rng() % 2 == 0);
    if (enq) {
      enqs.push_back(enqueue(*q, {i32(next++)}));
    } else {
      deqs.push_back(batch == 1 ? dequeue(*q) : dequeueMany(*q, batch, upTo));
      requested += batch;
    }
  }
  closeQueue(*q);
  std::vector<int32_t> out;
  for (auto &e : enqs)
    EXPECT_TRUE(e->wait() && e->status.isOk()) << e->status.toString();
  for (auto &d : deqs) {
    EXPECT_TRUE(d->wait());
    if (!d->status.isOk())
      break; // a short final dequeue_many: out_of_range
    auto v = values(d->tuple);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

TEST(DeterministicShuffleQueueTest, SameOrderWhateverTheInterleaving) {
  QueueSpec s = detSpec(8, 5);
  std::vector<int32_t> want = drive(s, 0);
  ASSERT_EQ(want.size(), size_t(kElements));
  for (uint32_t schedule = 1; schedule < 20; ++schedule)
    EXPECT_EQ(drive(s, schedule), want) << "schedule " << schedule;
  // A bigger capacity lets enqueues run further ahead: same draws.
  EXPECT_EQ(drive(detSpec(50, 5), 3), want);
  EXPECT_EQ(drive(detSpec(-1, 5), 4), want);
}

TEST(DeterministicShuffleQueueTest, DrawsFromTheLogicalWindowOnly) {
  for (int64_t minAfter : {0, 1, 5, 20}) {
    std::vector<int32_t> got = drive(detSpec(30, minAfter), 7);
    ASSERT_EQ(got.size(), size_t(kElements));
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_LT(got[k], minAfter + int64_t(k) + 1) << "min_after_dequeue " << minAfter;
    std::vector<int32_t> sorted = got;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < kElements; ++i)
      ASSERT_EQ(sorted[i], i);
    if (minAfter == 0)
      EXPECT_EQ(got, sorted); // a window of one: FIFO
    else
      EXPECT_NE(got, sorted);
  }
}

TEST(DeterministicShuffleQueueTest, SeedsChooseTheOrder) {
  EXPECT_EQ(drive(detSpec(8, 5, 1, 2), 0), drive(detSpec(8, 5, 1, 2), 9));
  EXPECT_NE(drive(detSpec(8, 5, 1, 2), 0), drive(detSpec(8, 5, 1, 3), 0));
}

TEST(DeterministicShuffleQueueTest, DequeueManyIsThatManyDraws) {
  std::vector<int32_t> single = drive(detSpec(8, 5), 0);
  // 60 = 12 * 5: every batch is full.
  EXPECT_EQ(drive(detSpec(8, 5), 1, 5), single);
  EXPECT_EQ(drive(detSpec(8, 5), 2, 5), single);
  // dequeue_up_to(7): the last batch is the 4 left after the close.
  EXPECT_EQ(drive(detSpec(8, 5), 3, 7, true), single);
  EXPECT_EQ(drive(detSpec(8, 5), 4, 7, true), single);
  // dequeue_many(7) drops those 4 (out_of_range) but agrees before.
  std::vector<int32_t> many = drive(detSpec(8, 5), 5, 7);
  ASSERT_EQ(many.size(), size_t(56));
  EXPECT_TRUE(std::equal(many.begin(), many.end(), single.begin()));
}

/// Enqueues 0..n-1, closes, then drains with dequeue: the reference order.
std::vector<int32_t> drainAfter(std::shared_ptr<QueueBase> q) {
  closeQueue(*q);
  std::vector<int32_t> out;
  for (;;) {
    auto d = dequeue(*q);
    EXPECT_TRUE(d->wait());
    if (!d->status.isOk())
      return out;
    out.push_back(d->tuple[0].scalarValue<int32_t>());
  }
}

TEST(DeterministicShuffleQueueTest, CancelledDequeueManyLeavesNoTrace) {
  auto ref = make(detSpec(20, 2));
  for (int i = 0; i < 9; ++i)
    enqueue(*ref, {i32(i)});
  std::vector<int32_t> want = drainAfter(ref);

  auto q = make(detSpec(20, 2));
  for (int i = 0; i < 9; ++i)
    enqueue(*q, {i32(i)});
  CancellationManager cm;
  auto m = dequeueMany(*q, 12, false, &cm); // reserves 9 - 2 = 7, waits
  EXPECT_FALSE(m->isDone());
  EXPECT_EQ(q->size(), 2);
  cm.startCancel();
  ASSERT_TRUE(m->wait());
  EXPECT_EQ(m->status.code(), Code::kCancelled);
  EXPECT_EQ(q->size(), 9);
  EXPECT_EQ(drainAfter(q), want);
}

TEST(DeterministicShuffleQueueTest, CloseDuringAPartialBatch) {
  auto ref = make(detSpec(20, 2));
  for (int i = 0; i < 9; ++i)
    enqueue(*ref, {i32(i)});
  std::vector<int32_t> want = drainAfter(ref);

  // dequeue_up_to: reserved before the close or not, the same batch.
  auto q = make(detSpec(20, 2));
  for (int i = 0; i < 9; ++i)
    enqueue(*q, {i32(i)});
  auto m = dequeueMany(*q, 12, /*upTo=*/true);
  EXPECT_FALSE(m->isDone());
  closeQueue(*q);
  ASSERT_TRUE(m->wait());
  ASSERT_TRUE(m->status.isOk()) << m->status.toString();
  EXPECT_EQ(values(m->tuple), want);

  // dequeue_many fails out_of_range and gives back the queue as it was.
  auto r = make(detSpec(20, 2));
  for (int i = 0; i < 9; ++i)
    enqueue(*r, {i32(i)});
  auto f = dequeueMany(*r, 12);
  closeQueue(*r);
  ASSERT_TRUE(f->wait());
  EXPECT_EQ(f->status.code(), Code::kOutOfRange);
  EXPECT_EQ(drainAfter(r), want);
}

TEST(DeterministicShuffleQueueTest, SameOrderAcrossThreads) {
  // A producer and a consumer thread with random pauses: the timing
  // differs on every run, the order may not.
  auto run = [](uint32_t seed) {
    auto q = make(detSpec(6, 4));
    std::vector<int32_t> got;
    std::thread producer([&] {
      std::mt19937 rng(seed);
      for (int i = 0; i < kElements; ++i) {
        if (rng() % 4 == 0)
          std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
        auto e = enqueue(*q, {i32(i)});
        EXPECT_TRUE(e->wait() && e->status.isOk());
      }
      closeQueue(*q);
    });
    std::mt19937 rng(seed + 1);
    for (;;) {
      if (rng() % 4 == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
      auto d = rng() % 2 ? dequeue(*q) : dequeueMany(*q, 3, true);
      EXPECT_TRUE(d->wait());
      if (!d->status.isOk())
        break;
      auto v = values(d->tuple);
      got.insert(got.end(), v.begin(), v.end());
    }
    producer.join();
    return got;
  };
  std::vector<int32_t> want = run(1);
  ASSERT_EQ(want.size(), size_t(kElements));
  for (uint32_t seed = 2; seed < 8; ++seed)
    EXPECT_EQ(run(seed), want) << "seed " << seed;
}

TEST(DeterministicShuffleQueueTest, NeedsSeeds) {
  auto q = makeQueue(detSpec(10, 2, 0, 0));
  ASSERT_FALSE(q.hasValue());
  EXPECT_EQ(q.status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(q.status().message(), "RandomShuffleQueue 'q' has no seed and the session is "
                                  "deterministic: call set_random_seed(...) or pass seed:");
  QueueSpec plain = detSpec(10, 2, 0, 0);
  plain.deterministic = false;
  EXPECT_TRUE(makeQueue(plain).hasValue());
}

TEST(DeterministicShuffleQueueTest, SharedQueueKeepsItsMode) {
  ResourceMgr a, b;
  QueueSpec s = detSpec(10, 2);
  ASSERT_TRUE(openQueue(a, "", "shared_det_q", "q1", s).hasValue());
  QueueSpec other = s;
  other.deterministic = false;
  auto k = openQueue(b, "", "shared_det_q", "q2", other);
  ASSERT_FALSE(k.hasValue());
  EXPECT_EQ(k.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(k.status().message(),
            "Shared queue 'shared_det_q' was created by a session with deterministic: true "
            "but this session has deterministic: false");
}

} // namespace
} // namespace sluice::backend::testing
