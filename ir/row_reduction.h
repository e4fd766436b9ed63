// ir/row_reduction.h: whether a reduction folds rows, the shape fusion
// can keep in one kernel with the ops around it: it reduces the last k
// dims of a fully known input and keeps them (keepdims), so its result
// broadcasts back over the row it came from (softmax's max and sum,
// layer norm's mean and variance).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace sluice::ir {

struct RowReduction {
  std::vector<int64_t> input; // the reduced value's dims
  int reducedDims = 0;        // how many trailing dims are folded (>= 1)

  /// The result's dims: the input's with the folded ones set to 1.
  std::vector<int64_t> rowDims() const;
  bool operator==(const RowReduction &o) const {
    return input == o.input && reducedDims == o.reducedDims;
  }
};

/// Set when `n` is reduce_sum/mean/max/min of that shape.
std::optional<RowReduction> rowReduction(const Graph &g, const Node &n);

/// Whether a value of `dims` can be read along rows of `r`: right-aligned
/// against r.input, each dim is 1 or r.input's, and over the folded dims
/// it is all 1 (constant along a row) or all equal (contiguous).
bool readableAlongRows(const std::vector<int64_t> &dims, const RowReduction &r);

} // namespace sluice::ir
