// cli/cluster_flags.cc
#include "cli/cluster_flags.h"

namespace sluice::cli {

void addTaskFlags(CLI::App &cmd, driver::TaskFlags &flags) {
  cmd.add_option("--cluster", flags.clusterFile,
                 "Cluster JSON ({\"ps\": [...], \"worker\": [...]}, or a whole TF_CONFIG), or "
                 "slurm[:JOB=N,...][,port_base=P] for the Slurm step's tasks");
  cmd.add_option("--job", flags.job, "This task's job (with --task INDEX)");
  cmd.add_option("--task", flags.task, "This task: JOB:INDEX, or INDEX with --job (binds `task`)");
}

void addClusterFlags(CLI::App &cmd, driver::ClusterFlags &flags) {
  cmd.add_option("--cluster-token", flags.tokenFile,
                 "File with the cluster's shared secret; calls without it are refused "
                 "(default: $SLUICE_CLUSTER_TOKEN)");
  cmd.add_option("--tls-cert", flags.tlsCert, "This task's TLS certificate (PEM)");
  cmd.add_option("--tls-key", flags.tlsKey, "Its private key (PEM)");
  cmd.add_option("--tls-ca", flags.tlsCa,
                 "CA that signs every task's certificate (PEM; turns on mutual TLS)");
  cmd.add_option("--wait-for-tasks", flags.waitForTasksSeconds,
                 "Seconds a session waits for a task to come up before `unavailable`")
      ->check(CLI::PositiveNumber);
}

} // namespace sluice::cli
