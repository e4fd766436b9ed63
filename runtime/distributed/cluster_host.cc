// runtime/distributed/cluster_host.cc: servers and cluster clients of one process.
#include "runtime/distributed/cluster_host.h"

#include "runtime/distributed/cluster_client.h"
#include "runtime/distributed/free_port.h"
#include "runtime/distributed/server.h"
#include "support/stop_signals.h"

namespace sluice::dist {

Expected<std::shared_ptr<GrpcClusterHost>> GrpcClusterHost::create(ClusterHostOptions opts) {
  std::shared_ptr<GrpcClusterHost> h(new GrpcClusterHost());
  h->channel_ = std::make_unique<ChannelOptions>();
  h->channel_->token = opts.token;
  SLUICE_ASSIGN_OR_RETURN(h->channel_->tls,
                          loadTls(opts.tlsCert, opts.tlsKey, opts.tlsCa));
  h->opts_ = std::move(opts);
  std::weak_ptr<GrpcClusterHost> weak = h;
  h->stopHandler_ = addStopHandler([weak] {
    if (auto host = weak.lock())
      host->stopAll();
  });
  return h;
}

GrpcClusterHost::~GrpcClusterHost() {
  removeStopHandler(stopHandler_);
  stopAll();
}

Expected<std::shared_ptr<Server>> GrpcClusterHost::serveTask(const rt::ClusterSpec &cluster,
                                                           const std::string &job, int index) {
  std::string type = job;
  if (type.empty()) {
    if (cluster.jobMap().size() != 1)
      return valueError("Must specify an explicit `job_name`.");
    type = cluster.jobMap().begin()->first;
  }
  SLUICE_ASSIGN_OR_RETURN(std::string address, cluster.taskAddress(type, index));
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = servers_.find(address); it != servers_.end())
    if (auto running = it->second.lock()) {
      std::string task = "/job:" + type + "/replica:0/task:" + std::to_string(index);
      if (!(running->cluster() == cluster) || running->task() != task)
        return valueError("this process already serves " + running->task() + " at " + address +
                          "; it cannot serve " + task + " of another cluster spec there");
      return running;
    }
  ServerOptions so;
  so.cluster = cluster;
  so.job = type;
  so.taskIndex = index;
  so.cpus = opts_.cpusPerTask;
  so.channel = *channel_;
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Server> s, Server::start(std::move(so)));
  std::shared_ptr<Server> shared(std::move(s));
  servers_[address] = shared;
  return shared;
}

void GrpcClusterHost::setDefaultTask(rt::ClusterSpec cluster, std::string job, int index) {
  std::lock_guard<std::mutex> lock(mu_);
  defaultTask_ = DefaultTask{std::move(cluster), std::move(job), index};
}

bool GrpcClusterHost::hasDefaultTask() const {
  std::lock_guard<std::mutex> lock(mu_);
  return defaultTask_.has_value();
}

std::shared_ptr<rt::RemoteCluster> GrpcClusterHost::clientFor(const rt::ClusterSpec &cluster,
                                                          const std::string &task) {
  ClusterClientOptions o;
  o.cluster = cluster;
  o.localTask = task;
  o.channel = *channel_;
  o.cpusPerTask = opts_.cpusPerTask;
  o.startupTimeout = std::chrono::milliseconds(opts_.startupTimeoutMs);
  o.log = opts_.log;
  return std::make_shared<ClusterClient>(std::move(o));
}

Expected<std::shared_ptr<rt::RemoteCluster>> GrpcClusterHost::connectDefault() {
  std::optional<DefaultTask> t;
  {
    std::lock_guard<std::mutex> lock(mu_);
    t = defaultTask_;
  }
  if (!t)
    return std::shared_ptr<rt::RemoteCluster>();
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<Server> s, serveTask(t->cluster, t->job, t->index));
  {
    std::lock_guard<std::mutex> lock(mu_);
    default_ = s;
  }
  return clientFor(s->cluster(), s->task());
}

Expected<std::shared_ptr<rt::RemoteCluster>> GrpcClusterHost::connect(const std::string &target) {
  const std::string scheme = "grpc://";
  if (target.rfind(scheme, 0) != 0)
    return invalidArgument("a session target is \"grpc://host:port\" (a server's .target), got '" +
                           target + "'");
  std::string address = target.substr(scheme.size());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = servers_.find(address); it != servers_.end())
      if (auto s = it->second.lock())
        return clientFor(s->cluster(), s->task());
  }
  // A server of another process: it tells its cluster and task.
  SLUICE_ASSIGN_OR_RETURN(TaskIdentity id,
                          askTask(address, *channel_,
                                        std::chrono::milliseconds(opts_.startupTimeoutMs)));
  return clientFor(id.cluster, id.task);
}

Expected<std::shared_ptr<rt::TaskServer>> GrpcClusterHost::serve(const rt::ClusterSpec &cluster,
                                                                 const std::string &job,
                                                                 int index) {
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<Server> s, serveTask(cluster, job, index));
  return std::shared_ptr<rt::TaskServer>(std::move(s));
}

Expected<int> GrpcClusterHost::pickFreePort() { return pickFreeLoopbackPort(); }

void GrpcClusterHost::stopAll() {
  std::vector<std::shared_ptr<Server>> servers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto &[address, w] : servers_)
      if (auto s = w.lock())
        servers.push_back(std::move(s));
  }
  for (auto &s : servers)
    s->stop();
}

} // namespace sluice::dist
