// backend/cpu/random_kernels.cc: CPU kernels for random ops.
#include "backend/kernel_registry.h"

namespace sluice::backend {

void registerRandomKernels(KernelRegistry &reg) { (void)reg; }

} // namespace sluice::backend
