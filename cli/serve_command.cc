// cli/serve_command.cc: `sluice serve --cluster SPEC --job ps --task 0`: runs one
// task's gRPC server until SIGTERM or SIGINT.
#include <iostream>

#include "cli/cluster_flags.h"
#include "cli/commands.h"

namespace sluice::cli {

void addServeCommand(CLI::App &app, int &exitCode) {
  auto opts = std::make_shared<driver::ServeOptions>();
  CLI::App *cmd = app.add_subcommand("serve", "Serve one task of a cluster (a ps, or a worker "
                                              "other tasks place ops on) until stopped");
  addTaskFlags(*cmd, opts->taskFlags);
  addClusterFlags(*cmd, opts->clusterFlags);
  cmd->add_option("--cpus", opts->clusterFlags.cpus, "CPU devices this task offers")
      ->check(CLI::PositiveNumber);
  cmd->callback([opts, &exitCode] { exitCode = driver::serveTask(*opts, std::cout, std::cerr); });
}

} // namespace sluice::cli
