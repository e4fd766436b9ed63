// tflib/input/coordinator.h: the state of TF1's tf.train.Coordinator: a stop
// flag, the first error a stop was requested with, and whether join() has
// already run (docs/tf1-semantics.md §4). Which threads it joins is the
// caller's business (the language's thread objects, the C++ API's threads).
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>

#include "support/status.h"

namespace sluice::tflib {

class Coordinator {
public:
  /// Sets the stop flag and keeps the first error that is not a clean
  /// stop (out_of_range). After markJoined(), an error is not kept but
  /// returned: the caller raises it (TF raises it from request_stop).
  std::optional<Status> requestStop(std::optional<Status> error = std::nullopt);
  bool shouldStop() const;
  /// The error a stop was requested with (a clean stop has none).
  std::optional<Status> error() const;
  /// Waits up to `seconds` (forever if negative) for a stop request.
  bool waitForStop(double seconds) const;
  /// TF's clear_stop: the coordinator can be used again.
  void clearStop();
  /// join() is over: returns the stored error, which join raises.
  std::optional<Status> markJoined();

private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stop_ = false;
  bool joined_ = false;
  std::optional<Status> error_;
};

} // namespace sluice::tflib
