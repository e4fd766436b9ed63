// runtime/session.h: runs a (growing) graph with feeds and fetches, the
// way TF1's DirectSession does: it orchestrates passes and executors and
// owns the thread pool and the resources (variables persist across runs).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backend/kernel_registry.h"
#include "backend/resource_mgr.h"
#include "ir/graph.h"
#include "runtime/executor.h"
#include "runtime/remote_cluster.h"
#include "runtime/step_threads.h"
#include "runtime/thread_pool.h"

namespace sluice::rt {

/// TF's ConfigProto fields (see docs/tf1-semantics.md section 9).
struct SessionOptions {
  int intraOpThreads = 0; // 0: one per hardware thread
  int interOpThreads = 0; // 0: one per hardware thread
  int64_t operationTimeoutMs = 0; // 0: no deadline
  bool allowSoftPlacement = false, logDevicePlacement = false;
  std::map<std::string, int> deviceCount;
  std::vector<std::string> deviceFilters;
  /// Not in TF: with seeds set, pipelines give the same batches in the
  /// same order on every run, whatever the thread counts. Kernels see it
  /// (KernelContext::deterministic); the frontend's queue runners take
  /// turns.
  bool deterministic = false;
  /// Not in TF: kernels from this registry instead of the built-in one
  /// (tests substitute fake blocking kernels). Must outlive the session.
  const backend::KernelRegistry *kernels = nullptr;
  /// Not in TF: lets benchmarks and tests switch constant folding off.
  bool constantFolding = true;
  /// Not in TF: every node runs on the first local CPU whatever it
  /// requests (`sluice run --one-device`), to compare a placed run with
  /// a single-device one.
  bool ignoreDeviceRequests = false;
  /// Not in TF: lets benchmarks and tests compare the fused reader +
  /// decode_csv (passes/fuse_read_decode.h) with the pair it replaces.
  bool fuseReadDecode = true;
  /// Not in TF: the fusion pass (passes/fusion.h) turns connected
  /// elementwise ops into `fused` nodes.
  bool fusion = true;
  /// Not in TF: what runs `fused` nodes: "jit" (compiled with LLVM,
  /// backend/jit/jit.h; the default since it passed the whole test suite)
  /// or "interp" (their bodies op by op with the reference kernels).
  std::string backend = "jit";
  /// A cluster session (TF's grpc:// target): the graph is placed on the
  /// cluster's devices and every partition runs on the task owning it.
  std::shared_ptr<RemoteCluster> cluster;
  /// Where soft-placement notes and log_device_placement lines go (one
  /// line each); null: standard error.
  std::function<void(const std::string &)> log;
};

/// TF's RunOptions.
struct RunOptions {
  int64_t timeoutMs = 0; // 0: the session's operationTimeoutMs
  /// Not in TF: polled while the step waits on blocked ops; a Status it
  /// returns fails the step (the frontend's stall detection).
  std::function<std::optional<Status>()> stallCheck;
};

class Session {
public:
  /// A session over `graph`, which the caller keeps alive and may grow
  /// (append-only) between runs. When `graphMutex` is given, the session
  /// holds it shared while it reads the graph; writers lock it exclusively.
  static Expected<std::unique_ptr<Session>>
  create(const ir::Graph *graph, std::shared_mutex *graphMutex,
         SessionOptions options);
  /// Closes the session (cancelling and waiting for running steps).
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Runs the nodes that `fetches` and `targets` need, with `feeds`
  /// replacing the fed outputs, and returns the fetched values in order.
  /// Several threads may call run at once. Past the deadline (opts, else
  /// the session's) the step is cancelled and deadline_exceeded is
  /// returned; the session stays usable.
  Expected<std::vector<ir::Tensor>>
  run(const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
      const std::vector<ir::Output> &fetches,
      const std::vector<ir::NodeId> &targets, const RunOptions &opts = {});

  /// Cancels every running step (their blocked ops fail with cancelled)
  /// and waits for them; later runs fail with cancelled "Session has been
  /// closed.". Closing twice is fine.
  Status close();
  bool isClosed() const;
  /// Cancels the steps running now (their blocked ops fail with
  /// cancelled) and leaves the session open for later runs.
  void cancelRunningSteps();
  /// Drops the compiled executors. For a graph that shrank back (the
  /// REPL undoing a failed statement): cached plans are keyed by node ids
  /// and graph size, which new nodes may reuse.
  void forgetCompiled();

  backend::ResourceMgr &resources() { return resources_; }
  const SessionOptions &options() const { return options_; }

  /// How many compiled executors are cached (for tests).
  size_t numCachedExecutors() const;

  /// The devices of this session (placement targets), in preference order.
  std::vector<std::string> devices() const;
  /// The device the placer assigns each node of the graph as it is now
  /// (indexed by node id); the placement error if it cannot be placed.
  Expected<std::vector<std::string>> placement() const;

  struct Compiled;

private:
  Session(const ir::Graph *graph, std::shared_mutex *graphMutex,
          SessionOptions options);
  Status checkRequest(const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
                      const std::vector<ir::Output> &fetches,
                      const std::vector<ir::NodeId> &targets,
                      int *numNodes) const;
  Expected<std::shared_ptr<Compiled>>
  compile(const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
          const std::vector<ir::Output> &fetches,
          const std::vector<ir::NodeId> &targets);

  const ir::Graph *graph_;
  std::shared_mutex *graphMutex_;
  SessionOptions options_;
  ThreadPool pool_;
  backend::ResourceMgr resources_;
  std::atomic<int64_t> nextStepId_{1};

  void log(const std::string &line) const;
  Expected<std::vector<ir::Tensor>> runPartitions(const Compiled &c,
                                                  const std::vector<ir::Tensor> &feedValues,
                                                  size_t numFetches, const StepParams &step);
  Expected<std::vector<ir::Tensor>> runRemote(const Compiled &c,
                                              const std::vector<ir::Tensor> &feedValues,
                                              size_t numFetches, const StepParams &step);
  /// Step ids unique across the cluster: a random base per session.
  int64_t stepIdBase_ = 0;

  mutable std::mutex logMu_;
  std::set<std::string> loggedNodes_; // guarded by logMu_ (log_device_placement)
  std::set<std::string> notedNodes_;  // guarded by logMu_ (soft placement notes)

  mutable std::mutex cacheMu_;
  std::unordered_map<std::string, std::shared_ptr<Compiled>> cache_;

  mutable std::mutex stepsMu_;
  std::condition_variable stepsCv_;
  std::set<CancellationManager *> activeSteps_; // guarded by stepsMu_
  bool closed_ = false;                         // guarded by stepsMu_
  /// Runs the extra partitions of multi-device steps; declared last so
  /// it is joined first, while what its jobs use still exists.
  StepThreads stepThreads_;
};

} // namespace sluice::rt
