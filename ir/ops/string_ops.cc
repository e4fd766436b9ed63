// ir/ops/string_ops.cc: string op rows.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

void registerStringOps(OpRegistry &reg) { (void)reg; }

} // namespace sluice::ir
