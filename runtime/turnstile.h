// runtime/turnstile.h: round-robin turns among a fixed set of threads (a
// deterministic queue runner's), so the order of their steps is a
// function of the graph, not of timing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace sluice::rt {

class Turnstile {
public:
  /// Participants 0..n-1, all in the rotation; participant 0 goes first.
  explicit Turnstile(int participants);

  /// Waits for `who`'s turn. False, without the turn, when `who` has left
  /// the rotation or `giveUp` (polled every `poll` while waiting) returns
  /// true.
  bool acquire(int who, const std::function<bool()> &giveUp = {},
               std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  /// Ends `who`'s turn: the next participant still in the rotation, in
  /// cyclic order, goes next.
  void release(int who);
  /// Takes `who` out of the rotation, passing the turn on if it held it.
  /// Leaving twice is fine.
  void leave(int who);
  /// How many participants are still in the rotation.
  int remaining() const;

private:
  /// Moves the turn on from `from`; returns whom to wake (-1: nobody).
  int passTurnLocked(int from);
  void wake(int who);

  mutable std::mutex mu_;
  // One per participant: a release wakes the next thread only, not every
  // waiter (a hand-off per step is the whole cost of turn-taking).
  std::unique_ptr<std::condition_variable[]> cvs_;
  std::vector<bool> active_; // guarded by mu_
  int turn_ = 0;             // -1 once nobody is left; guarded by mu_
  int remaining_ = 0;        // guarded by mu_
};

} // namespace sluice::rt
