// backend/queue_interface.h: what kernels (queue ops, readers) see of a
// queue resource. Every blocking operation is asynchronous: it calls
// `done` exactly once, possibly from another thread, and never blocks the
// caller (TF's QueueInterface; semantics in docs/tf1-semantics.md §1).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backend/resource_mgr.h"
#include "ir/shape.h"
#include "ir/tensor.h"
#include "support/cancellation.h"

namespace sluice::backend {

class QueueInterface : public Resource {
public:
  /// One element: a tensor per component.
  using Tuple = std::vector<ir::Tensor>;
  using StatusCallback = std::function<void(Status)>;
  using TupleCallback = std::function<void(Status, Tuple)>;

  /// Enqueues one element; blocks (asynchronously) while full. A closed
  /// queue fails cancelled "<Type> '<name>' is closed.".
  virtual void tryEnqueue(Tuple element, CancellationManager *cm,
                          StatusCallback done) = 0;
  /// Enqueues the rows of `batch` (dim 0 of every component).
  virtual void tryEnqueueMany(Tuple batch, CancellationManager *cm,
                              StatusCallback done) = 0;
  /// Dequeues one element; out_of_range once closed and empty.
  virtual void tryDequeue(CancellationManager *cm, TupleCallback done) = 0;
  /// Dequeues `n` elements as a batch (components stacked on dim 0);
  /// with `allowSmaller` (dequeue_up_to) a closed queue returns what is
  /// left.
  virtual void tryDequeueMany(int64_t n, bool allowSmaller,
                              CancellationManager *cm, TupleCallback done) = 0;
  /// Closes; with cancelPendingEnqueues, pending enqueues fail cancelled.
  virtual void close(bool cancelPendingEnqueues, StatusCallback done) = 0;

  /// Dequeue attempts waiting right now (stall detection asks).
  virtual int64_t numBlockedDequeuers() { return 0; }
  virtual int64_t size() = 0;
  virtual bool isClosed() = 0;
  virtual const std::vector<ir::DType> &componentTypes() const = 0;
  virtual const std::vector<ir::Shape> &componentShapes() const = 0;
  /// The queue's name as TF prints it in messages.
  virtual const std::string &name() const = 0;
};

} // namespace sluice::backend
