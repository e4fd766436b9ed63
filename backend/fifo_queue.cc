// backend/fifo_queue.cc: FIFOQueue's storage (rows for fixed shapes, else
// tuples) and PaddingFIFOQueue's padded batches.
#include "backend/fifo_queue.h"

#include <algorithm>
#include <cstring>

namespace sluice::backend {

namespace {

constexpr int kMaxPaddedRank = 4; // TF's PaddingFIFOQueue limit

// Copies `src` (dims sd) into the block of `dst` that starts at element
// `offset`, where dst's trailing dims are dd (each >= sd's).
void copyPadded(const ir::Tensor &src, ir::Tensor &dst, int64_t offset,
                const ir::Dims &sd, const ir::Dims &dd) {
  int rank = static_cast<int>(sd.size());
  if (src.numElements() == 0)
    return;
  size_t esize = ir::dtypeSize(src.dtype());
  bool pod = ir::isPod(src.dtype());
  // Iterate over every row (all dims but the last) of src.
  int64_t inner = rank == 0 ? 1 : sd[rank - 1];
  int64_t rows = rank == 0 ? 1 : src.numElements() / std::max<int64_t>(inner, 1);
  std::vector<int64_t> dstStrides(rank, 1);
  for (int d = rank - 2; d >= 0; --d)
    dstStrides[d] = dstStrides[d + 1] * dd[d + 1];
  std::vector<int64_t> idx(std::max(rank - 1, 0), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t dstOff = offset;
    for (int d = 0; d < rank - 1; ++d)
      dstOff += idx[d] * dstStrides[d];
    int64_t srcOff = r * inner;
    if (pod)
      std::memcpy(static_cast<char *>(dst.rawData()) + dstOff * esize,
                  static_cast<const char *>(src.rawData()) + srcOff * esize, inner * esize);
    else
      for (int64_t k = 0; k < inner; ++k)
        dst.strings()[dstOff + k] = src.strings()[srcOff + k];
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < sd[d])
        break;
      idx[d] = 0;
    }
  }
}

} // namespace

FIFOQueue::FIFOQueue(QueueSpec spec) : QueueBase(std::move(spec)) {
  if (RowRing::supports(spec_.types, spec_.shapes))
    rows_ = std::make_unique<RowRing>(spec_.types, spec_.shapes);
}

void FIFOQueue::pushLocked(Tuple t) {
  if (rows_)
    rows_->pushBack(t, -1);
  else
    elements_.push_back(std::move(t));
}

QueueInterface::Tuple FIFOQueue::popLocked() {
  if (rows_) {
    Tuple t = rows_->element(0);
    rows_->popFront();
    return t;
  }
  Tuple t = std::move(elements_.front());
  elements_.pop_front();
  return t;
}

void FIFOQueue::unreserveLocked(std::vector<Tuple> &reserved) {
  for (auto it = reserved.rbegin(); it != reserved.rend(); ++it) {
    if (rows_)
      rows_->pushFront(*it, -1);
    else
      elements_.push_front(std::move(*it));
  }
}

Expected<QueueInterface::Tuple>
PaddingFIFOQueue::makeBatch(const std::vector<Tuple> &elements) const {
  if (elements.empty())
    return QueueBase::makeBatch(elements);
  Tuple out;
  int64_t k = static_cast<int64_t>(elements.size());
  for (int c = 0; c < numComponents(); ++c) {
    ir::Dims maxDims = elements[0][c].dims();
    int rank = static_cast<int>(maxDims.size());
    if (rank > kMaxPaddedRank)
      return unimplemented("PaddingFIFOQueue: elements of rank " + std::to_string(rank) +
                           " are not supported (at most " +
                           std::to_string(kMaxPaddedRank) + ")");
    for (const Tuple &e : elements)
      for (int d = 0; d < rank; ++d)
        maxDims[d] = std::max(maxDims[d], e[c].dim(d));
    ir::Dims dims{k};
    dims.insert(dims.end(), maxDims.begin(), maxDims.end());
    ir::Tensor batch(spec_.types[c], dims); // zeros, "" and false
    int64_t per = ir::numElements(maxDims);
    for (int64_t r = 0; r < k; ++r)
      copyPadded(elements[r][c], batch, r * per, elements[r][c].dims(), maxDims);
    out.push_back(std::move(batch));
  }
  return out;
}

} // namespace sluice::backend
