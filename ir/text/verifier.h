// ir/text/verifier.h: checks the invariants every pass may rely on.
#pragma once

#include "ir/graph.h"
#include "support/status.h"

namespace sluice::ir {

/// Checks that node names are unique and non-empty; every data input names
/// an existing output whose dtype is the one the consumer's OpDef expects
/// under its attrs; every control input names an existing node; the graph
/// has no cycle (data or control); every declared, non-optional attr is
/// present with its declared type (type attrs within their allowed set, int
/// attrs at least their minimum) and every other attr starts with '_' (TF's
/// internal attrs); output dtypes are those the OpDef gives and each output
/// has a shape. The first violation is an invalid_argument (cycles:
/// failed_precondition) Status naming the node and carrying its location.
Status verifyGraph(const Graph &g);

} // namespace sluice::ir
