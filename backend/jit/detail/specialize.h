// backend/jit/detail/specialize.h: a fused body whose shapes are known
// only at run time, re-typed for the shapes of one call, so that it has
// generated code like a static one (compiled once per distinct shape set).
#pragma once

#include <memory>
#include <vector>

#include "ir/function.h"
#include "support/status.h"

namespace sluice::backend::jit {

/// Whether every parameter's shape of `def` is fully known.
bool hasStaticShapes(const ir::FunctionDef &def);

/// `def` with parameter k of shape `argDims[k]` and every body shape
/// inferred again from them (merged with what the body knew). An error
/// names the body node whose shapes do not fit (the interpreter, run on
/// the same inputs, reports the same call).
Expected<std::shared_ptr<const ir::FunctionDef>> specializeBody(
    const ir::FunctionDef &def, const std::vector<ir::Dims> &argDims);

} // namespace sluice::backend::jit
