// bench/timed_program.h: runs a generated .sluice program through
// frontend::runProgram (the path `sluice run` takes) and times the span
// between the lines it prints "START" and "END", so set-up (parsing, graph
// building, the first compile) stays out of the figure.
#pragma once

#include <chrono>
#include <optional>
#include <streambuf>
#include <string>
#include <vector>

namespace sluice::bench {

using Clock = std::chrono::steady_clock;

/// An output stream buffer that remembers when each line ended.
class StampedLines : public std::streambuf {
public:
  struct Line {
    std::string text;
    Clock::time_point at;
  };
  std::vector<Line> lines;

protected:
  int overflow(int c) override;
  std::streamsize xsputn(const char *s, std::streamsize n) override;

private:
  std::string cur_;
};

struct TimedRun {
  double seconds = 0;             // START to END
  std::vector<std::string> after; // the lines printed after END
};

/// Writes `source` to a temporary file and runs it; nullopt (with the
/// program's errors on stderr, labelled `what`) when it fails or prints no
/// START/END pair.
std::optional<TimedRun> runTimed(const std::string &source, const std::string &what);

double median(std::vector<double> v);

} // namespace sluice::bench
