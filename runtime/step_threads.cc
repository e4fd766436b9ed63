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

void StepThreads::runAll(const std::vector<std::function<void()>> &jobs) {
  if (jobs.empty())
    return;
  int remaining = static_cast<int>(jobs.size()) - 1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 1; i < jobs.size(); ++i)
      enqueueLocked(Job{&jobs[i], &remaining, nullptr});
  }
  jobs[0]();
  std::unique_lock<std::mutex> lock(mu_);
  doneCv_.wait(lock, [&] { return remaining == 0; });
}

void StepThreads::start(std::function<void()> fn) {
  auto owned = std::make_shared<std::function<void()>>(std::move(fn));
  std::lock_guard<std::mutex> lock(mu_);
  enqueueLocked(Job{owned.get(), nullptr, owned});
}

void StepThreads::enqueueLocked(Job job) {
  jobs_.push_back(std::move(job));
  // Each idle thread takes one job; a job no idle thread will take gets a
  // thread of its own (counted idle until it takes it).
  if (idle_ >= static_cast<int>(jobs_.size())) {
    cv_.notify_one();
  } else {
    ++idle_;
    threads_.emplace_back([this] { loop(); });
  }
}

void StepThreads::waitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  doneCv_.wait(lock, [&] { return jobs_.empty() && idle_ == static_cast<int>(threads_.size()); });
}

int StepThreads::numThreads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(threads_.size());
}

void StepThreads::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty())
      return; // stopping
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    --idle_;
    lock.unlock();
    (*job.fn)();
    lock.lock();
    ++idle_;
    if (!job.remaining || --*job.remaining == 0)
      doneCv_.notify_all();
  }
}

} // namespace sluice::rt
