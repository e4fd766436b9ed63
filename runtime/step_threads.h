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
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice::rt {

class StepThreads {
public:
  StepThreads() = default;
  /// Joins the threads (no runAll may be in progress).
  ~StepThreads();
  StepThreads(const StepThreads &) = delete;
  StepThreads &operator=(const StepThreads &) = delete;

  /// Runs jobs[1..] on idle (or new) threads and jobs[0] on the caller,
  /// and returns once all have finished. A thread is idle again before
  /// its job counts as finished, so back-to-back calls reuse threads.
  void runAll(const std::vector<std::function<void()>> &jobs);
  /// Runs `fn` on an idle (or new) thread and returns at once (a task
  /// serving a remote step).
  void start(std::function<void()> fn);
  /// Returns once no job is queued or running.
  void waitIdle();
  int numThreads() const;

private:
  struct Job {
    const std::function<void()> *fn;
    int *remaining; // the runAll's count (null: a start), guarded by mu_
    std::shared_ptr<std::function<void()>> owned; // start's job
  };
  void enqueueLocked(Job job);
  void loop();

  mutable std::mutex mu_;
  std::condition_variable cv_;     // a job was queued, or stopping
  std::condition_variable doneCv_; // some runAll's jobs finished
  std::deque<Job> jobs_;           // guarded by mu_
  int idle_ = 0;                   // threads free to take a job, guarded by mu_
  bool stopping_ = false;          // guarded by mu_
  std::vector<std::thread> threads_; // guarded by mu_
};

} // namespace sluice::rt
