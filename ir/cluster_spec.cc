// ir/cluster_spec.cc: cluster queries, JSON reading, and RunConfig's
// TF_CONFIG rules (docs/tf1-semantics.md §7).
#include "ir/cluster_spec.h"

#include <charconv>

#include <nlohmann/json.hpp>

namespace sluice::ir {

namespace {

using json = nlohmann::json;

Status noJob(const std::string &job) {
  return valueError("No such job in cluster: '" + job + "'");
}

std::optional<int> parseIndex(const std::string &s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 0)
    return std::nullopt;
  return v;
}

Expected<ClusterSpec> clusterFromJson(const json &j, const std::string &what) {
  ClusterSpec c;
  if (j.is_null())
    return c;
  if (!j.is_object())
    return invalidArgument(what + " must be an object of job name -> addresses");
  for (const auto &[job, tasks] : j.items()) {
    if (job.empty())
      return invalidArgument(what + ": a job name is empty");
    if (tasks.is_array()) {
      std::vector<std::string> addrs;
      for (const json &a : tasks) {
        if (!a.is_string())
          return invalidArgument(what + ": job '" + job + "' lists a non-string address " +
                                 a.dump());
        addrs.push_back(a.get<std::string>());
      }
      c.addJob(job, addrs);
    } else if (tasks.is_object()) {
      std::map<int, std::string> byIndex;
      for (const auto &[k, a] : tasks.items()) {
        auto i = parseIndex(k);
        if (!i)
          return invalidArgument(what + ": job '" + job + "' has task index '" + k +
                                 "', which is not a non-negative integer");
        if (!a.is_string())
          return invalidArgument(what + ": job '" + job + "' task " + k +
                                 " has a non-string address " + a.dump());
        byIndex[*i] = a.get<std::string>();
      }
      c.addSparseJob(job, std::move(byIndex));
    } else {
      return invalidArgument(what + ": job '" + job +
                             "' must be a list of addresses or a dict of index -> address, got " +
                             tasks.dump());
    }
  }
  return c;
}

int jobSize(const ClusterSpec &c, const std::string &job) {
  auto n = c.numTasks(job);
  return n.hasValue() ? *n : 0;
}

// RunConfig's _validate_task_type_and_task_id.
Status validateTask(const ClusterSpec &c, const std::string &type, int index) {
  if (type.empty())
    return valueError("If \"cluster\" is set in TF_CONFIG, it must have one \"task\" \"type\"");
  if (index < 0)
    return valueError("task index must be >= 0, not " + std::to_string(index));
  if (type == "evaluator")
    return Status::ok();
  if (!c.hasJob(type)) {
    std::string jobs;
    for (const std::string &j : c.jobs())
      jobs += (jobs.empty() ? "" : ", ") + j;
    return valueError(type + " is not a valid task_type in the cluster_spec (jobs: " + jobs + ")");
  }
  if (!c.taskAddress(type, index).hasValue())
    return valueError(std::to_string(index) + " is not a valid task_id for task_type " + type +
                      " in the cluster_spec");
  return Status::ok();
}

Expected<TaskConfig> configure(const ClusterSpec &c, const std::string &type,
                               std::optional<int> index, const std::string &environment,
                               bool legacyAllowed) {
  TaskConfig t;
  t.environment = environment;
  if (c.empty()) {
    // Local mode: only worker 0, the chief.
    t.type = type.empty() ? "worker" : type;
    t.index = index.value_or(0);
    if (t.type != "worker")
      return valueError("If \"cluster\" is not set in TF_CONFIG, task type must be worker, not '" +
                        t.type + "'");
    if (t.index != 0)
      return valueError("If \"cluster\" is not set in TF_CONFIG, task index must be 0, not " +
                        std::to_string(t.index));
    return t;
  }
  if (!index)
    return valueError("If \"cluster\" is set in TF_CONFIG, it must have one \"task\" \"index\"");
  SLUICE_TRY(validateTask(c, type, *index));
  t.type = type;
  t.index = *index;
  bool hasMaster = c.hasJob("master"), hasChief = c.hasJob("chief");
  if (type == "evaluator") {
    if (hasMaster)
      return valueError("If `master` node exists in `cluster`, task_type `evaluator` is not "
                        "supported.");
    // The evaluator is outside the training cluster.
    t.isChief = false;
    t.numPsReplicas = 0;
    t.numWorkerReplicas = 0;
    return t;
  }
  t.cluster = c;
  t.numPsReplicas = jobSize(c, "ps");
  if (hasMaster) {
    if (hasChief)
      return valueError("If `master` node exists in `cluster`, job `chief` is not supported.");
    t.isChief = type == "master";
    t.numWorkerReplicas = jobSize(c, "worker") + jobSize(c, "master");
  } else if (hasChief) {
    if (jobSize(c, "chief") != 1)
      return valueError("The \"cluster\" in TF_CONFIG must have only one \"chief\" node.");
    t.isChief = type == "chief";
    t.numWorkerReplicas = jobSize(c, "worker") + 1;
  } else if (legacyAllowed) {
    // contrib.learn's RunConfig: the chief depends on the environment.
    t.isChief = environment == "cloud" ? type == "master" && *index == 0
                                       : type == "worker" && *index == 0;
    t.numWorkerReplicas = jobSize(c, "worker");
  } else {
    return valueError("If \"cluster\" is set in TF_CONFIG, it must have one \"chief\" node.");
  }
  std::vector<std::string> jobs = c.jobs();
  bool oneTask = jobs.size() == 1 && jobSize(c, jobs[0]) == 1;
  t.master = oneTask ? "" : "grpc://" + *c.taskAddress(type, *index);
  return t;
}

} // namespace

void ClusterSpec::addJob(const std::string &name, const std::vector<std::string> &addresses) {
  Job j;
  for (size_t i = 0; i < addresses.size(); ++i)
    j.tasks[static_cast<int>(i)] = addresses[i];
  jobs_[name] = std::move(j);
}

void ClusterSpec::addSparseJob(const std::string &name, std::map<int, std::string> tasks) {
  Job j;
  j.tasks = std::move(tasks);
  j.sparse = true;
  jobs_[name] = std::move(j);
}

std::vector<std::string> ClusterSpec::jobs() const {
  std::vector<std::string> out;
  for (const auto &[name, j] : jobs_)
    out.push_back(name);
  return out;
}

Expected<int> ClusterSpec::numTasks(const std::string &job) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end())
    return noJob(job);
  return static_cast<int>(it->second.tasks.size());
}

Expected<std::vector<int>> ClusterSpec::taskIndices(const std::string &job) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end())
    return noJob(job);
  std::vector<int> out;
  for (const auto &[i, a] : it->second.tasks)
    out.push_back(i);
  return out;
}

Expected<std::string> ClusterSpec::taskAddress(const std::string &job, int index) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end())
    return noJob(job);
  auto t = it->second.tasks.find(index);
  if (t == it->second.tasks.end())
    return valueError("No task with index " + std::to_string(index) + " in job '" + job + "'");
  return t->second;
}

Expected<std::vector<std::optional<std::string>>>
ClusterSpec::jobTasks(const std::string &job) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end())
    return noJob(job);
  std::vector<std::optional<std::string>> out;
  if (!it->second.tasks.empty())
    out.resize(static_cast<size_t>(it->second.tasks.rbegin()->first) + 1);
  for (const auto &[i, a] : it->second.tasks)
    out[static_cast<size_t>(i)] = a;
  return out;
}

bool ClusterSpec::operator==(const ClusterSpec &o) const {
  if (jobs_.size() != o.jobs_.size())
    return false;
  for (const auto &[name, j] : jobs_) {
    auto it = o.jobs_.find(name);
    if (it == o.jobs_.end() || it->second.tasks != j.tasks)
      return false;
  }
  return true;
}

std::vector<std::string> ClusterSpec::devices(int cpusPerTask) const {
  std::vector<std::string> out;
  for (const auto &[name, j] : jobs_)
    for (const auto &[i, a] : j.tasks)
      for (int c = 0; c < cpusPerTask; ++c)
        out.push_back("/job:" + name + "/replica:0/task:" + std::to_string(i) + "/device:CPU:" +
                      std::to_string(c));
  return out;
}

std::string clusterSpecToJson(const ClusterSpec &c) {
  json j = json::object();
  for (const auto &[name, job] : c.jobMap()) {
    bool dense = job.tasks.empty() || job.tasks.rbegin()->first + 1 == int(job.tasks.size());
    if (dense) {
      json list = json::array();
      for (const auto &[i, a] : job.tasks)
        list.push_back(a);
      j[name] = list;
    } else {
      json byIndex = json::object();
      for (const auto &[i, a] : job.tasks)
        byIndex[std::to_string(i)] = a;
      j[name] = byIndex;
    }
  }
  return j.dump();
}

Expected<ClusterSpec> clusterSpecFromJson(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    return invalidArgument("the cluster spec is not valid JSON");
  return clusterFromJson(j, "the cluster spec");
}

Expected<TaskConfig> parseTfConfig(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return TaskConfig{};
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    return valueError("TF_CONFIG is not valid JSON");
  if (!j.is_object())
    return valueError("TF_CONFIG must be a JSON object, got " + j.dump());
  auto cluster = clusterFromJson(j.value("cluster", json()), "TF_CONFIG \"cluster\"");
  if (!cluster.hasValue())
    return valueError(cluster.status().message());
  std::string type;
  std::optional<int> index;
  if (j.contains("task")) {
    const json &task = j["task"];
    if (!task.is_object())
      return valueError("TF_CONFIG \"task\" must be an object, got " + task.dump());
    if (task.contains("type")) {
      if (!task["type"].is_string())
        return valueError("TF_CONFIG task \"type\" must be a string, got " + task["type"].dump());
      type = task["type"].get<std::string>();
    }
    if (task.contains("index")) {
      const json &i = task["index"];
      // RunConfig takes int(index): a number or a numeric string.
      std::optional<int> v;
      if (i.is_number_integer())
        v = i.get<int>();
      else if (i.is_string() && parseIndex(i.get<std::string>()))
        v = parseIndex(i.get<std::string>());
      if (!v)
        return valueError("TF_CONFIG task \"index\" must be an integer, got " + i.dump());
      index = *v;
    }
  }
  std::string environment = "local";
  bool legacy = j.contains("environment");
  if (legacy) {
    if (!j["environment"].is_string())
      return valueError("TF_CONFIG \"environment\" must be a string, got " +
                        j["environment"].dump());
    environment = j["environment"].get<std::string>();
  }
  SLUICE_ASSIGN_OR_RETURN(TaskConfig t, configure(*cluster, type, index, environment, legacy));
  if (j.contains("session_master") && j["session_master"].is_string())
    t.master = j["session_master"].get<std::string>();
  return t;
}

Expected<TaskConfig> taskConfigFor(const ClusterSpec &cluster, const std::string &type,
                                   int index, const std::string &environment) {
  if (!cluster.empty())
    return configure(cluster, type, index, environment, true);
  // No cluster to check against: the task is taken as given.
  if (type.empty() || index < 0)
    return valueError("a task is JOB:INDEX with a non-negative index");
  TaskConfig t;
  t.type = type;
  t.index = index;
  t.environment = environment;
  t.isChief = type == "chief" || type == "master" || (type == "worker" && index == 0);
  return t;
}

} // namespace sluice::ir
