// runtime/thread_pool.cc: mutex + condition variable work queue.
#include "runtime/thread_pool.h"

namespace sluice::rt {

ThreadPool::ThreadPool(int numThreads) {
  if (numThreads <= 0)
    numThreads = std::max(1u, std::thread::hardware_concurrency());
  threads_.reserve(numThreads);
  for (int i = 0; i < numThreads; ++i)
    threads_.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto &t : threads_)
    t.join();
}

void ThreadPool::schedule(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void ThreadPool::workerLoop() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
  }
}

} // namespace sluice::rt
