// runtime/executor.h: runs one graph for a fixed (feeds, fetches, targets)
// signature: an immutable plan built once, then any number of steps, which
// may run concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <functional>
#include <mutex>
#include <vector>

#include "backend/function.h"
#include "backend/kernel_registry.h"
#include "backend/resource_mgr.h"
#include "ir/graph.h"
#include "runtime/thread_pool.h"

namespace sluice::rt {

struct ExecutorOptions {
  /// Where kernels come from; null means backend::kernelRegistry(). Tests
  /// pass their own registry to substitute fake kernels.
  const backend::KernelRegistry *kernels = nullptr;
  std::string deviceType = "CPU";
  /// Passed to kernels (KernelContext::intraOpThreads).
  int intraOpThreads = 1;
  /// Calls the graph's functions; null: made from the graph's library.
  std::shared_ptr<backend::FunctionRuntime> functions;
  /// Passed to kernels (KernelContext::deterministic).
  bool deterministic = false;
};

/// A runtime for `lib`'s functions: each instantiated as an executor over
/// its body (all of its nodes run, as in a TF function), run on the
/// calling thread. Bodies calling functions use the same runtime.
std::shared_ptr<backend::FunctionRuntime>
makeFunctionRuntime(const ir::FunctionLibrary &lib, const ExecutorOptions &opts);

/// Per-step inputs. Everything here must outlive the run() call.
struct StepParams {
  /// Polled every 100 ms while the step waits; a Status fails the step.
  const std::function<std::optional<Status>()> *stallCheck = nullptr;
  /// Values for the plan's feeds, in the order given to create().
  const std::vector<ir::Tensor> *feedValues = nullptr;
  backend::ResourceMgr *resources = nullptr;
  /// Where this partition's send/recv nodes meet the others'.
  backend::Rendezvous *rendezvous = nullptr;
  /// Cancelled when the step fails or times out; the caller may cancel it
  /// too (session close). Null: the step uses its own.
  CancellationManager *cancellation = nullptr;
  /// Expensive kernels and async completions continue here; null runs
  /// everything on the calling thread (async completions on theirs).
  ThreadPool *pool = nullptr;
  int64_t stepId = 0;
  /// When it passes, the step fails with deadline_exceeded "Timed out
  /// waiting for notification" and is cancelled.
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::time_point::max();
};

class Executor {
public:
  /// Builds the plan for `graph`: the nodes the fetches and targets need
  /// (fed outputs cut their producers), in topological order, with one
  /// kernel each. Kernel creation errors name the node.
  static Expected<std::unique_ptr<Executor>>
  create(std::shared_ptr<const ir::Graph> graph, std::vector<ir::Output> feeds,
         std::vector<ir::Output> fetches, std::vector<ir::NodeId> targets,
         const ExecutorOptions &opts = {});
  ~Executor();

  /// Runs one step on the calling thread (plus the pool) and returns the
  /// fetched values in fetch order. The first failing op's error names
  /// its node and location; the step then cancels and drains.
  Expected<std::vector<ir::Tensor>> run(const StepParams &params) const;

  const ir::Graph &graph() const { return *graph_; }
  const std::vector<ir::Output> &feeds() const { return feeds_; }
  const std::vector<ir::Output> &fetches() const { return fetches_; }
  /// How many nodes a step runs.
  int numNodes() const;

  struct Item;
  struct Step;

private:
  Executor();
  friend struct Step;

  std::shared_ptr<const ir::Graph> graph_;
  std::vector<ir::Output> feeds_, fetches_;
  ExecutorOptions opts_;
  /// Whether its kernels read host memory only (not a GPU's executor).
  bool hostMemory_ = true;

  // The immutable plan (see executor.cc for the layout).
  std::vector<Item> items_;
  std::vector<std::unique_ptr<backend::OpKernel>> kernels_;
  /// Per item: the recent run time of an expensive kernel, in ns. Only
  /// kernels that really take long go to the pool; a short one (a small
  /// matmul) costs less inline than the thread hand-off would.
  std::unique_ptr<std::atomic<uint32_t>[]> costNs_;
  std::vector<int32_t> inputSlots_; // per item input: index into step values
  std::vector<int32_t> consumers_;  // per item: distinct consumer items
  std::vector<int32_t> roots_;      // items with no dependencies
  std::vector<int32_t> fetchSlots_;
  int32_t numOutputSlots_ = 0;      // feed slots follow

  // Finished per-step states, reused to avoid reallocating per step.
  mutable std::mutex freeMu_;
  mutable std::vector<std::unique_ptr<Step>> freeSteps_;
};

} // namespace sluice::rt
