// tflib/cluster/tf_config.h: which task of a cluster this process is, by
// the TF_CONFIG rules of tf.estimator.RunConfig (docs/tf1-semantics.md §7).
#pragma once

#include <string>
#include <string_view>

#include "runtime/cluster_spec.h"
#include "support/status.h"

namespace sluice::tflib {

using rt::ClusterSpec;

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

} // namespace sluice::tflib
