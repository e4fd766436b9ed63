// frontend/eval/builtins_cluster.cc: cluster_spec(...), parse_tf_config(...)
// and the values behind `task` (docs/tf1-semantics.md §7).
#include "frontend/eval/cluster_objects.h"

namespace sluice::frontend {

namespace {

Value optionalString(const std::optional<std::string> &s) {
  return s ? Value::string(*s) : Value::none();
}

std::string jobArg(CallArgs &a, const char *fn) {
  return toStr(requireArg(a, 0, "job_name", fn), "job_name", a.loc);
}

template <typename T> T orThrow(Expected<T> e, const SourceLoc &loc) {
  if (!e.hasValue())
    throwStatus(e.takeStatus(), loc);
  return std::move(*e);
}

} // namespace

rt::ClusterSpec toClusterSpec(EvaluatorImpl &ev, const Value &v, const SourceLoc &loc) {
  if (v.isNone())
    return {};
  if (auto c = v.objectAs<ClusterSpecObject>())
    return c->spec;
  if (!v.is(Value::kDict))
    throwError(Code::kTypeError,
               "`cluster` must be a dictionary mapping one or more job names to lists of network "
               "addresses, got " + v.typeName(),
               loc);
  rt::ClusterSpec spec;
  for (const auto &[k, tasks] : v.asDict()->items) {
    std::string job = toStr(k, "job name", loc);
    if (tasks.isSequence()) {
      std::vector<std::string> addrs;
      for (const Value &a : *tasks.asList())
        addrs.push_back(toStr(a, "address of a task of job '" + job + "'", loc));
      spec.addJob(job, addrs);
    } else if (tasks.is(Value::kDict)) {
      std::map<int, std::string> byIndex;
      for (const auto &[i, a] : tasks.asDict()->items) {
        if (!i.is(Value::kInt) || i.asInt() < 0)
          throwError(Code::kTypeError,
                     "The tasks for job '" + job +
                         "' must be a list or a dictionary from integers to strings; key " +
                         ev.repr(i, true) + " is not a task index",
                     loc);
        byIndex[static_cast<int>(i.asInt())] =
            toStr(a, "address of task " + std::to_string(i.asInt()) + " of job '" + job + "'",
                  loc);
      }
      spec.addSparseJob(job, std::move(byIndex));
    } else {
      throwError(Code::kTypeError,
                 "The tasks for job '" + job +
                     "' must be a list or a dictionary from integers to strings, got " +
                     tasks.typeName(),
                 loc);
    }
  }
  return spec;
}

std::optional<Value> ClusterSpecObject::getAttr(EvaluatorImpl &, const std::string &name) {
  auto self = std::static_pointer_cast<ClusterSpecObject>(shared_from_this());
  const rt::ClusterSpec &c = spec;
  if (name == "jobs") {
    List jobs;
    for (const std::string &j : c.jobs())
      jobs.push_back(Value::string(j));
    return Value::list(std::move(jobs));
  }
  if (name == "as_dict")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &) {
      // Dense jobs (indices 0..n-1) come back as lists, others as dicts.
      auto d = std::make_shared<Dict>();
      for (const auto &[job, j] : self->spec.jobMap()) {
        bool dense = j.tasks.empty() || j.tasks.rbegin()->first + 1 == int(j.tasks.size());
        if (dense && !j.tasks.empty()) {
          List addrs;
          for (const auto &[i, a] : j.tasks)
            addrs.push_back(Value::string(a));
          d->set(Value::string(job), Value::list(std::move(addrs)));
        } else {
          auto byIndex = std::make_shared<Dict>();
          for (const auto &[i, a] : j.tasks)
            byIndex->set(Value::integer(i), Value::string(a));
          d->set(Value::string(job), Value::dict(byIndex));
        }
      }
      return Value::dict(d);
    });
  if (name == "num_tasks")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &a) {
      return Value::integer(orThrow(self->spec.numTasks(jobArg(a, "num_tasks")), a.loc));
    });
  if (name == "task_indices")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &a) {
      List out;
      for (int i : orThrow(self->spec.taskIndices(jobArg(a, "task_indices")), a.loc))
        out.push_back(Value::integer(i));
      return Value::list(std::move(out));
    });
  if (name == "task_address")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &a) {
      std::string job = jobArg(a, "task_address");
      int index = static_cast<int>(
          toInt(requireArg(a, 1, "task_index", "task_address"), "task_index", a.loc));
      return Value::string(orThrow(self->spec.taskAddress(job, index), a.loc));
    });
  if (name == "job_tasks")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &a) {
      List out;
      for (const auto &t : orThrow(self->spec.jobTasks(jobArg(a, "job_tasks")), a.loc))
        out.push_back(optionalString(t));
      return Value::list(std::move(out));
    });
  return std::nullopt;
}

std::string ClusterSpecObject::repr() const {
  std::string s = "cluster_spec({";
  bool firstJob = true;
  for (const auto &[job, j] : spec.jobMap()) {
    s += (firstJob ? "\"" : ", \"") + job + "\": {";
    firstJob = false;
    bool first = true;
    for (const auto &[i, a] : j.tasks) {
      s += (first ? "" : ", ") + std::to_string(i) + ": \"" + a + "\"";
      first = false;
    }
    s += "}";
  }
  return s + "})";
}

bool ClusterSpecObject::equalsObject(const Object &o) const {
  auto *other = dynamic_cast<const ClusterSpecObject *>(&o);
  return other && spec == other->spec;
}

std::optional<Value> TaskObject::getAttr(EvaluatorImpl &, const std::string &name) {
  const tflib::TaskConfig &c = config;
  if (name == "type")
    return Value::string(c.type);
  if (name == "index")
    return Value::integer(c.index);
  if (name == "is_chief")
    return Value::boolean(c.isChief);
  if (name == "cluster")
    return Value::object(std::make_shared<ClusterSpecObject>(c.cluster));
  if (name == "master")
    return Value::string(c.master);
  if (name == "num_ps_replicas")
    return Value::integer(c.numPsReplicas);
  if (name == "num_worker_replicas")
    return Value::integer(c.numWorkerReplicas);
  if (name == "environment")
    return Value::string(c.environment);
  return std::nullopt;
}

void installClusterBuiltins(EvaluatorImpl &ev, Env &env) {
  env.set("cluster_spec", Value::builtin("cluster_spec", [](EvaluatorImpl &ev, CallArgs &a) {
            checkKeywords(a, "cluster_spec", {"cluster"});
            Value v = argOr(a, 0, "cluster", Value::none());
            return Value::object(std::make_shared<ClusterSpecObject>(toClusterSpec(ev, v, a.loc)));
          }));
  env.set("parse_tf_config",
          Value::builtin("parse_tf_config", [](EvaluatorImpl &, CallArgs &a) {
            checkKeywords(a, "parse_tf_config", {"tf_config"});
            std::string text = toStr(requireArg(a, 0, "tf_config", "parse_tf_config"),
                                     "tf_config", a.loc);
            return Value::object(
                std::make_shared<TaskObject>(orThrow(tflib::parseTfConfig(text), a.loc)));
          }));
  env.set("task", Value::object(std::make_shared<TaskObject>(
                      ev.opts.task ? *ev.opts.task : tflib::TaskConfig{})));
}

} // namespace sluice::frontend
