// driver/launch.cc: one process per task, one loop that merges their
// output and decides when the job is over.
#include "driver/launch.h"
#include "support/secrets.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "driver/task_flags.h"
#include "tflib/cluster/tf_config.h"
#include "runtime/distributed/free_port.h"
#include "support/stop_signals.h"
#include "support/subprocess.h"

namespace sluice::driver {

namespace {

using Clock = std::chrono::steady_clock;

// A task still running this long after SIGTERM gets SIGKILL. Longer than
// the grace a task's own stop handlers get (support/stop_signals.h), so
// that a task stopping cleanly is never cut short.
constexpr auto kTermGrace = std::chrono::seconds(7);

struct Task {
  std::string job;
  int index = 0;
  bool serves = false; // a ps: `sluice serve`, which never ends by itself
  bool chief = false;
  std::string label; // "worker:0"
  std::optional<Child> child;
  std::string pending[2]; // an unfinished line of stdout, of stderr
};

// The cluster file the tasks read, in a directory removed at the end.
class SpecDir {
public:
  Expected<std::string> write(const rt::ClusterSpec &cluster) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sluice-launch-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      return unavailable(std::string("cannot make a temporary directory: ") +
                         std::strerror(errno));
    dir_ = tmpl;
    std::string path = dir_ + "/cluster.json";
    std::ofstream f(path);
    f << rt::clusterSpecToJson(cluster) << "\n";
    if (!f.flush())
      return unavailable("cannot write " + path);
    return path;
  }
  ~SpecDir() {
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

private:
  std::string dir_;
};

class Launcher {
public:
  Launcher(const LaunchOptions &opts, std::ostream &out, std::ostream &err)
      : opts_(opts), out_(out), err_(err) {}

  int run() {
    std::optional<rt::ClusterSpec> cluster = makeCluster();
    if (!cluster)
      return 2;
    SpecDir dir;
    auto specPath = dir.write(*cluster);
    if (!specPath.hasValue())
      return fail(specPath.status().message());
    for (const auto &[job, tasks] : cluster->jobMap())
      for (const auto &[index, address] : tasks.tasks) {
        Task t;
        t.job = job;
        t.index = index;
        t.serves = job == "ps";
        auto config = tflib::taskConfigFor(*cluster, job, index);
        t.chief = !t.serves && config.hasValue() && config->isChief;
        t.label = job + ":" + std::to_string(index);
        tasks_.push_back(std::move(t));
      }
    if (std::none_of(tasks_.begin(), tasks_.end(), [](const Task &t) { return t.chief; }))
      return fail("the cluster has no chief: it needs a 'chief' or 'master' job, or a "
                  "'worker' job with task 0");
    log("cluster " + rt::clusterSpecToJson(*cluster));

    int wake[2];
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0)
      return fail(std::string("pipe: ") + std::strerror(errno));
    wakeRead_ = wake[0];
    wakeWrite_ = wake[1];
    int handler = addStopHandler([this] {
      stopSignal_ = true;
      (void)!::write(wakeWrite_, "x", 1);
    });
    int code = runTasks(*specPath);
    removeStopHandler(handler);
    ::close(wakeRead_);
    ::close(wakeWrite_);
    return code;
  }

private:
  std::optional<rt::ClusterSpec> makeCluster() {
    rt::ClusterSpec cluster;
    if (opts_.clusterFile == "slurm" || opts_.clusterFile.rfind("slurm:", 0) == 0) {
      err_ << "sluice: error: --cluster " << opts_.clusterFile
           << ": launch starts every task on this machine; under Slurm, run `srun sluice run "
              "FILE --cluster "
           << opts_.clusterFile << "` instead\n";
      return std::nullopt;
    }
    if (!opts_.clusterFile.empty()) {
      auto file = loadClusterFile(opts_.clusterFile);
      if (!file.hasValue()) {
        err_ << "sluice: error: --cluster " << opts_.clusterFile << ": "
             << file.status().message() << "\n";
        return std::nullopt;
      }
      return file->cluster;
    }
    if (opts_.ps < 0 || opts_.workers < 1) {
      err_ << "sluice: error: launch needs --workers 1 or more and --ps 0 or more\n";
      return std::nullopt;
    }
    auto addresses = [&](int n) -> std::optional<std::vector<std::string>> {
      std::vector<std::string> out;
      for (int i = 0; i < n; ++i) {
        auto port = dist::pickFreeLoopbackPort();
        if (!port.hasValue()) {
          err_ << "sluice: error: " << port.status().message() << "\n";
          return std::nullopt;
        }
        out.push_back("127.0.0.1:" + std::to_string(*port));
      }
      return out;
    };
    auto ps = addresses(opts_.ps);
    auto workers = addresses(opts_.workers);
    if (!ps || !workers)
      return std::nullopt;
    if (!ps->empty())
      cluster.addJob("ps", *ps);
    cluster.addJob("worker", *workers);
    return cluster;
  }

  std::vector<std::string> argvFor(const Task &t, const std::string &specPath) const {
    std::vector<std::string> a{opts_.executable};
    if (t.serves) {
      a.insert(a.end(), {"serve", "--cluster", specPath, "--job", t.job, "--task",
                         std::to_string(t.index), "--cpus",
                         std::to_string(opts_.clusterFlags.cpus)});
    } else {
      a.insert(a.end(), {"run", opts_.file, "--cluster", specPath, "--job", t.job, "--task",
                         std::to_string(t.index)});
      if (!opts_.workDir.empty())
        a.insert(a.end(), {"-C", opts_.workDir});
      for (const auto &[name, value] : opts_.sets)
        a.insert(a.end(), {"--set", name + "=" + value});
      if (opts_.json)
        a.push_back("--json");
      if (opts_.werror)
        a.push_back("--Werror");
    }
    const ClusterFlags &f = opts_.clusterFlags;
    for (const auto &[flag, value] : {std::pair<const char *, const std::string &>{
                                          "--cluster-token", f.tokenFile},
                                      {"--tls-cert", f.tlsCert},
                                      {"--tls-key", f.tlsKey},
                                      {"--tls-ca", f.tlsCa}})
      if (!value.empty())
        a.insert(a.end(), {flag, value});
    a.insert(a.end(), {"--wait-for-tasks", std::to_string(f.waitForTasksSeconds)});
    return a;
  }

  int runTasks(const std::string &specPath) {
    ChildOptions base;
    // Without a token of the user's, the tasks share a fresh one: other
    // users of this machine cannot call into the job's loopback ports.
    if (opts_.clusterFlags.tokenFile.empty() && !std::getenv("SLUICE_CLUSTER_TOKEN")) {
      auto token = randomHexToken();
      if (!token.hasValue()) {
        err_ << "sluice: error: launch: " << token.status().message() << "\n";
        return 1;
      }
      base.setEnv.emplace_back("SLUICE_CLUSTER_TOKEN", std::move(*token));
    }
    // ps tasks first: workers wait for them anyway, but their "listening"
    // lines then come first.
    for (bool serves : {true, false})
      for (Task &t : tasks_) {
        if (t.serves != serves)
          continue;
        ChildOptions o = base;
        o.argv = argvFor(t, specPath);
        auto child = Child::spawn(o);
        if (!child.hasValue()) {
          log(child.status().message());
          stopAll();
          finish();
          return 1;
        }
        t.child.emplace(std::move(*child));
      }
    while (!done())
      step();
    finish();
    if (stopSignal_)
      return 130;
    if (failure_)
      return *failure_;
    return chiefCode_.value_or(1);
  }

  // One round: read what the tasks wrote, reap the ones that ended, and
  // move the job's state on.
  void step() {
    std::vector<pollfd> fds;
    std::vector<std::pair<Task *, int>> owners;
    fds.push_back({wakeRead_, POLLIN, 0});
    owners.emplace_back(nullptr, 0);
    for (Task &t : tasks_) {
      if (!t.child)
        continue;
      for (int s = 0; s < 2; ++s) {
        int fd = s == 0 ? t.child->stdoutFd() : t.child->stderrFd();
        if (fd >= 0) {
          fds.push_back({fd, POLLIN, 0});
          owners.emplace_back(&t, s);
        }
      }
    }
    ::poll(fds.data(), fds.size(), 100);
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      if (!owners[i].first) {
        char buf[64];
        while (::read(wakeRead_, buf, sizeof buf) > 0) {
        }
        continue;
      }
      drain(*owners[i].first, owners[i].second);
    }
    for (Task &t : tasks_)
      if (t.child && !t.child->exitCode() && t.child->poll())
        exited(t, *t.child->exitCode());
    advance();
  }

  void drain(Task &t, int stream) {
    char buf[65536];
    int fd = stream == 0 ? t.child->stdoutFd() : t.child->stderrFd();
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      return;
    if (n <= 0) {
      if (!t.pending[stream].empty())
        emit(t, stream, t.pending[stream] + "\n");
      t.pending[stream].clear();
      stream == 0 ? t.child->closeStdout() : t.child->closeStderr();
      return;
    }
    std::string &p = t.pending[stream];
    p.append(buf, static_cast<size_t>(n));
    auto lastNewline = p.rfind('\n');
    if (lastNewline == std::string::npos)
      return;
    emit(t, stream, p.substr(0, lastNewline + 1));
    p.erase(0, lastNewline + 1);
  }

  // Whole lines, each behind the task's prefix.
  void emit(const Task &t, int stream, const std::string &lines) {
    std::ostream &os = stream == 0 ? out_ : err_;
    std::string prefix = "[" + t.label + "] ", text;
    for (size_t start = 0; start < lines.size();) {
      size_t end = lines.find('\n', start);
      text += prefix;
      text.append(lines, start, end - start + 1);
      start = end + 1;
    }
    os << text << std::flush;
  }

  void exited(const Task &t, int code) {
    bool expected = stopping_; // our SIGTERM, or a job already over
    if (t.chief && !stopping_) {
      chiefCode_ = code;
      log(t.label + " (chief) exited with code " + std::to_string(code));
      if (code != 0) {
        failure_ = failure_.value_or(code);
        stopAll();
      } else {
        graceUntil_ = Clock::now() + std::chrono::seconds(opts_.graceSeconds);
      }
      return;
    }
    if (expected)
      return;
    if (t.serves) {
      log(t.label + " stopped unexpectedly (code " + std::to_string(code) + ")");
      failure_ = failure_.value_or(code == 0 ? 1 : code);
      stopAll();
      return;
    }
    if (code == 0)
      return; // a worker done with its own loop
    log(t.label + " exited with code " + std::to_string(code) +
        (opts_.keepGoing ? "; the others go on (--keep-going)" : "; stopping the job"));
    if (!opts_.keepGoing) {
      failure_ = failure_.value_or(code);
      stopAll();
    }
  }

  void advance() {
    if (stopSignal_ && !stopping_) {
      log("stopping every task (signal)");
      stopAll();
    }
    if (chiefCode_ && !stopping_) {
      bool workersLeft = std::any_of(tasks_.begin(), tasks_.end(), [](const Task &t) {
        return !t.serves && t.child && !t.child->exitCode();
      });
      if (!workersLeft) {
        stopAll();
      } else if (Clock::now() >= graceUntil_) {
        log("the chief finished " + std::to_string(opts_.graceSeconds) +
            " s ago; stopping the workers still running");
        stopAll();
      }
    }
    if (stopping_ && !killed_ && Clock::now() >= stopSentAt_ + kTermGrace) {
      for (Task &t : tasks_)
        if (t.child && !t.child->exitCode()) {
          log(t.label + " still runs " + std::to_string(kTermGrace.count()) +
              " s after SIGTERM; killing it");
          t.child->signal(SIGKILL);
        }
      killed_ = true;
    }
  }

  void stopAll() {
    if (stopping_)
      return;
    stopping_ = true;
    stopSentAt_ = Clock::now();
    for (Task &t : tasks_)
      if (t.child)
        t.child->signal(SIGTERM);
  }

  bool done() const {
    for (const Task &t : tasks_)
      if (t.child && (!t.child->exitCode() || t.child->stdoutFd() >= 0 ||
                      t.child->stderrFd() >= 0))
        return false;
    return stopping_ || std::all_of(tasks_.begin(), tasks_.end(),
                                    [](const Task &t) { return !t.child; });
  }

  // Every task has ended: wait for them and keep what they still wrote.
  void finish() {
    for (Task &t : tasks_) {
      if (!t.child)
        continue;
      t.child->wait();
      for (int s = 0; s < 2; ++s)
        while ((s == 0 ? t.child->stdoutFd() : t.child->stderrFd()) >= 0)
          drain(t, s);
    }
  }

  int fail(const std::string &message) {
    err_ << "sluice: error: " << message << "\n";
    return 1;
  }

  void log(const std::string &line) { err_ << "[launch] " << line << std::endl; }

  const LaunchOptions &opts_;
  std::ostream &out_, &err_;
  std::vector<Task> tasks_;
  int wakeRead_ = -1, wakeWrite_ = -1;
  std::atomic<bool> stopSignal_{false};
  bool stopping_ = false, killed_ = false;
  Clock::time_point stopSentAt_, graceUntil_;
  std::optional<int> chiefCode_, failure_;
};

} // namespace

int launchCluster(const LaunchOptions &opts, std::ostream &out, std::ostream &err) {
  return Launcher(opts, out, err).run();
}

} // namespace sluice::driver
