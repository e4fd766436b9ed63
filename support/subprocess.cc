// support/subprocess.cc: fork/exec rather than posix_spawn, because the
// child must set its parent-death signal and unblock the stop signals
// the launcher's threads keep blocked (support/stop_signals.h) before it
// execs; posix_spawn can reset the mask but not the death signal.
#include "support/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace sluice {

namespace {

int decodeWaitStatus(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return 1;
}

void closeFd(int &fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

} // namespace

Expected<Child> Child::spawn(const ChildOptions &opts) {
  if (opts.argv.empty())
    return invalidArgument("no program to run");
  int out[2], err[2], report[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    return unavailable(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return unavailable(std::string("pipe: ") + std::strerror(errno));
  }
  // The child writes errno here when exec fails; exec success closes it.
  if (::pipe2(report, O_CLOEXEC) != 0) {
    for (int fd : {out[0], out[1], err[0], err[1]})
      ::close(fd);
    return unavailable(std::string("pipe: ") + std::strerror(errno));
  }
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls are allowed in a threaded parent.
  std::vector<char *> argv;
  for (const std::string &a : opts.argv)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> envStrings;
  for (char **e = environ; *e; ++e) {
    std::string kv = *e;
    bool replaced = false;
    for (const auto &[k, v] : opts.setEnv)
      replaced = replaced || kv.compare(0, k.size() + 1, k + "=") == 0;
    if (!replaced)
      envStrings.push_back(kv);
  }
  for (const auto &[k, v] : opts.setEnv)
    envStrings.push_back(k + "=" + v);
  std::vector<char *> envp;
  for (std::string &kv : envStrings)
    envp.push_back(kv.data());
  envp.push_back(nullptr);
  pid_t parent = ::getpid();

  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out[0], out[1], err[0], err[1], report[0], report[1]})
      ::close(fd);
    return unavailable(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    if (opts.dieWithParent) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) // the parent died before prctl
        ::_exit(127);
    }
    sigset_t all;
    sigemptyset(&all);
    ::sigprocmask(SIG_SETMASK, &all, nullptr);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    int e = errno;
    (void)!::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  ::close(report[1]);
  int childErrno = 0;
  ssize_t n;
  do {
    n = ::read(report[0], &childErrno, sizeof childErrno);
  } while (n < 0 && errno == EINTR);
  ::close(report[0]);
  Child c;
  c.pid_ = pid;
  c.out_ = out[0];
  c.err_ = err[0];
  if (n == static_cast<ssize_t>(sizeof childErrno)) {
    c.wait();
    return unavailable("cannot run " + opts.argv[0] + ": " + std::strerror(childErrno));
  }
  return c;
}

Child::Child(Child &&o) noexcept { *this = std::move(o); }

Child &Child::operator=(Child &&o) noexcept {
  if (this != &o) {
    closeFd(out_);
    closeFd(err_);
    pid_ = std::exchange(o.pid_, -1);
    out_ = std::exchange(o.out_, -1);
    err_ = std::exchange(o.err_, -1);
    exit_ = std::exchange(o.exit_, std::nullopt);
  }
  return *this;
}

Child::~Child() {
  closeFd(out_);
  closeFd(err_);
  // A child nobody waited for is ended, not left running or a zombie.
  if (pid_ > 0 && !exit_) {
    ::kill(pid_, SIGKILL);
    wait();
  }
}

void Child::closeStdout() { closeFd(out_); }
void Child::closeStderr() { closeFd(err_); }

std::optional<int> Child::poll() {
  if (exit_ || pid_ <= 0)
    return exit_;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_)
    exit_ = decodeWaitStatus(status);
  return exit_;
}

int Child::wait() {
  while (!exit_ && pid_ > 0) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, 0);
    if (r == pid_)
      exit_ = decodeWaitStatus(status);
    else if (r < 0 && errno != EINTR)
      exit_ = 1;
  }
  return exit_.value_or(1);
}

void Child::signal(int sig) {
  if (pid_ > 0 && !exit_)
    ::kill(pid_, sig);
}

Expected<std::string> currentExecutable() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return unavailable(std::string("cannot find this executable: ") + std::strerror(errno));
  return std::string(buf, static_cast<size_t>(n));
}

} // namespace sluice
