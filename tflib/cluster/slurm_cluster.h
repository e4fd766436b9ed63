// tflib/cluster/slurm_cluster.h: the cluster of a Slurm job step, as TF's
// SlurmClusterResolver derives it: one task per Slurm task, ranks handed
// to the jobs in the order given, each task on its node's host at
// port_base + its index among the tasks on that node; this process is the
// task of rank SLURM_PROCID. So the same file runs under `srun`.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tflib/cluster/tf_config.h"

namespace sluice::tflib {

struct SlurmOptions {
  /// Job name and task count, in rank order; empty: every task a worker.
  std::vector<std::pair<std::string, int>> jobs;
  int portBase = 8888; // TF's default
};

/// Parses the --cluster form "slurm", "slurm:ps=1,worker=3" or
/// "slurm:ps=1,worker=3,port_base=9000".
Expected<SlurmOptions> parseSlurmSpec(const std::string &spec);

/// Expands a Slurm hostlist: "node[01-03,7],login" -> node01 node02
/// node03 node7 login.
Expected<std::vector<std::string>> expandHostlist(const std::string &list);
/// Expands SLURM_TASKS_PER_NODE: "2(x3),1" -> 2 2 2 1.
Expected<std::vector<int>> expandTasksPerNode(const std::string &counts);

/// This process's task from the Slurm environment (SLURM_PROCID,
/// SLURM_STEP_NUM_TASKS or SLURM_NTASKS, SLURM_STEP_NODELIST or
/// SLURM_JOB_NODELIST, SLURM_STEP_TASKS_PER_NODE or SLURM_TASKS_PER_NODE);
/// invalid_argument naming the variable that is missing or malformed.
Expected<TaskConfig> slurmTaskConfig(const std::map<std::string, std::string> &env,
                                     const SlurmOptions &opts);

} // namespace sluice::tflib
