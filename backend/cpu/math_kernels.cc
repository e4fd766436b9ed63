// backend/cpu/math_kernels.cc: CPU kernels for math ops.
#include "backend/kernel_registry.h"

namespace sluice::backend {

void registerMathKernels(KernelRegistry &reg) { (void)reg; }

} // namespace sluice::backend
