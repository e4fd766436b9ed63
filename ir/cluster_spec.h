// ir/cluster_spec.h: TF's ClusterSpec as plain data (job -> task index ->
// address) with its queries, its device names, and the TF_CONFIG rules of
// tf.estimator.RunConfig that say which task this process is.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace sluice::ir {

class ClusterSpec {
public:
  struct Job {
    std::map<int, std::string> tasks; // index -> "host:port"
    bool sparse = false;               // given as a dict {index: address}
  };

  /// Adds a job given as a dense list of addresses.
  void addJob(const std::string &name, const std::vector<std::string> &addresses);
  /// Adds a job given as {index: address} (indices may have gaps).
  void addSparseJob(const std::string &name, std::map<int, std::string> tasks);

  bool empty() const { return jobs_.empty(); }
  /// Job names, sorted (TF's ClusterDef order).
  std::vector<std::string> jobs() const;
  const std::map<std::string, Job> &jobMap() const { return jobs_; }
  bool hasJob(const std::string &job) const { return jobs_.count(job) > 0; }
  /// value_error "No such job in cluster: 'x'" for an unknown job.
  Expected<int> numTasks(const std::string &job) const;
  Expected<std::vector<int>> taskIndices(const std::string &job) const;
  /// value_error naming the job and index when there is no such task.
  Expected<std::string> taskAddress(const std::string &job, int index) const;
  /// Addresses by index, 0..max index, gaps as nullopt (TF's job_tasks).
  Expected<std::vector<std::optional<std::string>>> jobTasks(const std::string &job) const;
  /// A dense job equals the same job given as {0: .., 1: ..}.
  bool operator==(const ClusterSpec &o) const;

  /// Every task's devices, "/job:J/replica:0/task:T/device:CPU:i" for
  /// i < cpusPerTask, jobs in name order.
  std::vector<std::string> devices(int cpusPerTask) const;

private:
  std::map<std::string, Job> jobs_;
};

/// The cluster as JSON, dense jobs as lists, sparse ones as objects of
/// index -> address (clusterSpecFromJson reads it back).
std::string clusterSpecToJson(const ClusterSpec &c);

/// A cluster from JSON: {"ps": ["h:1", "h:2"], "worker": {"1": "h:3"}};
/// invalid_argument naming what is wrong.
Expected<ClusterSpec> clusterSpecFromJson(std::string_view json);

/// Which task this process is, and what tf.estimator.RunConfig derives.
struct TaskConfig {
  std::string type = "worker";
  int index = 0;
  bool isChief = true;
  ClusterSpec cluster;
  std::string master;     // "grpc://host:port", or "" (local / one task)
  int numPsReplicas = 0;
  int numWorkerReplicas = 1;
  std::string environment = "local";
};

/// TF_CONFIG: {"cluster": {...}, "task": {"type": t, "index": i},
/// "environment": "cloud"}; "" gives the local default (worker 0, chief).
/// value_error for what RunConfig rejects (no chief, two chiefs, a task
/// not in the cluster, ...).
Expected<TaskConfig> parseTfConfig(std::string_view json);

/// Builds the config for task `type:index` of `cluster` with the same
/// rules (the CLI's --cluster and --task), except that a cluster without
/// chief or master job makes worker 0 the chief (TF1's between-graph
/// convention), and an empty cluster takes the task as given.
Expected<TaskConfig> taskConfigFor(const ClusterSpec &cluster, const std::string &type,
                                   int index, const std::string &environment = "local");

} // namespace sluice::ir
