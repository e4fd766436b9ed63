// ir/ops/random_ops.cc: random op rows.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerRandomOps(OpRegistry &reg) { (void)reg; }

} // namespace sluice::ir
