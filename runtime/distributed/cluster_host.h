// runtime/distributed/cluster_host.h: rt::ClusterHost over gRPC. What a
// process knows about the cluster it serves in: how to talk to it (token,
// TLS), the task servers it hosts (the CLI's own task, and any `server(...)`
// a program starts), and how a session's `target` becomes a RemoteCluster.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "runtime/cluster_spec.h"
#include "runtime/cluster_host.h"
#include "runtime/remote_cluster.h"
#include "support/status.h"

namespace sluice::dist {

class Server;
struct ChannelOptions;

struct ClusterHostOptions {
  std::string token;                       // --cluster-token's contents
  std::string tlsCert, tlsKey, tlsCa;      // PEM file paths
  int cpusPerTask = 1;
  int startupTimeoutMs = 120000;           // how long a session waits for a task
  std::function<void(const std::string &)> log; // "waiting for task ..." lines
};

class GrpcClusterHost : public rt::ClusterHost {
public:
  /// invalid_argument / not_found for TLS files that cannot be used.
  static Expected<std::shared_ptr<GrpcClusterHost>> create(ClusterHostOptions opts);
  ~GrpcClusterHost() override;

  /// The server of task `job:index` of `cluster`, started on first ask;
  /// asking again for the same address gives the same server while
  /// someone holds it (a dropped server stops, as TF's when collected).
  Expected<std::shared_ptr<Server>> serveTask(const rt::ClusterSpec &cluster,
                                              const std::string &job, int index);
  Expected<std::shared_ptr<rt::TaskServer>> serve(const rt::ClusterSpec &cluster,
                                                  const std::string &job, int index) override;
  /// The CLI's own task (--job/--task with a cluster, or TF_CONFIG):
  /// sessions without a `target` run on its cluster, its server started
  /// by the first of them.
  void setDefaultTask(rt::ClusterSpec cluster, std::string job, int index);
  bool hasDefaultTask() const;

  /// A cluster session's RemoteCluster for `target` ("grpc://host:port"):
  /// a server of this process gives its cluster and task at once; another
  /// address is asked for them (waiting for it as for any task).
  Expected<std::shared_ptr<rt::RemoteCluster>> connect(const std::string &target) override;
  /// The default task's cluster (starting its server); null when there
  /// is no default task.
  Expected<std::shared_ptr<rt::RemoteCluster>> connectDefault() override;
  Expected<int> pickFreePort() override;

  /// Stops every hosted server (SIGTERM): their join()s return.
  void stopAll();

private:
  GrpcClusterHost() = default;
  std::shared_ptr<rt::RemoteCluster> clientFor(const rt::ClusterSpec &cluster,
                                               const std::string &task);

  ClusterHostOptions opts_;
  std::unique_ptr<ChannelOptions> channel_;
  mutable std::mutex mu_;
  std::map<std::string, std::weak_ptr<Server>> servers_; // by address
  struct DefaultTask {
    rt::ClusterSpec cluster;
    std::string job;
    int index = 0;
  };
  std::optional<DefaultTask> defaultTask_;
  std::shared_ptr<Server> default_; // held for the process's life
  int stopHandler_ = 0;
};

} // namespace sluice::dist
