// tflib/cluster/tf_config.cc: RunConfig's TF_CONFIG rules
// (docs/tf1-semantics.md §7).
#include "tflib/cluster/tf_config.h"

#include <optional>

#include <nlohmann/json.hpp>

namespace sluice::tflib {

namespace {

using json = nlohmann::json;

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

Expected<TaskConfig> parseTfConfig(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return TaskConfig{};
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    return valueError("TF_CONFIG is not valid JSON");
  if (!j.is_object())
    return valueError("TF_CONFIG must be a JSON object, got " + j.dump());
  auto cluster =
      rt::clusterSpecFromJson(j.value("cluster", json()).dump(), "TF_CONFIG \"cluster\"");
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
      else if (i.is_string() && rt::parseTaskIndex(i.get<std::string>()))
        v = rt::parseTaskIndex(i.get<std::string>());
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

} // namespace sluice::tflib
