// backend/fifo_queue.h: FIFOQueue and PaddingFIFOQueue (TF's fifo_queue.cc,
// padding_fifo_queue.cc): elements leave in arrival order.
#pragma once

#include <deque>

#include "backend/queue_base.h"

namespace sluice::backend {

class FIFOQueue : public QueueBase {
public:
  explicit FIFOQueue(QueueSpec spec) : QueueBase(std::move(spec)) {}

protected:
  int64_t storedLocked() const override {
    return static_cast<int64_t>(elements_.size());
  }
  void pushLocked(Tuple t) override { elements_.push_back(std::move(t)); }
  Tuple popLocked() override {
    Tuple t = std::move(elements_.front());
    elements_.pop_front();
    return t;
  }
  void unreserveLocked(std::vector<Tuple> &reserved) override {
    for (auto it = reserved.rbegin(); it != reserved.rend(); ++it)
      elements_.push_front(std::move(*it));
  }

private:
  std::deque<Tuple> elements_; // guarded by mu_
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
