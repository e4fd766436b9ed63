// passes/prune.h: keeps only what the step's fetches and targets need.
#pragma once

#include "passes/pass.h"

namespace sluice::passes {

/// TF's pruning: a node runs only if a fetch or target depends on it
/// (through data or control edges); a fed output cuts the dependency on
/// its producer. Graph has no node removal, so the pass builds a compact
/// copy (names, attrs, devices and locations preserved) and leaves it in
/// PassContext::replacement with the ids renumbered. A fed output whose
/// producer is otherwise unneeded becomes the producer itself when it has
/// no inputs (a placeholder), else an internal `_feed` node.
std::unique_ptr<Pass> createPrunePass();

/// The nodes a step must consider: fetch/target producers and everything
/// they depend on, not looking through fed outputs. Shared with the
/// executor, which must agree with pruning.
std::vector<bool> neededNodes(const ir::Graph &graph,
                              const std::vector<ir::Output> &feeds,
                              const std::vector<ir::Output> &fetches,
                              const std::vector<ir::NodeId> &targets);

} // namespace sluice::passes
