// support/cancellation.cc: callback registry that runs once on cancel.
#include "support/cancellation.h"

#include <vector>

namespace sluice {

CancellationManager::Token
CancellationManager::registerCallback(std::function<void()> cb) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_)
    return kInvalidToken;
  Token t = next_++;
  callbacks_.emplace(t, std::move(cb));
  return t;
}

bool CancellationManager::deregisterCallback(Token token) {
  std::unique_lock<std::mutex> lock(mu_);
  if (callbacks_.erase(token) > 0)
    return true;
  // A callback deregistering itself (or a sibling) from inside startCancel
  // must not wait for itself.
  if (cancelled_ && cancellingThread_ != std::this_thread::get_id())
    doneCv_.wait(lock, [&] { return callbacksDone_; });
  return false;
}

void CancellationManager::startCancel() {
  std::unordered_map<Token, std::function<void()>> cbs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_)
      return;
    cancelled_ = true;
    cancellingThread_ = std::this_thread::get_id();
    cbs.swap(callbacks_);
  }
  for (auto &[t, cb] : cbs)
    cb();
  {
    std::lock_guard<std::mutex> lock(mu_);
    callbacksDone_ = true;
  }
  doneCv_.notify_all();
}

bool CancellationManager::isCancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

} // namespace sluice
