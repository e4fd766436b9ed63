// cli/ops_command.cc: `sluice ops [NAME] [--markdown] [-o FILE]`: the op
// reference generated from the registry.
#include <iostream>

#include "cli/commands.h"
#include "driver/ops.h"

namespace sluice::cli {

void addOpsCommand(CLI::App &app, int &exitCode) {
  auto opts = std::make_shared<driver::OpsOptions>();
  CLI::App *cmd = app.add_subcommand(
      "ops", "List the ops: TF names, gradients, kernels (NAME: one op in detail)");
  cmd->add_option("name", opts->op, "One op, in detail (signature, dtypes, attrs, kernels)");
  auto *md = cmd->add_flag("--markdown", opts->markdown,
                           "Every op as Markdown (what docs/reference/ops.md holds)");
  cmd->add_option("-o,--output", opts->output, "Write to this file (atomically), not stdout");
  md->excludes(cmd->get_option("name"));
  cmd->callback([opts, &exitCode] { exitCode = driver::showOps(*opts, std::cout, std::cerr); });
}

} // namespace sluice::cli
