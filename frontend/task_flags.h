// frontend/task_flags.h: from the command line (--cluster, --job, --task,
// TF_CONFIG, --cluster-token, --tls-*) to the task `task` is bound to and
// the process's ClusterHost.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>

#include "frontend/cluster_host.h"
#include "frontend/driver.h"
#include "ir/cluster_spec.h"

namespace sluice::frontend {

/// A --cluster file: a cluster spec, or a whole TF_CONFIG (which also
/// names a task).
struct ClusterFile {
  ir::ClusterSpec cluster;
  std::optional<ir::TaskConfig> tfConfig;
};
Expected<ClusterFile> loadClusterFile(const std::string &path);

/// The task `task` is bound to; exit code 2 (usage) or 1 (bad cluster or
/// TF_CONFIG) with the message on `err` when it cannot be resolved.
std::optional<ir::TaskConfig> resolveTask(const TaskFlags &flags, std::ostream &err, int &code);

/// True when `task` is a member of its cluster (it has a server to run).
bool servesInCluster(const ir::TaskConfig &task);

/// The process's ClusterHost from the flags (token file or
/// $SLUICE_CLUSTER_TOKEN, TLS files); null with exit code 1 and the
/// message on `err` when a file cannot be used.
std::shared_ptr<ClusterHost> makeClusterHost(const ClusterFlags &flags, std::ostream &err,
                                             int &code);

} // namespace sluice::frontend
