// ir/ops/array_strided_slice.cc: TF's ValidateStridedSliceOp: the sparse
// slice spec (with ellipsis, new axes and shrunk axes) is expanded to one
// entry per input dim, then each entry is canonicalized and clamped.
#include "ir/ops/array_strided_slice.h"

#include <algorithm>
#include <string>

namespace sluice::ir {

namespace {

constexpr int64_t kNewAxis = -1;
constexpr int64_t kShrinkAxis = -2;

bool bit(int64_t mask, int64_t i) { return i < 63 && ((mask >> i) & 1); }

// One entry per input dim, after the ellipsis is expanded.
struct DenseSpec {
  std::vector<int64_t> begin, end, stride;
  std::vector<bool> beginMasked, endMasked, shrink;
  // For each output dim before shrinking: the dense dim it comes from, or
  // kNewAxis / kShrinkAxis.
  std::vector<int64_t> gather;
};

Expected<DenseSpec> buildDenseSpec(int64_t rank,
                                   const std::vector<int64_t> *begin,
                                   const std::vector<int64_t> *end,
                                   const std::vector<int64_t> *strides,
                                   int64_t specLen, StridedSliceMasks m) {
  if (m.ellipsis & (m.ellipsis - 1))
    return invalidArgument("Multiple ellipses in slice spec not allowed");
  bool ellipsisSeen = false;
  int64_t newAxesAfterEllipsis = 0;
  for (int64_t i = 0; i < specLen; ++i) {
    if (ellipsisSeen && bit(m.newAxis, i))
      ++newAxesAfterEllipsis;
    if (bit(m.ellipsis, i))
      ellipsisSeen = true;
  }
  // Without an ellipsis, TF appends an implicit one: trailing dims are
  // taken whole.
  int64_t n = specLen;
  if (!ellipsisSeen)
    m.ellipsis |= int64_t{1} << n++;

  DenseSpec d;
  d.begin.assign(rank, 0);
  d.end.assign(rank, 0);
  d.stride.assign(rank, 1);
  d.beginMasked.assign(rank, false);
  d.endMasked.assign(rank, false);
  d.shrink.assign(rank, false);
  int64_t full = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (bit(m.ellipsis, i)) {
      int64_t next = std::min(rank - (n - i) + 1 + newAxesAfterEllipsis, rank);
      for (; full < next; ++full) {
        d.beginMasked[full] = d.endMasked[full] = true;
        d.gather.push_back(full);
      }
    } else if (bit(m.newAxis, i)) {
      d.gather.push_back(kNewAxis);
    } else {
      if (full >= rank)
        return invalidArgument("Index out of range using input dim " +
                               std::to_string(full) + "; input has only " +
                               std::to_string(rank) + " dims");
      if (begin) {
        d.begin[full] = (*begin)[i];
        d.end[full] = (*end)[i];
      }
      d.stride[full] = strides ? (*strides)[i] : 0;
      d.beginMasked[full] = bit(m.begin, i);
      d.endMasked[full] = bit(m.end, i);
      d.shrink[full] = bit(m.shrinkAxis, i);
      d.gather.push_back(d.shrink[full] ? kShrinkAxis : full);
      ++full;
    }
  }
  return d;
}

} // namespace

Expected<StridedSlicePlan>
planStridedSlice(const std::vector<int64_t> &inputDims,
                 const std::vector<int64_t> *begin,
                 const std::vector<int64_t> *end,
                 const std::vector<int64_t> *strides, int64_t specLen,
                 const StridedSliceMasks &masks) {
  int64_t rank = static_cast<int64_t>(inputDims.size());
  SLUICE_ASSIGN_OR_RETURN(
      DenseSpec d, buildDenseSpec(rank, begin, end, strides, specLen, masks));
  bool valuesKnown = begin && end;
  StridedSlicePlan plan;
  plan.begin.assign(rank, 0);
  plan.stride.assign(rank, 1);
  plan.size.assign(rank, -1);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t stride = d.stride[i];
    int64_t dim = inputDims[i];
    bool shrink = d.shrink[i];
    if (strides && stride == 0)
      return invalidArgument("strides[" + std::to_string(i) +
                             "] must be non-zero");
    if (strides && shrink && stride <= 0)
      return invalidArgument("only stride 1 allowed on non-range indexing.");
    plan.stride[i] = stride;
    if (!strides || dim < 0) {
      plan.size[i] = shrink ? 1 : -1;
      plan.identity = false;
      continue;
    }
    // A masked bound means "from the start (or end) in the stride's
    // direction"; others wrap once if negative and are clamped.
    int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool isEnd) {
      if (masked)
        return (stride > 0) != isEnd ? lo : hi;
      int64_t fwd = x < 0 ? dim + x : x;
      return std::clamp(fwd, lo, hi);
    };
    int64_t b = 0, e = 0, length = 0;
    bool known = true;
    if (valuesKnown) {
      if (shrink) {
        b = d.begin[i] < 0 ? dim + d.begin[i] : d.begin[i];
        e = b + 1;
        if (b < 0 || b >= dim)
          return invalidArgument("slice index " + std::to_string(b) +
                                 " of dimension " + std::to_string(i) +
                                 " out of bounds.");
      } else {
        b = canonical(d.begin[i], d.beginMasked[i], false);
        e = canonical(d.end[i], d.endMasked[i], true);
      }
      length = e - b;
    } else if (shrink) {
      length = 1;
    } else if (d.beginMasked[i] && d.endMasked[i]) {
      b = stride > 0 ? 0 : dim - 1;
      length = stride > 0 ? dim : -dim;
    } else {
      known = false;
    }
    if (!known) {
      plan.size[i] = -1;
      plan.identity = false;
      continue;
    }
    int64_t size = 0;
    if (length != 0 && (length < 0) == (stride < 0))
      size = length / stride + (length % stride != 0 ? 1 : 0);
    plan.begin[i] = b;
    plan.size[i] = size;
    plan.identity = plan.identity && b == 0 && stride == 1 && size == dim;
  }
  for (int64_t g : d.gather) {
    if (g == kNewAxis)
      plan.finalDims.push_back(1);
    else if (g != kShrinkAxis)
      plan.finalDims.push_back(plan.size[g]);
  }
  return plan;
}

} // namespace sluice::ir
