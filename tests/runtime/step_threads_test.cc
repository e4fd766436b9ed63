// tests/runtime/step_threads_test.cc: step threads are reused by later
// steps and grow when jobs wait on each other (where a fixed pool would
// deadlock).
#include "runtime/step_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace sluice::rt {
namespace {

struct Latch {
  std::mutex mu;
  std::condition_variable cv;
  int count;
  explicit Latch(int n) : count(n) {}
  void arriveAndWait() {
    std::unique_lock<std::mutex> lock(mu);
    if (--count == 0)
      cv.notify_all();
    cv.wait(lock, [&] { return count == 0; });
  }
};

TEST(StepThreadsTest, LaterStepsReuseTheThreads) {
  StepThreads threads;
  std::atomic<int> ran{0};
  for (int step = 0; step < 200; ++step) {
    std::vector<std::function<void()>> jobs(4, [&] { ++ran; });
    threads.runAll(jobs);
    EXPECT_EQ(ran.load(), 4 * (step + 1));
  }
  EXPECT_EQ(threads.numThreads(), 3); // jobs[0] runs on the caller
}

TEST(StepThreadsTest, JobsWaitingOnEachOtherAllRun) {
  StepThreads threads;
  constexpr int kJobs = 8;
  Latch all(kJobs); // every job must be running at once
  std::vector<std::function<void()>> jobs(kJobs, [&] { all.arriveAndWait(); });
  threads.runAll(jobs);
  EXPECT_EQ(threads.numThreads(), kJobs - 1);
}

TEST(StepThreadsTest, ConcurrentStepsEachFinish) {
  StepThreads threads;
  std::atomic<int> ran{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int step = 0; step < 50; ++step) {
        Latch both(2);
        std::vector<std::function<void()>> jobs(2, [&] {
          both.arriveAndWait();
          ++ran;
        });
        threads.runAll(jobs);
      }
    });
  for (std::thread &t : callers)
    t.join();
  EXPECT_EQ(ran.load(), 4 * 50 * 2);
  EXPECT_LE(threads.numThreads(), 4);
}

} // namespace
} // namespace sluice::rt
