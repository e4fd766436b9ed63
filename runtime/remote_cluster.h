// runtime/remote_cluster.h: where a session's partitions run when its
// devices belong to other processes. The session places and partitions the
// graph as it does for local devices, then hands each partition to the
// task owning its device; runtime/distributed/ implements this over gRPC.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace sluice::rt {

class RemoteCluster {
public:
  virtual ~RemoteCluster() = default;
  /// Every device of the cluster: the placer's device set.
  virtual std::vector<std::string> devices() = 0;

  struct PartitionSpec {
    const ir::Graph *graph = nullptr; // every node assigned to `device`
    std::string device;
    std::vector<ir::Output> feeds, fetches;
    std::vector<ir::NodeId> targets;
    bool deterministic = false;
    int intraOpThreads = 1;
    /// What runs the partition's `fused` nodes (SessionOptions::backend).
    std::string backend = "jit";
  };
  /// Registers a partition with the task that owns its device; the
  /// returned handle names it in runPartition.
  virtual Expected<std::string> registerPartition(const PartitionSpec &spec) = 0;

  /// The session no longer needs these (device, handle) partitions.
  virtual void deregisterPartitions(
      const std::vector<std::pair<std::string, std::string>> &parts) = 0;

  using RunDone = std::function<void(Status, std::vector<ir::Tensor>)>;
  /// Runs a registered partition as part of step `stepId`; calls `done`
  /// exactly once, possibly on another thread. Past `deadline` the task
  /// gives up with deadline_exceeded.
  virtual void runPartition(const std::string &device, const std::string &handle,
                            int64_t stepId, std::vector<ir::Tensor> feeds,
                            std::chrono::steady_clock::time_point deadline, RunDone done) = 0;
  /// The step failed (or was cancelled): every task stops its part of it.
  virtual void abortStep(int64_t stepId, const std::vector<std::string> &devices,
                         const Status &why) = 0;
  /// The step is over: the tasks may drop what they kept for it.
  virtual void cleanupStep(int64_t stepId, const std::vector<std::string> &devices) = 0;
};

} // namespace sluice::rt
