// backend/row_ring.cc: the ring of rows behind fixed-shape queues.
#include "backend/row_ring.h"

#include <algorithm>
#include <cstring>

namespace sluice::backend {

namespace {

// Rows are a few bytes (a feature vector, a label): sizes known at compile
// time let the compiler inline the copy instead of calling memcpy.
inline void copyRow(void *dst, const void *src, size_t n) {
  switch (n) {
  case 4: std::memcpy(dst, src, 4); return;
  case 8: std::memcpy(dst, src, 8); return;
  case 12: std::memcpy(dst, src, 12); return;
  case 16: std::memcpy(dst, src, 16); return;
  default: std::memcpy(dst, src, n);
  }
}

} // namespace

bool RowRing::supports(const std::vector<ir::DType> &types,
                       const std::vector<ir::Shape> &shapes) {
  if (types.empty() || shapes.size() != types.size())
    return false;
  for (size_t c = 0; c < types.size(); ++c)
    if (!shapes[c].isFullyDefined() || (!ir::isPod(types[c]) && types[c] != ir::DType::kString))
      return false;
  return true;
}

RowRing::RowRing(const std::vector<ir::DType> &types, const std::vector<ir::Shape> &shapes) {
  for (size_t c = 0; c < types.size(); ++c) {
    Column col;
    col.dtype = types[c];
    col.dims = shapes[c].dims();
    col.elems = ir::numElements(col.dims);
    col.pod = ir::isPod(types[c]);
    hasStrings_ = hasStrings_ || !col.pod;
    col.rowBytes = col.pod ? static_cast<size_t>(col.elems) * ir::dtypeSize(types[c]) : 0;
    cols_.push_back(std::move(col));
  }
}

void RowRing::reserve(int64_t rows) {
  if (rows <= capacity_)
    return;
  int64_t cap = capacity_ ? capacity_ : 16;
  while (cap < rows)
    cap *= 2;
  // Re-lay the rows from physical 0, oldest first.
  for (Column &col : cols_) {
    if (col.pod) {
      std::vector<unsigned char> bytes(static_cast<size_t>(cap) * col.rowBytes);
      for (int64_t i = 0; i < size_; ++i)
        std::memcpy(bytes.data() + i * col.rowBytes,
                    col.bytes.data() + physical(i) * col.rowBytes, col.rowBytes);
      col.bytes.swap(bytes);
    } else {
      std::vector<std::string> strs(static_cast<size_t>(cap * col.elems));
      for (int64_t i = 0; i < size_; ++i)
        for (int64_t k = 0; k < col.elems; ++k)
          strs[i * col.elems + k] = std::move(col.strs[physical(i) * col.elems + k]);
      col.strs.swap(strs);
    }
  }
  capacity_ = cap;
  head_ = 0;
}

void RowRing::write(int64_t phys, const Tuple &src, int64_t row) {
  int64_t r = row < 0 ? 0 : row;
  for (size_t c = 0; c < cols_.size(); ++c) {
    Column &col = cols_[c];
    const ir::Tensor &t = src[c];
    if (col.pod) {
      if (col.rowBytes)
        copyRow(col.bytes.data() + phys * col.rowBytes,
                static_cast<const unsigned char *>(t.rawData()) + r * col.rowBytes, col.rowBytes);
    } else {
      for (int64_t k = 0; k < col.elems; ++k)
        col.strs[phys * col.elems + k] = t.strings()[r * col.elems + k];
    }
  }
}

void RowRing::copyPhysical(const RowRing &from, int64_t fromPhys, int64_t toPhys) {
  for (size_t c = 0; c < cols_.size(); ++c) {
    Column &col = cols_[c];
    const Column &src = from.cols_[c];
    if (col.pod) {
      if (col.rowBytes && (&src != &col || fromPhys != toPhys))
        copyRow(col.bytes.data() + toPhys * col.rowBytes,
                src.bytes.data() + fromPhys * col.rowBytes, col.rowBytes);
    } else {
      for (int64_t k = 0; k < col.elems; ++k)
        col.strs[toPhys * col.elems + k] = src.strs[fromPhys * col.elems + k];
    }
  }
}

void RowRing::pushBack(const Tuple &src, int64_t row) {
  reserve(size_ + 1);
  write(physical(size_), src, row);
  ++size_;
}

void RowRing::pushFront(const Tuple &src, int64_t row) {
  reserve(size_ + 1);
  head_ = (head_ - 1) & (capacity_ - 1);
  ++size_;
  write(physical(0), src, row);
}

void RowRing::pushRows(const Tuple &batch, int64_t from, int64_t n) {
  if (n <= 0)
    return;
  reserve(size_ + n);
  for (size_t c = 0; c < cols_.size(); ++c) {
    Column &col = cols_[c];
    const ir::Tensor &t = batch[c];
    if (!col.pod) {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < col.elems; ++k)
          col.strs[physical(size_ + i) * col.elems + k] = t.strings()[(from + i) * col.elems + k];
      continue;
    }
    if (!col.rowBytes)
      continue;
    // At most two contiguous runs: up to the end of the ring, then from 0.
    const auto *in = static_cast<const unsigned char *>(t.rawData()) + from * col.rowBytes;
    int64_t start = physical(size_);
    int64_t first = std::min(n, capacity_ - start);
    std::memcpy(col.bytes.data() + start * col.rowBytes, in, first * col.rowBytes);
    if (first < n)
      std::memcpy(col.bytes.data(), in + first * col.rowBytes, (n - first) * col.rowBytes);
  }
  size_ += n;
}

void RowRing::pushBackRowOf(const RowRing &other, int64_t i) {
  reserve(size_ + 1);
  copyPhysical(other, other.physical(i), physical(size_));
  ++size_;
}

void RowRing::pushFrontRowOf(const RowRing &other, int64_t i) {
  reserve(size_ + 1);
  head_ = (head_ - 1) & (capacity_ - 1);
  ++size_;
  copyPhysical(other, other.physical(i), physical(0));
}

void RowRing::release(int64_t phys) {
  // A string row gives its memory back; POD rows are just overwritten later.
  if (!hasStrings_)
    return;
  for (Column &col : cols_)
    if (!col.pod)
      for (int64_t k = 0; k < col.elems; ++k)
        std::string().swap(col.strs[phys * col.elems + k]);
}

void RowRing::popBack() {
  release(physical(size_ - 1));
  --size_;
}

void RowRing::popFront() {
  release(physical(0));
  head_ = (head_ + 1) & (capacity_ - 1);
  --size_;
}

void RowRing::move(int64_t from, int64_t to) {
  if (from != to)
    copyPhysical(*this, physical(from), physical(to));
}

void RowRing::assign(int64_t i, const Tuple &src, int64_t row) { write(physical(i), src, row); }

void RowRing::copyTo(int64_t i, Tuple &dst, int64_t dstRow) const {
  int64_t p = physical(i);
  for (size_t c = 0; c < cols_.size(); ++c) {
    const Column &col = cols_[c];
    ir::Tensor &t = dst[c];
    if (col.pod) {
      if (col.rowBytes)
        copyRow(static_cast<unsigned char *>(t.rawData()) + dstRow * col.rowBytes,
                col.bytes.data() + p * col.rowBytes, col.rowBytes);
    } else {
      for (int64_t k = 0; k < col.elems; ++k)
        t.strings()[dstRow * col.elems + k] = col.strs[p * col.elems + k];
    }
  }
}

RowRing::Target::Target(Tuple &dst) {
  for (ir::Tensor &t : dst)
    ptrs_.push_back(ir::isPod(t.dtype()) ? t.rawData() : static_cast<void *>(t.strings()));
}

void RowRing::takeSwap(int64_t i, const Target &dst, int64_t dstRow) {
  int64_t p = physical(i), last = physical(size_ - 1);
  for (size_t c = 0; c < cols_.size(); ++c) {
    Column &col = cols_[c];
    if (col.pod) {
      unsigned char *row = col.bytes.data() + p * col.rowBytes;
      copyRow(static_cast<unsigned char *>(dst.ptrs_[c]) + dstRow * col.rowBytes, row,
              col.rowBytes);
      if (p != last)
        copyRow(row, col.bytes.data() + last * col.rowBytes, col.rowBytes);
    } else {
      auto *out = static_cast<std::string *>(dst.ptrs_[c]) + dstRow * col.elems;
      for (int64_t k = 0; k < col.elems; ++k) {
        out[k] = std::move(col.strs[p * col.elems + k]);
        if (p != last)
          col.strs[p * col.elems + k] = std::move(col.strs[last * col.elems + k]);
        std::string().swap(col.strs[last * col.elems + k]);
      }
    }
  }
  --size_;
}

void RowRing::popFrontInto(const Target &dst, int64_t dstRow, int64_t n) {
  for (size_t c = 0; c < cols_.size(); ++c) {
    Column &col = cols_[c];
    if (!col.pod) {
      auto *out = static_cast<std::string *>(dst.ptrs_[c]) + dstRow * col.elems;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < col.elems; ++k)
          out[i * col.elems + k] = std::move(col.strs[physical(i) * col.elems + k]);
      continue;
    }
    if (!col.rowBytes)
      continue;
    // At most two contiguous runs: up to the end of the ring, then from 0.
    auto *out = static_cast<unsigned char *>(dst.ptrs_[c]) + dstRow * col.rowBytes;
    int64_t first = std::min(n, capacity_ - head_);
    std::memcpy(out, col.bytes.data() + head_ * col.rowBytes, first * col.rowBytes);
    if (first < n)
      std::memcpy(out + first * col.rowBytes, col.bytes.data(), (n - first) * col.rowBytes);
  }
  head_ = (head_ + n) & (capacity_ - 1);
  size_ -= n;
}

RowRing::Tuple RowRing::element(int64_t i) const {
  Tuple out;
  out.reserve(cols_.size());
  for (const Column &col : cols_)
    out.push_back(col.pod ? ir::Tensor::uninitialized(col.dtype, col.dims)
                          : ir::Tensor(col.dtype, col.dims));
  // An element is a batch of one without the leading dim: same bytes.
  copyTo(i, out, 0);
  return out;
}

} // namespace sluice::backend
