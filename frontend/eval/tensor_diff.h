// frontend/eval/tensor_diff.h: what a failed tensor comparison prints. A
// test that compares a 10,000-element result needs to say where it went
// wrong and by how much, not print two walls of numbers.
#pragma once

#include <optional>
#include <string>

#include "ir/tensor.h"

namespace sluice::frontend {

/// How two host tensors differ, as indented lines for a test failure, or
/// nullopt when they match: exactly, or for numbers within `tol` when it
/// is given (then NaN matches NaN). A different dtype or shape says so;
/// otherwise the count of differing elements, the first few with their
/// indices, and for numbers the max absolute and relative error and where.
std::optional<std::string> describeTensorDifference(const ir::Tensor &actual,
                                                    const ir::Tensor &expected,
                                                    std::optional<double> tol);

/// A flat index as a multi-index: 5 in [2, 3] is "[1, 2]".
std::string multiIndex(const ir::Dims &dims, int64_t flat);

} // namespace sluice::frontend
