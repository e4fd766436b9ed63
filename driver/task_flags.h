// driver/task_flags.h: from the command line (--cluster, --job, --task,
// TF_CONFIG, --cluster-token, --tls-*) to the task `task` is bound to and
// the process's cluster host.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>

#include "runtime/distributed/cluster_host.h"
#include "driver/driver.h"
#include "tflib/cluster/tf_config.h"

namespace sluice::driver {

/// A --cluster file: a cluster spec, or a whole TF_CONFIG (which also
/// names a task).
struct ClusterFile {
  rt::ClusterSpec cluster;
  std::optional<tflib::TaskConfig> tfConfig;
};
Expected<ClusterFile> loadClusterFile(const std::string &path);

/// The task `task` is bound to; exit code 2 (usage) or 1 (bad cluster or
/// TF_CONFIG) with the message on `err` when it cannot be resolved.
std::optional<tflib::TaskConfig> resolveTask(const TaskFlags &flags, std::ostream &err, int &code);

/// True when `task` is a member of its cluster (it has a server to run).
bool servesInCluster(const tflib::TaskConfig &task);

/// The process's cluster host from the flags (token file or
/// $SLUICE_CLUSTER_TOKEN, TLS files); null with exit code 1 and the
/// message on `err` when a file cannot be used.
std::shared_ptr<dist::GrpcClusterHost> makeClusterHost(const ClusterFlags &flags,
                                                       std::ostream &err, int &code);

/// A cluster host with no token, TLS or task of its own, for evaluators
/// that were given no flags (compile, test, the REPL, the C++ API): a
/// program may still start servers and connect sessions to them.
std::shared_ptr<rt::ClusterHost> defaultClusterHost(std::ostream *log);

} // namespace sluice::driver
