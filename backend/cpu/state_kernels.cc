// backend/cpu/state_kernels.cc: CPU kernels for state ops.
#include "backend/kernel_registry.h"

namespace sluice::backend {

void registerStateKernels(KernelRegistry &reg) { (void)reg; }

} // namespace sluice::backend
