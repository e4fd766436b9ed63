// ir/text/dot.h: Graphviz DOT rendering of a graph, for looking at it.
#pragma once

#include <string>

#include "ir/graph.h"

namespace sluice::ir {

/// A `digraph` with one box per node labelled "name\nop" (plus the assigned
/// device, else the requested one, when set), one solid edge per data input
/// labelled with the value's dtype and static shape (prefixed by ":k" for
/// output k > 0), and one dashed edge per control input. Labels are escaped
/// for DOT; invalid UTF-8 bytes show as \xNN.
std::string writeDot(const Graph &g);

} // namespace sluice::ir
