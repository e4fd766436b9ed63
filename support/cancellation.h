// support/cancellation.h: cancels blocked work when a step fails, times
// out, or its session closes (TF's CancellationManager).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace sluice {

class CancellationManager {
public:
  using Token = int64_t;
  static constexpr Token kInvalidToken = -1;

  /// Registers `cb` to run on cancellation. Returns kInvalidToken (and
  /// does not register) when cancellation has already started: the caller
  /// must then fail at once.
  Token registerCallback(std::function<void()> cb);
  /// Removes a callback; returns false if it already ran or is running.
  /// While another thread is running the callbacks, this waits for them
  /// to finish (as TF's does), so the caller may free what its callback
  /// touches as soon as this returns.
  bool deregisterCallback(Token token);
  /// Runs every registered callback once, outside the lock.
  void startCancel();
  bool isCancelled() const;

private:
  mutable std::mutex mu_;
  std::condition_variable doneCv_;
  bool cancelled_ = false;
  bool callbacksDone_ = false;          // guarded by mu_
  std::thread::id cancellingThread_;    // guarded by mu_
  Token next_ = 0;
  std::unordered_map<Token, std::function<void()>> callbacks_;
};

} // namespace sluice
