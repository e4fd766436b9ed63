// backend/rendezvous.cc
#include "backend/rendezvous.h"

#include <cstdio>
#include <vector>

namespace sluice::backend {

std::string rendezvousKey(const std::string &sendDevice, int64_t incarnation,
                          const std::string &recvDevice, const std::string &tensorName, int frame,
                          int iteration) {
  char inc[17];
  std::snprintf(inc, sizeof inc, "%016llx", static_cast<unsigned long long>(incarnation));
  return sendDevice + ";" + inc + ";" + recvDevice + ";" + tensorName + ";" +
         std::to_string(frame) + ":" + std::to_string(iteration);
}

Status LocalRendezvous::send(const std::string &key, ir::Tensor t) {
  Waiter w;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!aborted_.isOk())
      return aborted_;
    if (!sent_.emplace(key, true).second)
      return internalError("rendezvous key '" + key + "' was sent twice in one step");
    auto it = waiting_.find(key);
    if (it == waiting_.end()) {
      ready_.emplace(key, std::move(t));
      return Status::ok();
    }
    w = std::move(it->second);
    waiting_.erase(it);
  }
  // Whoever removes the waiter completes it, outside the lock.
  if (w.cm)
    w.cm->deregisterCallback(w.token);
  w.done(Status::ok(), std::move(t));
  return Status::ok();
}

void LocalRendezvous::recvAsync(const std::string &key, CancellationManager *cm,
                                DoneCallback done) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!aborted_.isOk()) {
    Status s = aborted_;
    lock.unlock();
    return done(s, {});
  }
  auto it = ready_.find(key);
  if (it != ready_.end()) {
    ir::Tensor t = std::move(it->second);
    ready_.erase(it);
    lock.unlock();
    return done(Status::ok(), std::move(t));
  }
  Waiter &w = waiting_[key];
  w.done = std::move(done);
  if (cm) {
    w.cm = cm;
    w.token = cm->registerCallback([this, key] {
      DoneCallback d;
      {
        std::lock_guard<std::mutex> l(mu_);
        auto wi = waiting_.find(key);
        if (wi == waiting_.end())
          return;
        d = std::move(wi->second.done);
        waiting_.erase(wi);
      }
      d(Status(Code::kCancelled, "recv of '" + key + "' was cancelled"), {});
    });
    if (w.token == CancellationManager::kInvalidToken) {
      DoneCallback d = std::move(w.done);
      waiting_.erase(key);
      lock.unlock();
      return d(Status(Code::kCancelled, "recv of '" + key + "' was cancelled"), {});
    }
  }
}

void LocalRendezvous::abort(Status s) {
  std::vector<Waiter> waiters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!aborted_.isOk())
      return;
    aborted_ = s;
    for (auto &[k, w] : waiting_)
      waiters.push_back(std::move(w));
    waiting_.clear();
    ready_.clear();
  }
  for (Waiter &w : waiters) {
    if (w.cm)
      w.cm->deregisterCallback(w.token);
    w.done(s, {});
  }
}

} // namespace sluice::backend
