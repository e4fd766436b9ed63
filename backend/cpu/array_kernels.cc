// backend/cpu/array_kernels.cc: CPU kernels for array ops.
#include "backend/kernel_registry.h"

namespace sluice::backend {

void registerArrayKernels(KernelRegistry &reg) { (void)reg; }

} // namespace sluice::backend
