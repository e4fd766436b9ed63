// runtime/turnstile.cc: the rotation and its waits.
#include "runtime/turnstile.h"

namespace sluice::rt {

Turnstile::Turnstile(int participants)
    : cvs_(new std::condition_variable[participants > 0 ? participants : 0]),
      active_(participants > 0 ? participants : 0, true),
      turn_(participants > 0 ? 0 : -1), remaining_(participants > 0 ? participants : 0) {}

bool Turnstile::acquire(int who, const std::function<bool()> &giveUp,
                        std::chrono::milliseconds poll) {
  if (who < 0 || who >= static_cast<int>(active_.size()))
    return false;
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] { return !active_[who] || turn_ == who; };
  while (!ready()) {
    if (!giveUp) {
      cvs_[who].wait(lock, ready);
      break;
    }
    if (cvs_[who].wait_for(lock, poll, ready))
      break;
    // Asked without the lock: it may take other locks (a coordinator's).
    lock.unlock();
    bool stop = giveUp();
    lock.lock();
    if (stop && !ready())
      return false;
  }
  return active_[who] && turn_ == who;
}

void Turnstile::release(int who) {
  int next;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (turn_ != who)
      return;
    next = passTurnLocked(who);
  }
  wake(next);
}

void Turnstile::leave(int who) {
  int next = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (who < 0 || who >= static_cast<int>(active_.size()) || !active_[who])
      return;
    active_[who] = false;
    --remaining_;
    if (turn_ == who)
      next = passTurnLocked(who);
  }
  wake(next);
  wake(who); // a wait of its own (from another thread) ends too
}

int Turnstile::remaining() const {
  std::lock_guard<std::mutex> lock(mu_);
  return remaining_;
}

int Turnstile::passTurnLocked(int from) {
  int n = static_cast<int>(active_.size());
  for (int step = 1; step <= n; ++step) {
    int next = (from + step) % n;
    if (active_[next]) {
      turn_ = next;
      return next;
    }
  }
  turn_ = -1;
  return -1;
}

void Turnstile::wake(int who) {
  if (who >= 0)
    cvs_[who].notify_all();
}

} // namespace sluice::rt
