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
  std::lock_guard<std::mutex> lock(mu_);
  return callbacks_.erase(token) > 0;
}

void CancellationManager::startCancel() {
  std::unordered_map<Token, std::function<void()>> cbs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_)
      return;
    cancelled_ = true;
    cbs.swap(callbacks_);
  }
  for (auto &[t, cb] : cbs)
    cb();
}

bool CancellationManager::isCancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

} // namespace sluice
