// driver/plot.h: `sluice plot LOGDIR`: the scalar curves of a log
// directory's metrics.jsonl, drawn by gnuplot.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace sluice::driver {

struct PlotOptions {
  std::string logdir;
  std::string output = "scalars.svg"; // .svg, .png, .pdf or .txt (ASCII art)
  std::vector<std::string> tags;      // empty: every tag
  std::string title;                  // empty: the log directory
  bool logY = false;
};

/// Reads LOGDIR/metrics.jsonl (a step logged twice, as after a restart,
/// keeps its last value), writes gnuplot's data and script to a temporary
/// directory and runs gnuplot. 0 on success, 1 with a message on `err`.
int plotScalars(const PlotOptions &opts, std::ostream &out, std::ostream &err);

} // namespace sluice::driver
