// ir/ops/state_ops.cc: state op rows.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerStateOps(OpRegistry &reg) { (void)reg; }

} // namespace sluice::ir
