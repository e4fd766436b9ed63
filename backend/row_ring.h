// backend/row_ring.h: queue storage for fixed-shape elements as rows of
// per-component columns in a ring, so that enqueue_many and dequeue_many
// move bytes instead of building a tensor per element, and front and back
// are both cheap (FIFO order, swap-removal, pushing back given-back rows).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/shape.h"
#include "ir/tensor.h"

namespace sluice::backend {

class RowRing {
public:
  using Tuple = std::vector<ir::Tensor>;

  /// Whether elements of these types and shapes can live as rows: every
  /// shape fully defined, every dtype numeric, bool or string.
  static bool supports(const std::vector<ir::DType> &types, const std::vector<ir::Shape> &shapes);
  RowRing(const std::vector<ir::DType> &types, const std::vector<ir::Shape> &shapes);

  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // `src` is an element (row -1: its tensors are the element) or a batch
  // (row r: row r of each component).
  void pushBack(const Tuple &src, int64_t row);
  void pushFront(const Tuple &src, int64_t row);
  /// Appends rows [from, from + n) of `batch`.
  void pushRows(const Tuple &batch, int64_t from, int64_t n);
  /// Row `i` of `other` (same layout), at the back or the front.
  void pushBackRowOf(const RowRing &other, int64_t i);
  void pushFrontRowOf(const RowRing &other, int64_t i);

  void popBack();
  void popFront();
  /// Overwrites row `to` with row `from`.
  void move(int64_t from, int64_t to);
  /// Overwrites row `i` with `src`'s row (as for pushBack).
  void assign(int64_t i, const Tuple &src, int64_t row);

  /// Copies row `i` into row `dstRow` of the batch `dst`.
  void copyTo(int64_t i, Tuple &dst, int64_t dstRow) const;

  /// A batch's element pointers, looked up once for many rows.
  class Target {
  public:
    explicit Target(Tuple &dst);

  private:
    friend class RowRing;
    std::vector<void *> ptrs_; // POD bytes, or std::string elements
  };
  /// Moves row `i` into row `dstRow` of the target; the last row takes
  /// its place (RandomShuffleQueue's swap removal).
  void takeSwap(int64_t i, const Target &dst, int64_t dstRow);
  /// Moves the first `n` rows into rows [dstRow, dstRow + n) (FIFO).
  void popFrontInto(const Target &dst, int64_t dstRow, int64_t n);
  /// Row `i` as an element (a tensor per component).
  Tuple element(int64_t i) const;

private:
  struct Column {
    ir::DType dtype;
    ir::Dims dims;            // of one element
    int64_t elems = 0;        // per row
    size_t rowBytes = 0;      // POD: elems * dtype size
    bool pod = true;
    std::vector<unsigned char> bytes; // POD rows, capacity_ of them
    std::vector<std::string> strs;    // string rows
  };

  int64_t physical(int64_t i) const { return (head_ + i) & (capacity_ - 1); }
  void reserve(int64_t rows);
  void write(int64_t phys, const Tuple &src, int64_t row);
  void copyPhysical(const RowRing &from, int64_t fromPhys, int64_t toPhys);
  void release(int64_t phys);

  std::vector<Column> cols_;
  bool hasStrings_ = false;
  int64_t capacity_ = 0; // a power of two
  int64_t head_ = 0;
  int64_t size_ = 0;
};

} // namespace sluice::backend
