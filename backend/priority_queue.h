// backend/priority_queue.h: PriorityQueue (TF's priority_queue.cc): the
// smallest int64 priority (component 0) leaves first; ties leave in
// arrival order. dequeue_many never reserves: it waits for n at once.
#pragma once

#include "backend/queue_base.h"

namespace sluice::backend {

class PriorityQueue : public QueueBase {
public:
  explicit PriorityQueue(QueueSpec spec) : QueueBase(std::move(spec)) {}

protected:
  int64_t storedLocked() const override {
    return static_cast<int64_t>(heap_.size());
  }
  void pushLocked(Tuple t) override;
  Tuple popLocked() override;
  void unreserveLocked(std::vector<Tuple> &reserved) override {
    for (auto &t : reserved)
      pushLocked(std::move(t));
  }
  bool reservesPartialBatches() const override { return false; }
  Status validateTuple(const Tuple &t) const override;
  Status validateManyTuple(const Tuple &t) const override;
  Status checkDequeueMany() const override;

private:
  struct Entry {
    int64_t priority;
    uint64_t seq;
    Tuple tuple;
  };
  std::vector<Entry> heap_; // guarded by mu_; a min-heap on (priority, seq)
  uint64_t nextSeq_ = 0;    // guarded by mu_
};

} // namespace sluice::backend
