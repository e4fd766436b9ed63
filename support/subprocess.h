// support/subprocess.h: a child process whose stdout and stderr come back
// through pipes, for `sluice launch` (which merges its tasks' logs) and
// for tests that drive the CLI. A child gets SIGTERM when its parent dies,
// so that a killed launcher never leaves tasks listening on ports.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/status.h"

namespace sluice {

struct ChildOptions {
  std::vector<std::string> argv;                          // argv[0] is the program's path
  std::vector<std::pair<std::string, std::string>> setEnv; // added to (or replacing) ours
  bool dieWithParent = true;
};

class Child {
public:
  /// Forks and execs; a program that cannot be executed is an error here,
  /// not an exit code later.
  static Expected<Child> spawn(const ChildOptions &opts);

  Child(Child &&other) noexcept;
  Child &operator=(Child &&other) noexcept;
  Child(const Child &) = delete;
  Child &operator=(const Child &) = delete;
  ~Child();

  pid_t pid() const { return pid_; }
  /// The read ends of the child's stdout and stderr; -1 once closed.
  int stdoutFd() const { return out_; }
  int stderrFd() const { return err_; }
  void closeStdout();
  void closeStderr();

  /// Reaps the child if it has exited: its exit code, or 128 + signal
  /// (as a shell reports it). nullopt while it runs.
  std::optional<int> poll();
  /// Blocks until it exits.
  int wait();
  /// The exit code once poll() or wait() has seen it.
  std::optional<int> exitCode() const { return exit_; }
  /// Sends `sig` unless the child has been reaped.
  void signal(int sig);

private:
  Child() = default;
  pid_t pid_ = -1;
  int out_ = -1, err_ = -1;
  std::optional<int> exit_;
};

/// The absolute path of the running executable (/proc/self/exe).
Expected<std::string> currentExecutable();

} // namespace sluice
