// passes/shape_inference.h: recomputes every node's static output shapes.
#pragma once

#include "passes/pass.h"

namespace sluice::passes {

/// Re-runs each op's shape function in topological order, so a graph read
/// from text (or edited by earlier passes) has consistent static shapes.
std::unique_ptr<Pass> createShapeInferencePass();

} // namespace sluice::passes
