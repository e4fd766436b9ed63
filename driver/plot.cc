// driver/plot.cc: `sluice plot`: metrics.jsonl to one curve per tag,
// plotted by gnuplot (found on PATH, or $SLUICE_GNUPLOT).
#include "driver/plot.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

extern char **environ;

namespace sluice::driver {

namespace fs = std::filesystem;

namespace {

/// A gnuplot single-quoted string ('' stands for ').
std::string gpString(const std::string &s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "''";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out.push_back(c);
  }
  return out + "'";
}

std::string findGnuplot() {
  if (const char *env = std::getenv("SLUICE_GNUPLOT"); env && *env)
    return env;
  const char *path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    fs::path p = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    if (::access(p.c_str(), X_OK) == 0)
      return p.string();
  }
  return "";
}

/// The terminal line for the output's extension.
std::string terminalFor(const std::string &output) {
  std::string ext = fs::path(output).extension().string();
  for (char &c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".svg")
    return "set terminal svg size 900,540 dynamic background rgb 'white'";
  if (ext == ".png")
    return "set terminal pngcairo size 900,540";
  if (ext == ".pdf")
    return "set terminal pdfcairo size 9in,5.4in";
  if (ext == ".txt")
    return "set terminal dumb size 100,30";
  return "";
}

class TempDir {
public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "sluice-plot-XXXXXX").string();
    if (::mkdtemp(tmpl.data()))
      path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty())
      fs::remove_all(path_, ec);
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

} // namespace

int plotScalars(const PlotOptions &opts, std::ostream &out, std::ostream &err) {
  const std::string metrics = (fs::path(opts.logdir) / "metrics.jsonl").string();
  std::ifstream in(metrics);
  if (!in) {
    err << "sluice plot: error: " << metrics << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  std::map<std::string, std::map<int64_t, double>> series;
  int skipped = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty())
      continue;
    // A process killed mid-write leaves at most a cut last line.
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("step") || !j["step"].is_number_integer() ||
        !j.contains("tag") || !j["tag"].is_string() || !j.contains("value")) {
      ++skipped;
      continue;
    }
    if (!j["value"].is_number())
      continue; // a non-finite value is null: not drawn
    series[j["tag"].get<std::string>()][j["step"].get<int64_t>()] = j["value"].get<double>();
  }
  if (skipped)
    err << "sluice plot: note: skipped " << skipped << " unreadable line" << (skipped > 1 ? "s" : "")
        << " of " << metrics << "\n";
  std::vector<std::string> tags = opts.tags;
  if (tags.empty())
    for (const auto &[tag, points] : series)
      tags.push_back(tag);
  if (tags.empty()) {
    err << "sluice plot: error: no scalars in " << metrics << "\n";
    return 1;
  }
  for (const std::string &t : tags)
    if (!series.count(t)) {
      std::string known;
      for (const auto &[tag, points] : series)
        known += (known.empty() ? "" : ", ") + tag;
      err << "sluice plot: error: no scalar '" << t << "' in " << metrics << " (tags: "
          << (known.empty() ? "none" : known) << ")\n";
      return 1;
    }
  std::string terminal = terminalFor(opts.output);
  if (terminal.empty()) {
    err << "sluice plot: error: cannot tell the format of '" << opts.output
        << "': use .svg, .png, .pdf or .txt\n";
    return 1;
  }
  std::string gnuplot = findGnuplot();
  if (gnuplot.empty()) {
    err << "sluice plot: error: gnuplot not found on PATH (Debian: apt-get install gnuplot-nox, "
           "as scripts/install-deps.sh does)\n";
    return 1;
  }
  TempDir tmp;
  if (tmp.path().empty()) {
    err << "sluice plot: error: cannot create a temporary directory\n";
    return 1;
  }
  std::string script = terminal + "\n";
  script += "set output " + gpString(fs::absolute(opts.output).string()) + "\n";
  script += "set title " + gpString(opts.title.empty() ? opts.logdir : opts.title) + " noenhanced\n";
  script += "set xlabel 'step'\nset grid\nset key noenhanced\n";
  if (tags.size() == 1)
    script += "set ylabel " + gpString(tags[0]) + " noenhanced\n";
  if (opts.logY)
    script += "set logscale y\n";
  std::string plot = "plot ";
  for (size_t i = 0; i < tags.size(); ++i) {
    std::string data = tmp.path() + "/series" + std::to_string(i) + ".dat";
    std::ofstream f(data);
    f.precision(17);
    for (const auto &[step, value] : series[tags[i]])
      f << step << " " << value << "\n";
    plot += (i ? ", " : "") + gpString(data) + " using 1:2 with lines linewidth 2 title " +
            gpString(tags[i]);
  }
  script += plot + "\n";
  std::string scriptPath = tmp.path() + "/plot.gp";
  std::string logPath = tmp.path() + "/gnuplot.log";
  std::ofstream(scriptPath) << script;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char *> argv = {const_cast<char *>(gnuplot.c_str()),
                              const_cast<char *>(scriptPath.c_str()), nullptr};
  pid_t pid;
  int rc = posix_spawn(&pid, gnuplot.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    err << "sluice plot: error: cannot run " << gnuplot << ": " << std::strerror(rc) << "\n";
    return 1;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream logFile(logPath);
  std::string log((std::istreambuf_iterator<char>(logFile)), {});
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    err << "sluice plot: error: gnuplot failed: " << log << "\n";
    return 1;
  }
  out << "wrote " << opts.output << ":";
  for (size_t i = 0; i < tags.size(); ++i)
    out << (i ? "," : "") << " " << tags[i] << " (" << series[tags[i]].size() << " points)";
  out << "\n";
  return 0;
}

} // namespace sluice::driver
