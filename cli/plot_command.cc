// cli/plot_command.cc: `sluice plot LOGDIR -o loss.svg`: draws the scalar summaries.
#include <iostream>

#include "cli/commands.h"
#include "driver/plot.h"

namespace sluice::cli {

void addPlotCommand(CLI::App &app, int &exitCode) {
  auto opts = std::make_shared<driver::PlotOptions>();
  CLI::App *cmd = app.add_subcommand("plot", "Draw the scalar curves of a log directory (gnuplot)");
  cmd->add_option("logdir", opts->logdir, "A supervised session's logdir (its metrics.jsonl)")
      ->required();
  cmd->add_option("-o,--output", opts->output, "The picture: .svg, .png, .pdf or .txt");
  cmd->add_option("--tag", opts->tags, "Only these tags (repeatable)");
  cmd->add_option("--title", opts->title, "The title (default: the log directory)");
  cmd->add_flag("--log-y", opts->logY, "A logarithmic value axis");
  cmd->callback([opts, &exitCode] { exitCode = driver::plotScalars(*opts, std::cout, std::cerr); });
}

} // namespace sluice::cli
