// tflib/input/activity.h: what one program is doing, for the stall check:
// its threads that could still enqueue (spawned and queue-runner threads)
// and its session runs in flight. Each program (an evaluator, a C++ API
// session) keeps its own, so two programs in one process never hide each
// other's stalls.
#pragma once

#include <atomic>
#include <memory>

namespace sluice::tflib {

class ProgramActivity {
public:
  int liveThreads() const { return threads_.load(); }
  int runsInFlight() const { return runs_.load(); }

  /// Counts a thread from before it starts until its body returned.
  class Thread {
  public:
    explicit Thread(std::shared_ptr<ProgramActivity> a) : a_(std::move(a)) { ++a_->threads_; }
    ~Thread() { --a_->threads_; }
    Thread(const Thread &) = delete;
    Thread &operator=(const Thread &) = delete;

  private:
    std::shared_ptr<ProgramActivity> a_;
  };

  /// Counts a session run for its lifetime.
  class Run {
  public:
    explicit Run(ProgramActivity &a) : a_(a) { ++a_.runs_; }
    ~Run() { --a_.runs_; }
    Run(const Run &) = delete;
    Run &operator=(const Run &) = delete;

  private:
    ProgramActivity &a_;
  };

private:
  std::atomic<int> threads_{0};
  std::atomic<int> runs_{0};
};

} // namespace sluice::tflib
