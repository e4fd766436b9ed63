// ir/device_spec.h: TF device names (`/job:ps/task:0/device:CPU:0`):
// parsing, canonical printing and merging (TF's DeviceSpec).
#pragma once

#include <optional>
#include <string>

#include "support/status.h"

namespace sluice::ir {

struct DeviceSpec {
  std::optional<std::string> job;
  std::optional<int> replica;
  std::optional<int> task;
  std::optional<std::string> deviceType; // upper-case: CPU, GPU
  std::optional<int> deviceIndex;        // unset = any ("*")

  /// Parses "/job:x/replica:1/task:0/device:GPU:1", legacy "/cpu:0",
  /// "gpu:*"; "" gives an empty spec. value_error on malformed input.
  static Expected<DeviceSpec> parse(std::string_view s);
  /// Canonical form, fields in TF's order; "" for an empty spec.
  std::string toString() const;
  /// Fields set in `other` override this spec's (TF's merge_from).
  void mergeFrom(const DeviceSpec &other);
  bool empty() const {
    return !job && !replica && !task && !deviceType && !deviceIndex;
  }
  bool operator==(const DeviceSpec &o) const {
    return job == o.job && replica == o.replica && task == o.task &&
           deviceType == o.deviceType && deviceIndex == o.deviceIndex;
  }
};

/// Canonicalizes a device string (parse + print); value_error if invalid.
Expected<std::string> canonicalDevice(std::string_view s);

/// The task part of a device name, "/job:J/replica:R/task:T" (replica and
/// task 0 when unset, as the placer's devices have them); "" when the name
/// has no job or does not parse.
std::string taskOf(std::string_view device);

} // namespace sluice::ir
