// backend/host_eval.h: one node computed on the host from its input
// tensors by its CPU kernel, outside any executor (constant folding, through
// runtime/pass_config.h).
#pragma once

#include <vector>

#include "backend/kernel_registry.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "support/status.h"

namespace sluice::backend {

/// The node's outputs; not_found without a CPU kernel in `kernels`, or
/// the kernel's error.
Expected<std::vector<ir::Tensor>> evaluateOnHost(const KernelRegistry &kernels,
                                                 const ir::Node &node,
                                                 const std::vector<const ir::Tensor *> &inputs);

} // namespace sluice::backend
