// runtime/cluster_host.h: what a program may ask of the cluster its process
// belongs to: serve a task of a cluster spec, connect a session to a
// `target`, pick a free port. The language sees only this interface; the
// gRPC implementation (runtime/distributed/cluster_host.h) is injected by
// whoever owns the process (the CLI's driver, the C++ API), as a session
// is handed a RemoteCluster.
#pragma once

#include <memory>
#include <string>

#include "runtime/cluster_spec.h"
#include "runtime/remote_cluster.h"
#include "support/status.h"

namespace sluice::rt {

/// A task server this process hosts (TF's tf.train.Server).
class TaskServer {
public:
  virtual ~TaskServer() = default;
  /// "grpc://host:port", the value sessions take as `target`.
  virtual std::string target() const = 0;
  /// Blocks until the server is stopped (a signal, or the host stopping).
  virtual void join() = 0;
};

class ClusterHost {
public:
  virtual ~ClusterHost() = default;
  /// The server of task `job:index` of `cluster`, started on first ask;
  /// asking again for the same address gives the same server while
  /// someone holds it.
  virtual Expected<std::shared_ptr<TaskServer>> serve(const rt::ClusterSpec &cluster,
                                                      const std::string &job, int index) = 0;
  /// A session's cluster for `target` ("grpc://host:port").
  virtual Expected<std::shared_ptr<RemoteCluster>> connect(const std::string &target) = 0;
  /// The cluster of the process's own task (the CLI's --task or
  /// TF_CONFIG), where sessions without a target run; null when the
  /// process is no task of a cluster.
  virtual Expected<std::shared_ptr<RemoteCluster>> connectDefault() = 0;
  /// A loopback port free now (tf.test.create_local_cluster).
  virtual Expected<int> pickFreePort() = 0;
};

} // namespace sluice::rt
