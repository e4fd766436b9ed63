// cli/run_command.cc: `sluice run FILE`: evaluates a program and runs its sessions.
#include <iostream>

#include "cli/cluster_flags.h"
#include "cli/commands.h"
#include "driver/driver.h"

namespace sluice::cli {

void addRunCommand(CLI::App &app, int &exitCode) {
  auto opts = std::make_shared<driver::RunProgramOptions>();
  auto sets = std::make_shared<std::vector<std::string>>();
  CLI::App *cmd = app.add_subcommand("run", "Build a graph file's graph and run its session blocks");
  cmd->add_option("-C", opts->workDir, "Change to DIR before running");
  cmd->add_option("file", opts->file, "The .sluice file (- reads it from standard input)")->required();
  cmd->add_option("--set", *sets, "Bind NAME=VALUE as a global before running");
  cmd->add_flag("--json", opts->json, "Print each printed value as one JSON line");
  cmd->add_flag("--Werror", opts->werror, "Treat pipeline warnings as errors");
  cmd->add_flag("--one-device", opts->oneDevice,
                "Run every node on the first CPU, ignoring device requests");
  addBackendFlag(*cmd, opts->backend);
  addTaskFlags(*cmd, opts->taskFlags);
  addClusterFlags(*cmd, opts->clusterFlags);
  cmd->callback([opts, sets, &exitCode] {
    opts->sets = splitSetFlags(*sets);
    exitCode = driver::runProgram(*opts, std::cout, std::cerr);
  });
}

std::vector<std::pair<std::string, std::string>> splitSetFlags(const std::vector<std::string> &sets) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string &s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw CLI::ValidationError("--set", "expected NAME=VALUE, got '" + s + "'");
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

void addBackendFlag(CLI::App &cmd, std::string &backend) {
  cmd.add_option("--backend", backend,
                 "What runs fused clusters: jit (compiled with LLVM, the default) or interp "
                 "(their ops one by one); config_proto(backend:) overrides it")
      ->check(CLI::IsMember({"interp", "jit"}));
}

} // namespace sluice::cli
