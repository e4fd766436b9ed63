// runtime/thread_pool.h: a fixed set of threads running queued closures
// (the executor's inter-op pool).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice::rt {

class ThreadPool {
public:
  /// Starts `numThreads` threads; 0 means one per hardware thread.
  explicit ThreadPool(int numThreads);
  /// Runs what is still queued, then joins the threads.
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Queues `fn` to run on some pool thread (FIFO).
  void schedule(std::function<void()> fn);
  int numThreads() const { return static_cast<int>(threads_.size()); }

private:
  void workerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

} // namespace sluice::rt
