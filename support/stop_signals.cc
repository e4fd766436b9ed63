// support/stop_signals.cc: one sigwait thread per process.
#include "support/stop_signals.h"

#include <csignal>
#include <map>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace sluice {

namespace {

std::mutex gMu;
std::map<int, std::function<void()>> gHandlers; // guarded by gMu
std::map<int, std::function<void()>> gInterruptHandlers; // guarded by gMu
int gNextId = 1;                                 // guarded by gMu

sigset_t stopSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

} // namespace

void installStopSignals(int graceSeconds) {
  sigset_t set = stopSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set, graceSeconds] {
    int sig = 0;
    std::map<int, std::function<void()>> handlers;
    for (;;) {
      if (sigwait(&set, &sig) != 0)
        return;
      std::map<int, std::function<void()>> interrupts;
      {
        std::lock_guard<std::mutex> lock(gMu);
        handlers = gHandlers;
        if (sig == SIGINT)
          interrupts = gInterruptHandlers;
      }
      if (interrupts.empty())
        break;
      for (auto &[id, fn] : interrupts)
        fn();
    }
    if (handlers.empty())
      _exit(128 + sig);
    // The handlers may block (a server finishing its calls); the grace
    // period bounds the whole shutdown.
    std::thread([sig, graceSeconds] {
      std::this_thread::sleep_for(std::chrono::seconds(graceSeconds));
      _exit(128 + sig);
    }).detach();
    for (auto &[id, fn] : handlers)
      fn();
    // A second signal ends the process at once.
    if (sigwait(&set, &sig) == 0)
      _exit(128 + sig);
  }).detach();
}

int addStopHandler(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(gMu);
  int id = gNextId++;
  gHandlers[id] = std::move(fn);
  return id;
}

void removeStopHandler(int id) {
  std::lock_guard<std::mutex> lock(gMu);
  gHandlers.erase(id);
}

int addInterruptHandler(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(gMu);
  int id = gNextId++;
  gInterruptHandlers[id] = std::move(fn);
  return id;
}

void removeInterruptHandler(int id) {
  std::lock_guard<std::mutex> lock(gMu);
  gInterruptHandlers.erase(id);
}

void unblockStopSignals() {
  sigset_t set = stopSet();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

} // namespace sluice
