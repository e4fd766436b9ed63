// passes/pipeline.h: runs passes in the one order this file's .cc states,
// with printing of the IR after a named pass.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass.h"

namespace sluice::passes {

struct PipelineOptions {
  /// Re-infer shapes first (graphs read from text).
  bool inferShapes = false;
  /// Run pipeline-check first (compile; it needs the whole graph, not a
  /// step's pruned one).
  bool checkPipelines = false;
  /// Run the placer (PassContext::options.devices) before pruning.
  bool place = false;
  /// Run fusion (passes/fusion.h) and a prune after it, last.
  bool fuse = false;
  /// After each run of the pass named `printAfter` ("all": every pass),
  /// `afterPass` is called with the graph as that pass left it.
  std::string printAfter;
  std::function<void(std::string_view passName, const ir::Graph &)> afterPass;
};

/// Every registered pass name, in passes.def order.
std::vector<std::string> passNames();

/// Creates a registered pass; invalid_argument listing the valid names
/// when `name` is unknown.
Expected<std::unique_ptr<Pass>> createPass(std::string_view name);

/// The pass names runPipeline runs for `opts`, in order.
std::vector<std::string> pipelineOrder(const PipelineOptions &opts);

/// Runs the pipeline on `graph`, replacing it when a pass rebuilds it
/// (prune). Stops at the first failing pass.
Status runPipeline(std::unique_ptr<ir::Graph> &graph, PassContext &ctx,
                   const PipelineOptions &opts = {});

} // namespace sluice::passes
