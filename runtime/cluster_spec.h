// runtime/cluster_spec.h: TF's ClusterSpec as plain data (job -> task index
// -> address) with its queries and its device names: what a task's server
// needs to know of its peers. Which task a process is (TF_CONFIG, Slurm)
// is tflib/cluster/'s.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace sluice::rt {

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

/// A cluster from JSON: {"ps": ["h:1", "h:2"], "worker": {"1": "h:3"}}
/// (null: an empty cluster); invalid_argument naming `what` and what is
/// wrong.
Expected<ClusterSpec> clusterSpecFromJson(std::string_view json,
                                          const std::string &what = "the cluster spec");

/// A task index as TF writes it in JSON keys ("0", "12"); none for
/// anything else.
std::optional<int> parseTaskIndex(std::string_view text);

} // namespace sluice::rt
