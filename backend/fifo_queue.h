// backend/fifo_queue.h: FIFOQueue and PaddingFIFOQueue (TF's fifo_queue.cc,
// padding_fifo_queue.cc): elements leave in arrival order.
#pragma once

#include <deque>

#include "backend/queue_base.h"
#include "backend/row_ring.h"

namespace sluice::backend {

class FIFOQueue : public QueueBase {
public:
  explicit FIFOQueue(QueueSpec spec);

protected:
  int64_t storedLocked() const override {
    return rows_ ? rows_->size() : static_cast<int64_t>(elements_.size());
  }
  void pushLocked(Tuple t) override;
  Tuple popLocked() override;
  void unreserveLocked(std::vector<Tuple> &reserved) override;

  bool rowStorage() const override { return rows_ != nullptr; }
  void pushRowsLocked(const Tuple &batch, int64_t from, int64_t n) override {
    rows_->pushRows(batch, from, n);
  }
  void popIntoLocked(Tuple &batch, int64_t row) override {
    rows_->copyTo(0, batch, row);
    rows_->popFront();
  }
  void popManyIntoLocked(Tuple &batch, int64_t row, int64_t n) override {
    rows_->popFrontInto(RowRing::Target(batch), row, n);
  }
  void unreserveRowsLocked(const Tuple &batch, int64_t n) override {
    for (int64_t r = n; r-- > 0;) // back to the front, in their order
      rows_->pushFront(batch, r);
  }

  /// Fully defined shapes: elements live as rows (a PaddingFIFOQueue with
  /// unknown dims keeps tuples and pads in makeBatch).
  std::unique_ptr<RowRing> rows_;

private:
  std::deque<Tuple> elements_; // guarded by mu_ (without rows_)
};

/// A FIFOQueue whose shapes may have unknown dims; dequeue_many and
/// dequeue_up_to pad them to the batch maximum with the dtype's zero.
class PaddingFIFOQueue : public FIFOQueue {
public:
  explicit PaddingFIFOQueue(QueueSpec spec) : FIFOQueue(std::move(spec)) {}
  bool shapesMatch(const std::vector<ir::Shape> &other) const override {
    if (other.size() != spec_.shapes.size())
      return false;
    for (size_t i = 0; i < other.size(); ++i)
      if (!other[i].isCompatibleWith(spec_.shapes[i]))
        return false;
    return true;
  }

protected:
  Expected<Tuple> makeBatch(const std::vector<Tuple> &elements) const override;
  // TF's padding queue inherits FIFOQueue's enqueue messages.
  std::string enqueueTypeName() const override { return "FIFOQueue"; }
};

} // namespace sluice::backend
