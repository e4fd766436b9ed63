// driver/launch.h: `sluice launch FILE --ps N --workers M`: a whole
// cluster on this machine. Every ps task is a `sluice serve` process and
// every worker (and chief) a `sluice run FILE` process of the same binary,
// on free loopback ports, their output merged line by line behind a
// "[job:index] " prefix. The job ends when the chief finishes (the others
// get a grace period, then SIGTERM) or as soon as a task fails.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "driver/driver.h"

namespace sluice::driver {

struct LaunchOptions {
  std::string file;
  std::string executable; // the sluice binary the tasks run
  std::string workDir;    // -C, passed to every worker
  std::vector<std::pair<std::string, std::string>> sets;
  bool json = false;
  bool werror = false;
  int ps = 1;
  int workers = 2;
  std::string clusterFile; // instead of --ps/--workers: start the tasks it names
  ClusterFlags clusterFlags;
  /// A non-chief worker that fails does not end the job (asynchronous
  /// training goes on without it, as TF's would).
  bool keepGoing = false;
  /// Seconds the other workers have to finish after the chief did.
  int graceSeconds = 30;
};

/// The chief's exit code, or the first failed task's; 2 for usage errors.
int launchCluster(const LaunchOptions &opts, std::ostream &out, std::ostream &err);

} // namespace sluice::driver
