// support/cancellation.h: cancels blocked work when a step fails, times
// out, or its session closes (TF's CancellationManager).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
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
  bool deregisterCallback(Token token);
  /// Runs every registered callback once, outside the lock.
  void startCancel();
  bool isCancelled() const;

private:
  mutable std::mutex mu_;
  bool cancelled_ = false;
  Token next_ = 0;
  std::unordered_map<Token, std::function<void()>> callbacks_;
};

} // namespace sluice
