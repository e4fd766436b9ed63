// runtime/distributed/cluster_client.h: a session's view of a gRPC cluster
// (the master side of TF's MasterSession): it registers partitions on the
// tasks that own their devices, runs them, and aborts or cleans up steps.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "runtime/cluster_spec.h"
#include "runtime/distributed/channel.h"
#include "runtime/remote_cluster.h"

namespace sluice::dist {

class Peers;

struct ClusterClientOptions {
  rt::ClusterSpec cluster;
  /// The task whose server the session targets; its devices come first,
  /// so ops that ask for no device run there (TF's client device).
  std::string localTask;
  ChannelOptions channel;
  int cpusPerTask = 1;
  /// How long the first call to a task waits for it to come up, with a
  /// line to `log` every `waitLogEvery`; then unavailable naming it (TF
  /// waits forever: "CreateSession still waiting for response").
  std::chrono::milliseconds startupTimeout{std::chrono::minutes(2)};
  std::chrono::milliseconds waitLogEvery{std::chrono::seconds(10)};
  std::function<void(const std::string &)> log;
};

/// Who serves at `address`: its cluster and task name (a session target
/// in another process). Waits for it up to `timeout`.
struct TaskIdentity {
  rt::ClusterSpec cluster;
  std::string task;
};
Expected<TaskIdentity> askTask(const std::string &address, const ChannelOptions &channel,
                               std::chrono::milliseconds timeout);

class ClusterClient final : public rt::RemoteCluster {
public:
  explicit ClusterClient(ClusterClientOptions opts);
  /// Waits for the calls it fired and forgot (aborts, cleanups).
  ~ClusterClient() override;

  std::vector<std::string> devices() override;
  Expected<std::string> registerPartition(const PartitionSpec &spec) override;
  void deregisterPartitions(
      const std::vector<std::pair<std::string, std::string>> &parts) override;
  void runPartition(const std::string &device, const std::string &handle, int64_t stepId,
                    std::vector<ir::Tensor> feeds,
                    std::chrono::steady_clock::time_point deadline, bool onlyPartition,
                    RunDone done) override;
  void abortStep(int64_t stepId, const std::vector<std::string> &devices,
                 const Status &why) override;
  void cleanupStep(int64_t stepId, const std::vector<std::string> &devices) override;

  /// Waits (as registration does) until `task` answers; unavailable
  /// naming it and its address past the startup timeout.
  Status waitForTask(const std::string &task);

private:
  std::string describe(const std::string &task);
  /// A call whose answer nobody waits for; counted so that the client
  /// outlives it.
  template <typename Req, typename Resp, typename Start>
  void fireAndForget(const std::string &task, Req req, Start start);

  ClusterClientOptions opts_;
  std::unique_ptr<Peers> peers_;
  std::mutex mu_;
  std::condition_variable idleCv_;
  std::set<std::string> ready_; // guarded by mu_: tasks that answered once
  int inFlight_ = 0;            // guarded by mu_
};

} // namespace sluice::dist
