// runtime/distributed/server.h: a task's gRPC server (TF's tf.train.Server):
// it listens on exactly the address the cluster gives the task and serves
// the task's WorkerService until stopped.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "runtime/cluster_spec.h"
#include "runtime/cluster_host.h"
#include "runtime/distributed/channel.h"
#include "support/status.h"

namespace grpc {
class Server;
}

namespace sluice::dist {

class WorkerService;

struct ServerOptions {
  rt::ClusterSpec cluster;
  std::string job;
  int taskIndex = 0;
  int cpus = 1;
  ChannelOptions channel;
};

class Server : public rt::TaskServer {
public:
  /// Starts the server of task `job:taskIndex`; unavailable naming the
  /// address when it cannot listen there (in use, not this host).
  static Expected<std::unique_ptr<Server>> start(ServerOptions opts);
  ~Server() override;

  /// "grpc://host:port", the value sessions take as `target`.
  std::string target() const override { return "grpc://" + address_; }
  const std::string &address() const { return address_; }
  const std::string &task() const { return task_; }
  const rt::ClusterSpec &cluster() const { return cluster_; }
  const ChannelOptions &channel() const { return channel_; }
  WorkerService &service() { return *service_; }

  /// Blocks until the server stops (stop() from another thread, or a
  /// signal handler's).
  void join() override;
  /// Stops taking calls, cancels the ones in flight, and returns once
  /// they have finished.
  void stop();

private:
  Server() = default;
  rt::ClusterSpec cluster_;
  ChannelOptions channel_;
  std::string address_, task_;
  std::unique_ptr<WorkerService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::atomic<bool> stopped_{false};
};


} // namespace sluice::dist
