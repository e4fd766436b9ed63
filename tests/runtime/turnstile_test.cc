// tests/runtime/turnstile_test.cc: round-robin turns among threads, with
// participants leaving and waiters giving up.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <random>
#include <thread>

#include "runtime/turnstile.h"

namespace sluice::rt {
namespace {

/// Runs `n` threads; thread k takes `turns[k]` turns (then leaves),
/// pausing at random, and returns who went, in order.
std::vector<int> rotate(const std::vector<int> &turns, uint32_t seed) {
  int n = static_cast<int>(turns.size());
  Turnstile t(n);
  std::mutex mu;
  std::vector<int> log;
  std::vector<std::thread> threads;
  for (int k = 0; k < n; ++k)
    threads.emplace_back([&, k] {
      std::mt19937 rng(seed * 31 + k);
      for (int j = 0; j < turns[k]; ++j) {
        if (rng() % 3 == 0)
          std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
        ASSERT_TRUE(t.acquire(k));
        {
          std::lock_guard<std::mutex> l(mu);
          log.push_back(k);
        }
        if (rng() % 3 == 0)
          std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
        t.release(k);
      }
      t.leave(k);
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(t.remaining(), 0);
  return log;
}

TEST(TurnstileTest, ThreadsTakeTurnsInOrder) {
  std::vector<int> want;
  for (int j = 0; j < 6; ++j)
    for (int k = 0; k < 4; ++k)
      want.push_back(k);
  for (uint32_t seed = 0; seed < 5; ++seed)
    EXPECT_EQ(rotate({6, 6, 6, 6}, seed), want) << "seed " << seed;
}

TEST(TurnstileTest, ALeavingThreadIsSkipped) {
  // Thread 1 leaves after 1 turn, thread 3 after 2.
  std::vector<int> want = {0, 1, 2, 3, 0, 2, 3, 0, 2, 0, 2};
  for (uint32_t seed = 0; seed < 5; ++seed)
    EXPECT_EQ(rotate({4, 1, 4, 2}, seed), want) << "seed " << seed;
}

TEST(TurnstileTest, LeavingWhileHoldingPassesTheTurn) {
  Turnstile t(3);
  ASSERT_TRUE(t.acquire(0));
  t.leave(0);
  EXPECT_TRUE(t.acquire(1));
  t.leave(2); // not holding: just out of the rotation
  t.release(1);
  EXPECT_TRUE(t.acquire(1)); // the only one left
  EXPECT_EQ(t.remaining(), 1);
  EXPECT_FALSE(t.acquire(2)); // left: no turn, no wait
  t.leave(1);
  t.leave(1); // twice is fine
  EXPECT_EQ(t.remaining(), 0);
}

TEST(TurnstileTest, AWaiterGivesUp) {
  Turnstile t(2);
  ASSERT_TRUE(t.acquire(0)); // held throughout
  std::atomic<bool> stop{false};
  std::thread waiter([&] {
    EXPECT_FALSE(t.acquire(1, [&] { return stop.load(); }, std::chrono::milliseconds(5)));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  waiter.join();
  t.release(0);
  EXPECT_TRUE(t.acquire(1)); // giving up did not leave the rotation
}

} // namespace
} // namespace sluice::rt
