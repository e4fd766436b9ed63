// tests/queues/queue_stress_test.cc: many producers and consumers with
// close and cancellation racing them; by count and checksum nothing is
// lost or duplicated.
#include <atomic>
#include <random>
#include <thread>

#include "tests/queues/queue_test_util.h"

namespace sluice::backend::testing {
namespace {

using ir::DType;
using ir::Shape;

constexpr int kProducers = 6, kConsumers = 6, kPerProducer = 2000;

struct Tally {
  std::mutex mu;
  std::vector<int> seen = std::vector<int>(kProducers * kPerProducer, 0);
  int64_t count = 0, sum = 0;
  void add(const ir::Tensor &batch) {
    std::lock_guard<std::mutex> l(mu);
    for (int64_t i = 0; i < batch.numElements(); ++i) {
      int32_t v = batch.data<int32_t>()[i];
      ++seen[v];
      ++count;
      sum += v;
    }
  }
};

// Consumers mix dequeue, dequeue_many and dequeue_up_to until the queue
// is closed and drained; each may have its attempt cancelled and retries.
void consume(QueueInterface &q, Tally &tally, int seed, bool cancelSome) {
  std::mt19937 rng(seed);
  for (;;) {
    CancellationManager cm;
    int kind = rng() % 3;
    PendingPtr p = kind == 0 ? dequeue(q, &cm) : dequeueMany(q, 1 + rng() % 7, kind == 2, &cm);
    if (cancelSome && rng() % 8 == 0) {
      std::this_thread::yield();
      cm.startCancel();
    }
    ASSERT_TRUE(p->wait(20000)) << "consumer hung";
    if (p->status.code() == Code::kCancelled)
      continue;
    if (p->status.code() == Code::kOutOfRange) {
      if (kind == 1 && q.size() > 0)
        continue; // dequeue_many needs more than is left: drain with others
      if (q.size() == 0)
        return;
      continue;
    }
    ASSERT_TRUE(p->status.isOk()) << p->status.toString();
    tally.add(p->tuple[0]);
  }
}

void runStress(QueueSpec s, bool cancelSome, bool cancelClose) {
  auto q = make(s);
  Tally tally;
  std::atomic<int64_t> produced{0}, producedSum{0};
  // Per value: 0 never offered, 1 enqueued, 2 offered by an enqueue_many
  // that failed (a cancelled enqueue_many may have inserted some rows).
  std::vector<std::atomic<int>> state(kProducers * kPerProducer);
  std::vector<std::thread> producers, consumers;
  for (int c = 0; c < kConsumers; ++c)
    consumers.emplace_back([&, c] { consume(*q, tally, 100 + c, cancelSome); });
  for (int p = 0; p < kProducers; ++p)
    producers.emplace_back([&, p] {
      std::mt19937 rng(p);
      int i = 0;
      while (i < kPerProducer) {
        int rows = std::min<int>(1 + rng() % 5, kPerProducer - i);
        bool many = rng() % 2 == 0;
        if (!many)
          rows = 1;
        std::vector<int32_t> vals;
        for (int r = 0; r < rows; ++r)
          vals.push_back(p * kPerProducer + i + r);
        CancellationManager cm;
        PendingPtr e = many ? enqueueMany(*q, {ir::Tensor::fromVector<int32_t>(vals)}, &cm)
                            : enqueue(*q, {ir::Tensor::scalar<int32_t>(vals[0])}, &cm);
        // Only single enqueues are cancelled: a cancelled enqueue_many may
        // have inserted some rows, which this count could not know.
        if (cancelSome && !many && rng() % 8 == 0)
          cm.startCancel();
        ASSERT_TRUE(e->wait(20000)) << "producer hung";
        if (e->status.isOk()) {
          for (int32_t v : vals)
            state[v] = 1;
          produced += rows;
          for (int32_t v : vals)
            producedSum += v;
          i += rows;
        } else if (e->status.code() == Code::kCancelled) {
          if (many)
            for (int32_t v : vals)
              state[v] = 2;
          if (q->isClosed())
            return; // closed with cancel_pending_enqueues
        } else {
          FAIL() << e->status.toString();
        }
      }
    });
  if (cancelClose) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    closeQueue(*q, true);
    for (auto &t : producers)
      t.join();
  } else {
    for (auto &t : producers)
      t.join();
    ASSERT_TRUE(closeQueue(*q)->wait());
  }
  for (auto &t : consumers)
    t.join();
  EXPECT_EQ(q->size(), 0);
  int64_t okCount = 0, okSum = 0;
  for (size_t v = 0; v < tally.seen.size(); ++v) {
    ASSERT_LE(tally.seen[v], 1) << "value " << v << " was dequeued twice";
    if (state[v] == 1) {
      ASSERT_EQ(tally.seen[v], 1) << "enqueued value " << v << " was lost";
      ++okCount;
      okSum += int64_t(v);
    } else if (state[v] == 0) {
      ASSERT_EQ(tally.seen[v], 0) << "value " << v << " came from nowhere";
    }
  }
  EXPECT_EQ(okCount, produced.load());
  EXPECT_EQ(okSum, producedSum.load());
  if (!cancelClose) { // no enqueue_many fails: counts match exactly
    EXPECT_EQ(tally.count, produced.load());
    EXPECT_EQ(tally.sum, producedSum.load());
  }
  if (!cancelClose)
    EXPECT_EQ(tally.count, int64_t(kProducers) * kPerProducer);
}

QueueSpec fifoSpec(int64_t cap) {
  return spec("FIFOQueue", {DType::kI32}, {Shape::scalar()}, cap);
}

TEST(QueueStressTest, FifoProducersConsumers) { runStress(fifoSpec(16), false, false); }
TEST(QueueStressTest, FifoWithCancellation) { runStress(fifoSpec(8), true, false); }
TEST(QueueStressTest, FifoCloseCancelRacing) { runStress(fifoSpec(8), true, true); }
TEST(QueueStressTest, RandomShuffleWithCancellation) {
  QueueSpec s = spec("RandomShuffleQueue", {DType::kI32}, {Shape::scalar()}, 32);
  s.minAfterDequeue = 5;
  runStress(s, true, false);
}
TEST(QueueStressTest, DeterministicRandomShuffleWithCancellation) {
  // Cancelled partial batches are undone pop by pop: nothing may be lost.
  QueueSpec s = spec("RandomShuffleQueue", {DType::kI32}, {Shape::scalar()}, 32);
  s.minAfterDequeue = 5;
  s.seed = 3;
  s.deterministic = true;
  runStress(s, true, false);
}
TEST(QueueStressTest, PaddingWithCancellation) {
  runStress(spec("PaddingFIFOQueue", {DType::kI32}, {Shape::scalar()}, 8), true, false);
}

} // namespace
} // namespace sluice::backend::testing
