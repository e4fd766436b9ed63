// frontend/eval/builtins_server.cc: server(...) (tf.train.Server),
// create_local_cluster(...) (tf.test.create_local_cluster), and the
// rt::ClusterHost they and session targets share.
#include "frontend/eval/cluster_objects.h"

namespace sluice::frontend {

rt::ClusterHost &EvaluatorImpl::clusterHost(const SourceLoc &loc) {
  if (!opts.clusterHost)
    throwError(Code::kFailedPrecondition,
               "this program runs without cluster support: servers and session targets need "
               "the sluice tool, or a cluster host given to the evaluator (EvalOptions::clusterHost)",
               loc);
  return *opts.clusterHost;
}

std::shared_ptr<rt::RemoteCluster> sessionCluster(EvaluatorImpl &ev, const Value &target,
                                                  const SourceLoc &loc) {
  if (ev.opts.oneDevice)
    return nullptr; // --one-device: everything on this process's CPU
  if (target.isNone()) {
    // No target: the CLI's task when it names one, else in-process.
    if (!ev.opts.clusterHost)
      return nullptr;
    auto c = ev.opts.clusterHost->connectDefault();
    if (!c.hasValue())
      throwStatus(c.takeStatus(), loc);
    return std::move(*c);
  }
  std::string t = toStr(target, "target", loc);
  if (t.empty())
    return nullptr; // TF's "": in-process
  auto c = ev.clusterHost(loc).connect(t);
  if (!c.hasValue())
    throwStatus(c.takeStatus(), loc);
  return std::move(*c);
}

namespace {

/// A task's server. Created with start: false it starts on .start().
class ServerObject : public Object {
public:
  std::string typeName() const override { return "server"; }
  std::string repr() const override {
    return "<server " + task + " at " + address + (server ? "" : " (not started)") + ">";
  }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;

  void start(EvaluatorImpl &ev, const SourceLoc &loc) {
    if (server)
      return; // TF: starting a started server does nothing
    auto s = ev.clusterHost(loc).serve(cluster, job, index);
    if (!s.hasValue())
      throwStatus(s.takeStatus(), loc);
    server = std::move(*s);
  }

  rt::ClusterSpec cluster;
  std::string job, task, address;
  int index = 0;
  std::shared_ptr<rt::TaskServer> server;
};

std::optional<Value> ServerObject::getAttr(EvaluatorImpl &, const std::string &name) {
  auto self = std::static_pointer_cast<ServerObject>(shared_from_this());
  if (name == "target")
    return Value::string("grpc://" + address);
  if (name == "task")
    return Value::string(task);
  if (name == "start")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      self->start(ev, a.loc);
      return Value::none();
    });
  if (name == "join")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      if (!self->server)
        throwError(Code::kRuntimeError, "join() on a server that was never started", a.loc);
      // Unlike TF's, it returns: when the process is told to stop (SIGTERM,
      // SIGINT, or `sluice launch` ending the job).
      GilRelease release(ev.gil);
      self->server->join();
      return Value::none();
    });
  if (name == "cluster_spec")
    return Value::object(std::make_shared<ClusterSpecObject>(cluster));
  return std::nullopt;
}

std::shared_ptr<ServerObject> makeServer(EvaluatorImpl &ev, rt::ClusterSpec cluster,
                                         std::string job, std::optional<int64_t> index,
                                         bool start, const SourceLoc &loc) {
  // TF infers the job only for a one-job cluster, the task only for a
  // one-task job.
  if (job.empty()) {
    if (cluster.jobMap().size() != 1)
      throwError(Code::kValueError, "Must specify an explicit `job_name`.", loc);
    job = cluster.jobMap().begin()->first;
  }
  if (!index) {
    auto n = cluster.taskIndices(job);
    if (!n.hasValue())
      throwStatus(n.takeStatus(), loc);
    if (n->size() != 1)
      throwError(Code::kValueError, "Must specify an explicit `task_index`.", loc);
    index = n->front();
  }
  auto address = cluster.taskAddress(job, static_cast<int>(*index));
  if (!address.hasValue())
    throwStatus(address.takeStatus(), loc);
  auto s = std::make_shared<ServerObject>();
  s->cluster = std::move(cluster);
  s->job = job;
  s->index = static_cast<int>(*index);
  s->task = "/job:" + job + "/replica:0/task:" + std::to_string(*index);
  s->address = *address;
  if (start)
    s->start(ev, loc);
  return s;
}

} // namespace

void installServerBuiltins(EvaluatorImpl &, Env &env) {
  env.set("server", Value::builtin("server", [](EvaluatorImpl &ev, CallArgs &a) {
            checkKeywords(a, "server", {"server_or_cluster_def", "job_name", "task_index",
                                        "protocol", "start"});
            rt::ClusterSpec cluster =
                toClusterSpec(ev, requireArg(a, 0, "server_or_cluster_def", "server"), a.loc);
            Value job = argOr(a, 1, "job_name", Value::none());
            Value index = argOr(a, 2, "task_index", Value::none());
            Value protocol = argOr(a, 3, "protocol", Value::string("grpc"));
            if (toStr(protocol, "protocol", a.loc) != "grpc")
              throwError(Code::kValueError,
                         "protocol must be \"grpc\", got '" + toStr(protocol, "protocol", a.loc) +
                             "'",
                         a.loc);
            bool start = ev.truthy(argOr(a, 4, "start", Value::boolean(true)), a.loc);
            return Value::object(makeServer(
                ev, std::move(cluster), job.isNone() ? "" : toStr(job, "job_name", a.loc),
                index.isNone() ? std::nullopt
                               : std::optional<int64_t>(toInt(index, "task_index", a.loc)),
                start, a.loc));
          }));
  env.set("create_local_cluster",
          Value::builtin("create_local_cluster", [](EvaluatorImpl &ev, CallArgs &a) {
            checkKeywords(a, "create_local_cluster", {"num_workers", "num_ps", "protocol"});
            int64_t workers = toInt(requireArg(a, 0, "num_workers", "create_local_cluster"),
                                    "num_workers", a.loc);
            int64_t ps = toInt(requireArg(a, 1, "num_ps", "create_local_cluster"), "num_ps",
                               a.loc);
            if (workers < 0 || ps < 0 || workers + ps > 64)
              throwError(Code::kValueError,
                         "create_local_cluster needs 0..64 tasks in all, got " +
                             std::to_string(workers) + " workers and " + std::to_string(ps) +
                             " ps",
                         a.loc);
            // Ports are picked free, but another process may take one
            // before its server binds it: then the whole cluster retries.
            for (int attempt = 0;; ++attempt) {
              rt::ClusterSpec cluster;
              auto addresses = [&](int64_t n) {
                std::vector<std::string> out;
                for (int64_t i = 0; i < n; ++i) {
                  auto port = ev.clusterHost(a.loc).pickFreePort();
                  if (!port.hasValue())
                    throwStatus(port.takeStatus(), a.loc);
                  out.push_back("localhost:" + std::to_string(*port));
                }
                return out;
              };
              cluster.addJob("worker", addresses(workers));
              if (ps > 0)
                cluster.addJob("ps", addresses(ps));
              try {
                List w, p;
                for (int64_t i = 0; i < workers; ++i)
                  w.push_back(Value::object(makeServer(ev, cluster, "worker", i, true, a.loc)));
                for (int64_t i = 0; i < ps; ++i)
                  p.push_back(Value::object(makeServer(ev, cluster, "ps", i, true, a.loc)));
                return Value::list({Value::list(std::move(w)), Value::list(std::move(p))});
              } catch (LangError &e) {
                if (e.status.code() != Code::kUnavailable || attempt >= 4)
                  throw;
              }
            }
          }));
}

} // namespace sluice::frontend
