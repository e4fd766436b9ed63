// ir/ops/array_strided_slice.h: TF's strided_slice index canonicalization,
// shared by the op's shape function and its CPU kernel so that both report
// the same shapes and the same errors.
#pragma once

#include <cstdint>
#include <vector>

#include "support/status.h"

namespace sluice::ir {

struct StridedSliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, newAxis = 0, shrinkAxis = 0;
};

/// Where a strided_slice reads, per input dim, and what it returns.
struct StridedSlicePlan {
  /// Per input dim: first index read, step, and count (-1 when unknown).
  std::vector<int64_t> begin, stride, size;
  /// The output dims after new axes are added and shrunk axes dropped.
  std::vector<int64_t> finalDims;
  /// Every input dim is read whole with step 1: the output is the input
  /// reshaped, so the kernel can share its buffer.
  bool identity = true;
};

/// `inputDims` may hold -1 for unknown dims. `begin`, `end` and `strides`
/// are null when their values are not known statically; `specLen` is their
/// length. Errors are TF's invalid_argument messages.
Expected<StridedSlicePlan>
planStridedSlice(const std::vector<int64_t> &inputDims,
                 const std::vector<int64_t> *begin,
                 const std::vector<int64_t> *end,
                 const std::vector<int64_t> *strides, int64_t specLen,
                 const StridedSliceMasks &masks);

} // namespace sluice::ir
