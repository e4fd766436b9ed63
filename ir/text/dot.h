// ir/text/dot.h: Graphviz DOT rendering of a graph, for looking at it.
#pragma once

#include <string>

#include "ir/graph.h"

namespace sluice::ir {

struct DotOptions {
  /// For a placed graph: fill each node with its assigned device's colour
  /// (a legend lists them), box each task's nodes in a `subgraph
  /// cluster_N` labelled "/job:J/replica:R/task:T", and dash the data
  /// edges between devices (bold dotted for control edges). Nodes without
  /// an assigned device stay outside the boxes, unfilled.
  bool byDevice = false;
};

/// A `digraph` with one box per node labelled "name\nop" (plus the assigned
/// device, else the requested one, when set; with byDevice, only the
/// device's type and index, the box naming the task), one solid edge per
/// data input labelled with the value's dtype and static shape (prefixed
/// by ":k" for output k > 0), and one dotted edge per control input.
/// Labels are escaped for DOT; invalid UTF-8 bytes show as \xNN.
std::string writeDot(const Graph &g, const DotOptions &opts = {});

} // namespace sluice::ir
