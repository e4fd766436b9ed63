// cli/test.cc: `sluice test FILE|DIR...`: runs `test` blocks.
#include <iostream>

#include "cli/commands.h"
#include "frontend/driver.h"

namespace sluice::cli {

void addTestCommand(CLI::App &app, int &exitCode) {
  auto opts = std::make_shared<frontend::TestOptions>();
  CLI::App *cmd = app.add_subcommand("test", "Run the test blocks of graph files");
  cmd->add_option("paths", opts->paths, "Files or directories of .sluice files")->required();
  cmd->add_option("--filter", opts->filter, "Run only tests whose 'file: name' contains this");
  cmd->add_flag("--json", opts->json, "Print each printed value as one JSON line");
  cmd->add_flag("--list", opts->list, "List the tests ('file: name', after --filter); run none");
  cmd->add_option("--junit", opts->junit, "Also write the results as JUnit XML to FILE");
  cmd->add_option("--backend", opts->backend,
                  "What runs fused clusters: jit (compiled with LLVM, the default) or interp "
                  "(their ops one by one); config_proto(backend:) overrides it")
      ->check(CLI::IsMember({"interp", "jit"}));
  cmd->callback([opts, &exitCode] {
    exitCode = frontend::runTests(*opts, std::cout, std::cerr);
  });
}

} // namespace sluice::cli
