// cli/cluster_flags.h: the flags every cluster-aware command shares.
#pragma once

#include <CLI/CLI.hpp>

#include "driver/driver.h"

namespace sluice::cli {

/// --cluster, --job, --task.
void addTaskFlags(CLI::App &cmd, driver::TaskFlags &flags);
/// --cluster-token, --tls-cert/--tls-key/--tls-ca, --wait-for-tasks.
void addClusterFlags(CLI::App &cmd, driver::ClusterFlags &flags);

} // namespace sluice::cli
