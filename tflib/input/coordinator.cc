// tflib/input/coordinator.cc: TF1's Coordinator state.
#include "tflib/input/coordinator.h"

#include <chrono>

namespace sluice::tflib {

std::optional<Status> Coordinator::requestStop(std::optional<Status> error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error && error->code() == Code::kOutOfRange)
    error.reset(); // the input ended: a clean stop
  if (joined_ && error)
    return error;
  if (!stop_) {
    if (error && !error_)
      error_ = std::move(error);
    stop_ = true;
    cv_.notify_all();
  }
  return std::nullopt;
}

bool Coordinator::shouldStop() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

std::optional<Status> Coordinator::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

bool Coordinator::waitForStop(double seconds) const {
  std::unique_lock<std::mutex> lock(mu_);
  if (seconds < 0) {
    cv_.wait(lock, [&] { return stop_; });
    return true;
  }
  return cv_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return stop_; });
}

void Coordinator::clearStop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = false;
  joined_ = false;
  error_.reset();
}

std::optional<Status> Coordinator::markJoined() {
  std::lock_guard<std::mutex> lock(mu_);
  joined_ = true;
  return error_;
}

} // namespace sluice::tflib
