// cli/commands.h: each subcommand adds its flags to the app and runs one
// library call; the result is stored in `exitCode`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

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

/// `--set NAME=VALUE` values split at the first '='; a usage error
/// (CLI::ValidationError) for one without a name or '='.
std::vector<std::pair<std::string, std::string>> splitSetFlags(const std::vector<std::string> &sets);

} // namespace sluice::cli
