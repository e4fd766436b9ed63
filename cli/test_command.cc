// cli/test_command.cc: `sluice test FILE|DIR...`: runs `test` blocks.
#include <iostream>

#include "cli/commands.h"
#include "driver/driver.h"

namespace sluice::cli {

void addTestCommand(CLI::App &app, int &exitCode) {
  auto opts = std::make_shared<driver::TestOptions>();
  CLI::App *cmd = app.add_subcommand("test", "Run the test blocks of graph files");
  cmd->add_option("paths", opts->paths, "Files or directories of .sluice files")->required();
  cmd->add_option("--filter", opts->filter, "Run only tests whose 'file: name' contains this");
  cmd->add_flag("--json", opts->json, "Print each printed value as one JSON line");
  cmd->add_flag("--list", opts->list, "List the tests ('file: name', after --filter); run none");
  cmd->add_option("--junit", opts->junit, "Also write the results as JUnit XML to FILE");
  cmd->add_option("-j,--jobs", opts->jobs,
                  "Run N tests at once, each in a process of its own (default 1: all in this one)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--timeout", opts->timeoutSeconds,
                  "Fail a test that runs longer than SECONDS (each test then runs in its own process)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--update-golden", opts->updateGolden,
                "Write the files of expect_golden(value, path) instead of comparing with them");
  // The isolated runner's children run one test each; not for users.
  cmd->add_option("--only-test", opts->onlyTest, "Run only the test with this exact name")
      ->group("");
  addBackendFlag(*cmd, opts->backend);
  cmd->callback([opts, &exitCode] {
    exitCode = driver::runTests(*opts, std::cout, std::cerr);
  });
}

} // namespace sluice::cli
