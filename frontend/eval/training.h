// frontend/eval/training.h: what the training builtins share (gradients,
// optimizers, losses, layers), within frontend/eval/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontend/eval/interp.h"
#include "ir/gradients.h"

namespace sluice::frontend {

/// ir::buildGradients with the gradient nodes made under the current
/// scopes, in a fresh name scope `name`; errors are thrown located.
std::vector<std::optional<ir::Output>> buildGradients(EvaluatorImpl &ev,
                                                      const std::vector<ir::Output> &ys,
                                                      const std::vector<ir::Output> &xs,
                                                      const std::vector<std::optional<ir::Output>> &gradYs,
                                                      const std::string &name,
                                                      const SourceLoc &loc);

} // namespace sluice::frontend
