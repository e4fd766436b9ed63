// driver/detail/isolated_tests.cc
#include "driver/detail/isolated_tests.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include "support/subprocess.h"

namespace sluice::driver::detail {

namespace {

using Clock = std::chrono::steady_clock;

/// What one child left behind.
struct ChildResult {
  std::string out, err;
  int exitCode = 0;
  bool timedOut = false;
  double seconds = 0;
};

/// After a kill, how long a child that exited may keep its pipes open
/// (a grandchild holding them) before they are closed.
constexpr auto kPipeGrace = std::chrono::seconds(1);

/// Runs the argv lists at most `jobs` at a time, each under `timeout`
/// (0: none), and hands each result to `done` in list order as soon as
/// it and all before it have finished.
class ChildPool {
public:
  ChildPool(int jobs, double timeoutSeconds) : jobs_(jobs < 1 ? 1 : jobs), timeout_(timeoutSeconds) {}

  Status run(const std::vector<std::vector<std::string>> &argvs,
             const std::function<void(size_t, ChildResult &)> &done) {
    size_t next = 0, reported = 0;
    std::map<size_t, ChildResult> finished;
    while (reported < argvs.size()) {
      while (running_.size() < static_cast<size_t>(jobs_) && next < argvs.size()) {
        Expected<Child> c = Child::spawn(ChildOptions{argvs[next], {}, true});
        if (!c)
          return c.status();
        running_.push_back(Running{next, std::make_unique<Child>(std::move(*c)), Clock::now(), {}, {}});
        ++next;
      }
      step(finished);
      for (auto it = finished.find(reported); it != finished.end();
           it = finished.find(reported)) {
        done(reported, it->second);
        finished.erase(it);
        ++reported;
      }
    }
    return Status::ok();
  }

private:
  struct Running {
    size_t index;
    std::unique_ptr<Child> child;
    Clock::time_point start;
    ChildResult result;
    std::optional<Clock::time_point> exitedAt;
  };

  void step(std::map<size_t, ChildResult> &finished) {
    std::vector<pollfd> fds;
    std::vector<std::pair<Running *, int>> owners;
    for (Running &r : running_)
      for (int s = 0; s < 2; ++s) {
        int fd = s == 0 ? r.child->stdoutFd() : r.child->stderrFd();
        if (fd >= 0) {
          fds.push_back({fd, POLLIN, 0});
          owners.emplace_back(&r, s);
        }
      }
    if (!fds.empty())
      ::poll(fds.data(), fds.size(), 50);
    else
      ::usleep(10000);
    for (size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
        drain(*owners[i].first, owners[i].second);
    const auto now = Clock::now();
    for (auto it = running_.begin(); it != running_.end();) {
      Running &r = *it;
      if (timeout_ > 0 && !r.result.timedOut && !r.exitedAt &&
          std::chrono::duration<double>(now - r.start).count() > timeout_) {
        r.result.timedOut = true;
        r.child->signal(SIGKILL);
      }
      if (!r.exitedAt && r.child->poll())
        r.exitedAt = now;
      bool pipesOpen = r.child->stdoutFd() >= 0 || r.child->stderrFd() >= 0;
      if (r.exitedAt && pipesOpen && now - *r.exitedAt > kPipeGrace) {
        r.child->closeStdout();
        r.child->closeStderr();
        pipesOpen = false;
      }
      if (r.exitedAt && !pipesOpen) {
        r.result.exitCode = *r.child->exitCode();
        r.result.seconds = std::chrono::duration<double>(*r.exitedAt - r.start).count();
        finished.emplace(r.index, std::move(r.result));
        it = running_.erase(it);
      } else {
        ++it;
      }
    }
  }

  static void drain(Running &r, int stream) {
    char buf[65536];
    int fd = stream == 0 ? r.child->stdoutFd() : r.child->stderrFd();
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      return;
    if (n <= 0) {
      stream == 0 ? r.child->closeStdout() : r.child->closeStderr();
      return;
    }
    (stream == 0 ? r.result.out : r.result.err).append(buf, static_cast<size_t>(n));
  }

  int jobs_;
  double timeout_;
  std::vector<Running> running_;
};

std::vector<std::string> commonFlags(const TestOptions &opts) {
  std::vector<std::string> flags;
  if (opts.json)
    flags.push_back("--json");
  if (opts.updateGolden)
    flags.push_back("--update-golden");
  if (!opts.backend.empty())
    flags.insert(flags.end(), {"--backend", opts.backend});
  return flags;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

/// Why a child ended without its own verdict.
std::string abnormalEnd(const ChildResult &r, double timeout) {
  if (r.timedOut)
    return "timed out after " + seconds(timeout) + " s";
  if (r.exitCode > 128)
    return "crashed (signal " + std::to_string(r.exitCode - 128) + ")";
  return "ended with exit code " + std::to_string(r.exitCode) + " without a result";
}

/// The child's stdout without its closing "N passed, N failed" line.
std::string withoutSummary(std::string out) {
  if (!out.empty() && out.back() == '\n')
    out.pop_back();
  size_t cut = out.rfind('\n');
  std::string last = cut == std::string::npos ? out : out.substr(cut + 1);
  if (last.find(" passed, ") != std::string::npos && last.find(" failed") != std::string::npos)
    out.erase(cut == std::string::npos ? 0 : cut + 1);
  else if (!out.empty())
    out += '\n';
  if (!out.empty() && out.back() != '\n')
    out += '\n';
  return out;
}

} // namespace

Status runIsolatedTests(const TestOptions &opts, const std::vector<std::string> &files,
                        std::ostream &out, std::ostream &err, std::vector<JUnitSuite> &suites,
                        int &passed, int &failed) {
  std::string exe = opts.executable;
  if (exe.empty()) {
    Expected<std::string> self = currentExecutable();
    if (!self)
      return self.status();
    exe = *self;
  }
  ChildPool pool(opts.jobs, opts.timeoutSeconds);

  // Listing: one child per file, so a file whose top level hangs is
  // bounded by the timeout too.
  std::vector<std::vector<std::string>> listings;
  for (const std::string &f : files) {
    std::vector<std::string> argv = {exe, "test", f, "--list"};
    if (!opts.filter.empty())
      argv.insert(argv.end(), {"--filter", opts.filter});
    if (!opts.onlyTest.empty())
      argv.insert(argv.end(), {"--only-test", opts.onlyTest});
    listings.push_back(std::move(argv));
  }
  struct Planned {
    size_t suite;
    std::string name;
  };
  std::vector<Planned> planned;
  suites.assign(files.size(), JUnitSuite{});
  std::vector<std::string> fileFailures(files.size());
  SLUICE_TRY(pool.run(listings, [&](size_t i, ChildResult &r) {
    JUnitSuite &suite = suites[i];
    suite.name = files[i];
    if (r.exitCode != 0 || r.timedOut) {
      std::string why = r.out.find("FAIL ") == 0 ? r.out : "FAIL " + files[i] + " (the file itself failed: " + abnormalEnd(r, opts.timeoutSeconds) + ")\n" + r.out;
      suite.fileFailed = true;
      suite.fileError = why;
      fileFailures[i] = why + r.err;
      ++failed;
      return;
    }
    const std::string prefix = files[i] + ": ";
    size_t pos = 0;
    while (pos < r.out.size()) {
      size_t end = r.out.find('\n', pos);
      std::string line = r.out.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
      pos = end == std::string::npos ? r.out.size() : end + 1;
      if (line.compare(0, prefix.size(), prefix) == 0)
        planned.push_back(Planned{i, line.substr(prefix.size())});
    }
    if (!r.err.empty())
      fileFailures[i] = r.err; // warnings of the file's top level, shown once
  }));

  // Results print in file order: a file's listing problem (or warnings)
  // first, then its tests.
  std::vector<std::vector<std::string>> runs;
  for (const Planned &p : planned) {
    std::vector<std::string> argv = {exe, "test", files[p.suite], "--only-test", p.name};
    for (const std::string &f : commonFlags(opts))
      argv.push_back(f);
    runs.push_back(std::move(argv));
  }
  size_t shownUpTo = 0;
  auto showFileNotes = [&](size_t upTo) {
    for (; shownUpTo < upTo; ++shownUpTo) {
      const std::string &note = fileFailures[shownUpTo];
      if (note.empty())
        continue;
      (suites[shownUpTo].fileFailed ? out : err) << note;
    }
  };
  SLUICE_TRY(pool.run(runs, [&](size_t i, ChildResult &r) {
    const Planned &p = planned[i];
    showFileNotes(p.suite + 1);
    const std::string label = files[p.suite] + ": " + p.name;
    JUnitCase c;
    c.name = p.name;
    c.seconds = r.seconds;
    std::string shown = withoutSummary(r.out);
    const bool verdictPass = r.exitCode == 0 && !r.timedOut &&
                             shown.find("PASS " + label + "\n") != std::string::npos;
    if (verdictPass) {
      ++passed;
    } else {
      ++failed;
      c.passed = false;
      size_t at = shown.find("FAIL " + label + "\n");
      if (r.exitCode == 1 && !r.timedOut && at != std::string::npos) {
        c.detail = shown.substr(at + label.size() + 6);
      } else {
        std::string why = abnormalEnd(r, opts.timeoutSeconds);
        shown += "FAIL " + label + " (" + why + ")\n";
        c.detail = why + "\n";
      }
      c.message = c.detail.substr(0, c.detail.find('\n'));
    }
    out << shown;
    err << r.err;
    out.flush();
    suites[p.suite].cases.push_back(std::move(c));
  }));
  showFileNotes(files.size());
  return Status::ok();
}

} // namespace sluice::driver::detail
