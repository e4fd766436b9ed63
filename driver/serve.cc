// driver/serve.cc: `sluice serve`: one task's server, nothing else.
#include <iostream>

#include "driver/driver.h"
#include "driver/task_flags.h"
#include "runtime/distributed/server.h"

namespace sluice::driver {

int serveTask(const ServeOptions &opts, std::ostream &out, std::ostream &err) {
  int code = 0;
  auto task = resolveTask(opts.taskFlags, err, code);
  if (!task)
    return code;
  if (!servesInCluster(*task)) {
    err << "sluice: error: serve needs a cluster and this task's place in it "
           "(--cluster SPEC.json --job JOB --task INDEX, or TF_CONFIG)\n";
    return 2;
  }
  std::shared_ptr<dist::GrpcClusterHost> host = makeClusterHost(opts.clusterFlags, err, code);
  if (!host)
    return code;
  auto server = host->serveTask(task->cluster, task->type, task->index);
  if (!server.hasValue()) {
    err << "sluice: error: " << server.status().message() << "\n";
    return 1;
  }
  // One line once listening: `sluice launch` and scripts wait for it.
  out << "sluice serve: " << (*server)->task() << " listening on " << (*server)->address()
      << std::endl;
  (*server)->join(); // until SIGTERM/SIGINT stops it
  out << "sluice serve: " << (*server)->task() << " stopped" << std::endl;
  return 0;
}

} // namespace sluice::driver
