// runtime/step_threads.cc: a thread cache that grows instead of queueing.
#include "runtime/step_threads.h"

namespace sluice::rt {

StepThreads::~StepThreads() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (std::thread &t : threads)
    t.join();
}

void StepThreads::run(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.push_back(std::move(fn));
  // Each idle thread takes one job; a job no idle thread will take gets a
  // thread of its own.
  if (idle_ >= static_cast<int>(jobs_.size()))
    cv_.notify_one();
  else
    threads_.emplace_back([this] { loop(); });
}

int StepThreads::numThreads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(threads_.size());
}

void StepThreads::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (jobs_.empty()) {
      if (stopping_)
        return;
      ++idle_;
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      --idle_;
      continue;
    }
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

} // namespace sluice::rt
