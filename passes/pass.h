// passes/pass.h: the interface every graph pass implements, and the plain
// data a pass may read (the run's feeds, fetches, targets and options).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace sluice::passes {

/// What passes ask of the kernels. Passes never link backend: whoever runs
/// the pipeline answers (runtime/pass_config.h, from a kernel registry).
struct KernelQueries {
  /// Whether this process has a kernel for `node` on devices of `type`
  /// (the placer asks). Unset: every op has a CPU kernel and nothing else.
  std::function<bool(const ir::Node &node, const std::string &type)> hasKernel;
  /// `node`'s outputs computed on the host from constant `inputs`
  /// (constant folding asks); an error leaves the node for run time.
  /// Unset: nothing is folded.
  std::function<Expected<std::vector<ir::Tensor>>(const ir::Node &node,
                                                  const std::vector<const ir::Tensor *> &inputs)>
      evaluate;

  bool supports(const ir::Node &node, const std::string &type) const {
    return hasKernel ? hasKernel(node, type) : type == "CPU";
  }
};

struct PassOptions {
  /// Whether constant-folding folds anything (the pass stays in the list).
  bool constantFolding = true;
  /// Outputs larger than this are not folded (they would bloat the graph).
  int64_t maxFoldElements = int64_t(1) << 20;
  /// The placer's device set (empty: the placer leaves devices alone).
  std::vector<std::string> devices;
  bool allowSoftPlacement = false;
  /// Which device types have a kernel for a node, and host evaluation
  /// for folding. The session passes the ones its executors use.
  KernelQueries kernels;
  /// Why this process has no GPU devices (empty when it has some, or
  /// nobody asked), added to messages about unmet GPU requests.
  std::string noGpuReason;
  /// Whether fuse-read-decode rewrites reader + decode_csv pairs.
  bool fuseReadDecode = true;
  /// Whether fusion wraps a lone fusible op in a cluster of its own (ahead
  /// of time every op must become generated code).
  bool fuseSingleOps = false;
};

/// What a pass knows about the step it compiles for. Passes never see a
/// session, device or resource.
struct PassContext {
  /// Outputs whose values the caller provides; they cut their producers'
  /// dependencies (TF's feeds).
  std::vector<ir::Output> feeds;
  /// Outputs whose values the caller wants back.
  std::vector<ir::Output> fetches;
  /// Nodes that must run although nothing is fetched from them.
  std::vector<ir::NodeId> targets;
  PassOptions options;
  /// A pass that rebuilds the graph (Graph has no node removal) leaves the
  /// new graph here, with feeds/fetches/targets above already renumbered
  /// into it; the pipeline then swaps it in for the next pass.
  std::unique_ptr<ir::Graph> replacement;
  /// Findings that do not stop the pipeline (pipeline-check); each is a
  /// located Status shown as a warning, or an error under --Werror.
  std::vector<Status> warnings;
  /// Information for the user that is never an error (soft placements).
  std::vector<Status> notes;
};

class Pass {
public:
  virtual ~Pass() = default;
  /// The registered name ("prune"), used by --print-after.
  virtual std::string_view name() const = 0;
  /// Rewrites `graph`; stops at the first error, which names a node.
  virtual Status run(ir::Graph &graph, PassContext &ctx) = 0;
};

} // namespace sluice::passes
