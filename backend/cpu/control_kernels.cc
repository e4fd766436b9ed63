// backend/cpu/control_kernels.cc: CPU kernels for control ops.
#include "backend/kernel_registry.h"

namespace sluice::backend {

void registerControlKernels(KernelRegistry &reg) { (void)reg; }

} // namespace sluice::backend
