// frontend/cluster_host.cc: servers and cluster clients of one process.
#include "frontend/cluster_host.h"

#include "runtime/distributed/cluster_client.h"
#include "runtime/distributed/server.h"
#include "support/stop_signals.h"

namespace sluice::frontend {

Expected<std::shared_ptr<ClusterHost>> ClusterHost::create(ClusterHostOptions opts) {
  std::shared_ptr<ClusterHost> h(new ClusterHost());
  h->channel_ = std::make_unique<dist::ChannelOptions>();
  h->channel_->token = opts.token;
  SLUICE_ASSIGN_OR_RETURN(h->channel_->tls,
                          dist::loadTls(opts.tlsCert, opts.tlsKey, opts.tlsCa));
  h->opts_ = std::move(opts);
  std::weak_ptr<ClusterHost> weak = h;
  h->stopHandler_ = addStopHandler([weak] {
    if (auto host = weak.lock())
      host->stopAll();
  });
  return h;
}

ClusterHost::~ClusterHost() {
  removeStopHandler(stopHandler_);
  stopAll();
}

Expected<std::shared_ptr<dist::Server>> ClusterHost::serve(const ir::ClusterSpec &cluster,
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
  dist::ServerOptions so;
  so.cluster = cluster;
  so.job = type;
  so.taskIndex = index;
  so.cpus = opts_.cpusPerTask;
  so.channel = *channel_;
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<dist::Server> s, dist::Server::start(std::move(so)));
  std::shared_ptr<dist::Server> shared(std::move(s));
  servers_[address] = shared;
  return shared;
}

void ClusterHost::setDefaultTask(ir::ClusterSpec cluster, std::string job, int index) {
  std::lock_guard<std::mutex> lock(mu_);
  defaultTask_ = DefaultTask{std::move(cluster), std::move(job), index};
}

bool ClusterHost::hasDefaultTask() const {
  std::lock_guard<std::mutex> lock(mu_);
  return defaultTask_.has_value();
}

std::shared_ptr<rt::RemoteCluster> ClusterHost::clientFor(const ir::ClusterSpec &cluster,
                                                          const std::string &task) {
  dist::ClusterClientOptions o;
  o.cluster = cluster;
  o.localTask = task;
  o.channel = *channel_;
  o.cpusPerTask = opts_.cpusPerTask;
  o.startupTimeout = std::chrono::milliseconds(opts_.startupTimeoutMs);
  o.log = opts_.log;
  return std::make_shared<dist::ClusterClient>(std::move(o));
}

Expected<std::shared_ptr<rt::RemoteCluster>> ClusterHost::connectDefault() {
  std::optional<DefaultTask> t;
  {
    std::lock_guard<std::mutex> lock(mu_);
    t = defaultTask_;
  }
  if (!t)
    return std::shared_ptr<rt::RemoteCluster>();
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<dist::Server> s, serve(t->cluster, t->job, t->index));
  {
    std::lock_guard<std::mutex> lock(mu_);
    default_ = s;
  }
  return clientFor(s->cluster(), s->task());
}

Expected<std::shared_ptr<rt::RemoteCluster>> ClusterHost::connect(const std::string &target) {
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
  SLUICE_ASSIGN_OR_RETURN(dist::TaskIdentity id,
                          dist::askTask(address, *channel_,
                                        std::chrono::milliseconds(opts_.startupTimeoutMs)));
  return clientFor(id.cluster, id.task);
}

void ClusterHost::stopAll() {
  std::vector<std::shared_ptr<dist::Server>> servers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto &[address, w] : servers_)
      if (auto s = w.lock())
        servers.push_back(std::move(s));
  }
  for (auto &s : servers)
    s->stop();
}

} // namespace sluice::frontend
