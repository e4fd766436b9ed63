// bench/timed_program.cc: the timed program runner shared by the benches.
#include "bench/timed_program.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "driver/driver.h"

namespace sluice::bench {

int StampedLines::overflow(int c) {
  if (c == traits_type::eof())
    return 0;
  if (c == '\n') {
    lines.push_back({cur_, Clock::now()});
    cur_.clear();
  } else {
    cur_.push_back(static_cast<char>(c));
  }
  return c;
}

std::streamsize StampedLines::xsputn(const char *s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i)
    overflow(static_cast<unsigned char>(s[i]));
  return n;
}

std::optional<TimedRun> runTimed(const std::string &source, const std::string &what) {
  namespace fs = std::filesystem;
  fs::path src = fs::temp_directory_path() /
                 ("sluice_bench_" + std::to_string(::getpid()) + ".sluice");
  {
    std::ofstream out(src);
    out << source;
  }
  StampedLines buf;
  std::ostream out(&buf);
  std::ostringstream err;
  driver::RunProgramOptions opts;
  opts.file = src.string();
  int code = driver::runProgram(opts, out, err);
  std::error_code ec;
  fs::remove(src, ec);
  std::optional<Clock::time_point> start, end;
  TimedRun r;
  for (const auto &line : buf.lines) {
    if (end)
      r.after.push_back(line.text);
    else if (line.text == "START")
      start = line.at;
    else if (line.text == "END")
      end = line.at;
  }
  if (code != 0 || !start || !end) {
    std::fprintf(stderr, "bench: the %s program failed:\n%s\n", what.c_str(), err.str().c_str());
    return std::nullopt;
  }
  r.seconds = std::chrono::duration<double>(*end - *start).count();
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace sluice::bench
