// runtime/step_threads.h: the threads a session runs a step's extra
// partitions on. Each partition's executor blocks its thread until the
// step ends, so a fixed pool could deadlock (two steps each holding part
// of the pool, both waiting for partitions queued behind the other): a
// job goes to an idle thread, and a new thread starts when none is idle.
// Threads are kept for later steps, which then start none.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice::rt {

class StepThreads {
public:
  StepThreads() = default;
  /// Waits for running jobs, then joins the threads.
  ~StepThreads();
  StepThreads(const StepThreads &) = delete;
  StepThreads &operator=(const StepThreads &) = delete;

  /// Runs `fn` on an idle thread, or on a new one.
  void run(std::function<void()> fn);
  int numThreads() const;

private:
  void loop();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_; // guarded by mu_
  int idle_ = 0;                           // guarded by mu_
  bool stopping_ = false;                  // guarded by mu_
  std::vector<std::thread> threads_;       // guarded by mu_
};

} // namespace sluice::rt
