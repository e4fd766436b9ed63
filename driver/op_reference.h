// driver/op_reference.h: the op reference generated from the op registry:
// every op with its TF names, signature, dtypes, attrs, flags, gradient
// and kernels, as terminal text (`sluice ops`, the REPL's `:doc`) and as
// Markdown (docs/reference/ops.md, `sluice ops --markdown`).
#pragma once

#include <string>

#include "ir/op_registry.h"

namespace sluice::driver {

/// `name(arg, attr: default, ...) -> out: type, ...`, in TF1's Python
/// positional order.
std::string opSignature(const ir::OpDef &op);

/// One op in detail, a fact a line: its signature and summary, TF names,
/// inputs, outputs, attrs, flags, gradient and kernels.
std::string opDoc(const ir::OpDef &op);

/// Every op of `reg`, one line each (name, gradient, kernels, TF names),
/// grouped by family: `sluice ops`.
std::string opListing(const ir::OpRegistry &reg);

/// The Markdown reference of every op of `reg`: an overview table per
/// family, then a section per op. The same registry gives the same bytes.
std::string opReferenceMarkdown(const ir::OpRegistry &reg);

} // namespace sluice::driver
