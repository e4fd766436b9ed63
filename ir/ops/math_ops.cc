// ir/ops/math_ops.cc: math op rows.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerMathOps(OpRegistry &reg) { (void)reg; }

} // namespace sluice::ir
