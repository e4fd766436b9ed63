// frontend/graph_context.h: one graph being built, with the state TF keeps
// on its Graph object: the global-variable collection, the graph seed and
// the set of name scopes already used.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace sluice::frontend {

class Object;

struct VariableInfo {
  ir::NodeId handle;      // the `variable` node
  ir::NodeId initializer; // its assign
  ir::Output readValue;   // `name/read`
  bool trainable = true;  // in trainable_variables() (what optimizers update)
};

struct GraphContext {
  std::unique_ptr<ir::Graph> graph = std::make_unique<ir::Graph>();
  /// Writers (the evaluator adding nodes) take it exclusively; sessions
  /// take it shared while they copy the graph.
  std::shared_mutex mutex;
  std::vector<VariableInfo> globalVariables;
  std::vector<VariableInfo> localVariables;
  /// TF's QUEUE_RUNNERS collection (queue_runner objects).
  std::vector<std::shared_ptr<Object>> queueRunners;
  std::set<std::string> usedScopes;
  /// Nodes a pipeline warning was already shown for.
  std::set<std::string> warnedNodes;
  std::optional<int64_t> graphSeed;

  // Set while a function body (a dataset map or filter) is traced into
  // this graph: tensors of `captureFrom` (or of its own enclosing graphs)
  // used in the body become extra parameters, as TF captures them.
  GraphContext *captureFrom = nullptr;
  /// (outer output, the body's parameter standing for it), in order.
  std::vector<std::pair<ir::Output, ir::Output>> captures;
  int nextArgIndex = 0;

  /// TF's SUMMARIES collection: the summary tensors merge_all_summaries
  /// and a supervised session merge.
  std::vector<ir::Output> summaries;
  /// TF's INIT_OP, LOCAL_INIT_OP, READY_OP, READY_FOR_LOCAL_INIT_OP,
  /// SUMMARY_OP and SAVERS collections: the default ops the first
  /// supervised session made, reused by later ones (the graph is finalized
  /// by then).
  std::map<std::string, ir::Output> supervisorOps;
  std::shared_ptr<Object> supervisorSaver;
};

} // namespace sluice::frontend
