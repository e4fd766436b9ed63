// cli/launch_command.cc: `sluice launch FILE --ps N --workers M`: every task of a
// cluster on this machine (frontend/launch.h).
#include <iostream>

#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "driver/launch.h"
#include "support/subprocess.h"

namespace sluice::cli {

void addLaunchCommand(CLI::App &app, int &exitCode) {
  auto opts = std::make_shared<driver::LaunchOptions>();
  auto sets = std::make_shared<std::vector<std::string>>();
  CLI::App *cmd = app.add_subcommand(
      "launch", "Run a graph file as a whole cluster on this machine: ps tasks serve, every "
                "worker runs the file; merged, task-prefixed logs");
  cmd->add_option("file", opts->file, "The .sluice file every worker runs")->required();
  cmd->add_option("--ps", opts->ps, "Parameter-server tasks (default 1)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--workers", opts->workers, "Worker tasks; worker 0 is the chief (default 2)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--cluster", opts->clusterFile,
                  "Start the tasks of this cluster JSON instead (its addresses must be this "
                  "machine's)")
      ->excludes("--ps")
      ->excludes("--workers");
  cmd->add_option("-C", opts->workDir, "Workers change to DIR before running");
  cmd->add_option("--set", *sets, "Bind NAME=VALUE as a global in every worker");
  cmd->add_flag("--json", opts->json, "Workers print each printed value as one JSON line");
  cmd->add_flag("--Werror", opts->werror, "Treat pipeline warnings as errors");
  cmd->add_flag("--keep-going", opts->keepGoing,
                "A non-chief worker that fails does not end the job");
  cmd->add_option("--grace", opts->graceSeconds,
                  "Seconds the other workers have to finish once the chief has (default 30)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--cpus", opts->clusterFlags.cpus, "CPU devices per ps task")
      ->check(CLI::PositiveNumber);
  addClusterFlags(*cmd, opts->clusterFlags);
  cmd->callback([opts, sets, &exitCode] {
    opts->sets = splitSetFlags(*sets);
    auto exe = currentExecutable();
    if (!exe.hasValue()) {
      std::cerr << "sluice: error: " << exe.status().message() << "\n";
      exitCode = 1;
      return;
    }
    opts->executable = *exe;
    exitCode = driver::launchCluster(*opts, std::cout, std::cerr);
  });
}

} // namespace sluice::cli
