// passes/constant_folding.h: evaluates constant subgraphs at compile time.
#pragma once

#include "passes/pass.h"

namespace sluice::passes {

/// Replaces each non-stateful node whose inputs are all constants (and
/// not fed) and whose outputs are small by `constant` nodes computed with
/// its CPU kernel. A kernel that fails leaves the node alone, so the error
/// surfaces at run time exactly as without folding. The folded nodes lose
/// their consumers; a later prune drops them.
std::unique_ptr<Pass> createConstantFoldingPass();

} // namespace sluice::passes
