// backend/priority_queue.cc: the heap and the priority component checks.
#include "backend/priority_queue.h"

#include <algorithm>

namespace sluice::backend {

namespace {
// std::*_heap keep the largest first; "larger" here means later to leave.
bool leavesLater(const auto &a, const auto &b) {
  return a.priority != b.priority ? a.priority > b.priority : a.seq > b.seq;
}
} // namespace

void PriorityQueue::pushLocked(Tuple t) {
  int64_t p = t[0].scalarValue<int64_t>();
  heap_.push_back(Entry{p, nextSeq_++, std::move(t)});
  std::push_heap(heap_.begin(), heap_.end(),
                 [](const Entry &a, const Entry &b) { return leavesLater(a, b); });
}

QueueInterface::Tuple PriorityQueue::popLocked() {
  std::pop_heap(heap_.begin(), heap_.end(),
                [](const Entry &a, const Entry &b) { return leavesLater(a, b); });
  Tuple t = std::move(heap_.back().tuple);
  heap_.pop_back();
  return t;
}

Status PriorityQueue::validateTuple(const Tuple &t) const {
  SLUICE_TRY(QueueBase::validateTuple(t));
  if (t[0].rank() != 0)
    return invalidArgument("Expected the priority element to be a scalar, but received shape: " +
                           queueDimsString(t[0].dims()));
  return Status::ok();
}

Status PriorityQueue::validateManyTuple(const Tuple &t) const {
  SLUICE_TRY(QueueBase::validateManyTuple(t));
  if (t[0].rank() != 1)
    return invalidArgument("Expected the priority element to be a vector, but received shape: " +
                           queueDimsString(t[0].dims()));
  return Status::ok();
}

Status PriorityQueue::checkDequeueMany() const {
  if (specifiedShapes())
    return Status::ok();
  return invalidArgument(
      "PriorityQueue's DequeueMany requires the components to have specified shapes.");
}

} // namespace sluice::backend
