// ir/ops/control_ops.cc: control op rows.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerControlOps(OpRegistry &reg) { (void)reg; }

} // namespace sluice::ir
