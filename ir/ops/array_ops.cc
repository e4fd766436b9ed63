// ir/ops/array_ops.cc: array op rows.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerArrayOps(OpRegistry &reg) { (void)reg; }

} // namespace sluice::ir
