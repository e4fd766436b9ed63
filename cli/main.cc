// cli/main.cc: the `sluice` tool: a dispatch over subcommands.
#include <iostream>

#include "cli/commands.h"
#include "support/settings.h"
#include "support/stop_signals.h"

int main(int argc, char **argv) {
  // Before any thread starts, so that every thread leaves the signals to
  // the one that stops servers cleanly.
  sluice::installStopSignals();
  // The environment is read here, once; nothing below calls getenv.
  sluice::setSettings(sluice::settingsFromEnvironment());
  CLI::App app{"sluice: a dataflow graph compiler and interpreter with TF1 semantics"};
  app.set_version_flag("--version", "sluice 0.1.0");
  app.require_subcommand(1);
  int exitCode = 0;
  sluice::cli::addRunCommand(app, exitCode);
  sluice::cli::addReplCommand(app, exitCode);
  sluice::cli::addCompileCommand(app, exitCode);
  sluice::cli::addTestCommand(app, exitCode);
  sluice::cli::addServeCommand(app, exitCode);
  sluice::cli::addLaunchCommand(app, exitCode);
  sluice::cli::addPlotCommand(app, exitCode);
  sluice::cli::addOpsCommand(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return 2; // usage errors
  }
  return exitCode;
}
