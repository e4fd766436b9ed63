// tests/runtime/step_threads_test.cc: step threads are reused when idle and
// grow when jobs block on each other (where a fixed pool would deadlock).
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

TEST(StepThreadsTest, IdleThreadsAreReused) {
  StepThreads threads;
  for (int i = 0; i < 100; ++i) {
    Latch done(2);
    threads.run([&] { done.arriveAndWait(); });
    done.arriveAndWait();
  }
  // A job may find its thread still finishing the previous one, so allow
  // a second thread, never one per job.
  EXPECT_LE(threads.numThreads(), 2);
}

TEST(StepThreadsTest, JobsWaitingOnEachOtherAllRun) {
  StepThreads threads;
  constexpr int kJobs = 8;
  Latch all(kJobs + 1);
  std::atomic<int> ran{0};
  for (int i = 0; i < kJobs; ++i)
    threads.run([&] {
      all.arriveAndWait(); // needs every job running at once
      ++ran;
    });
  all.arriveAndWait();
  EXPECT_GE(threads.numThreads(), kJobs);
  // The destructor waits for the jobs.
}

TEST(StepThreadsTest, DestructorWaitsForQueuedJobs) {
  std::atomic<int> ran{0};
  {
    StepThreads threads;
    for (int i = 0; i < 20; ++i)
      threads.run([&] { ++ran; });
  }
  EXPECT_EQ(ran.load(), 20);
}

} // namespace
} // namespace sluice::rt
