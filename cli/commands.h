// cli/commands.h: each subcommand adds its flags to the app and runs one
// library call; the result is stored in `exitCode`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace sluice::cli {

void addRunCommand(CLI::App &app, int &exitCode);
void addCompileCommand(CLI::App &app, int &exitCode);
void addTestCommand(CLI::App &app, int &exitCode);
void addServeCommand(CLI::App &app, int &exitCode);
void addPlotCommand(CLI::App &app, int &exitCode);
void addLaunchCommand(CLI::App &app, int &exitCode);
void addReplCommand(CLI::App &app, int &exitCode);
void addOpsCommand(CLI::App &app, int &exitCode);

/// `--backend jit|interp`, shared by run, test and repl.
void addBackendFlag(CLI::App &cmd, std::string &backend);

} // namespace sluice::cli
