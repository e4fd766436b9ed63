// backend/cpu/string_kernels.cc: CPU kernels for string ops.
#include "backend/kernel_registry.h"

namespace sluice::backend {

void registerStringKernels(KernelRegistry &reg) { (void)reg; }

} // namespace sluice::backend
