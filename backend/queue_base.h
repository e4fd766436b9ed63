// backend/queue_base.h: TF's attempt model shared by the four queues: two
// FIFO attempt lists (enqueue side, dequeue side) retried after every
// change, partial progress, close, cancellation (docs/tf1-semantics.md §1).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/kernel.h"
#include "backend/queue_interface.h"

namespace sluice::backend {

/// What a queue-creating node asks for; used to create a queue and to
/// check that re-opening a shared queue asks for the same one.
struct QueueSpec {
  std::string type; // "FIFOQueue", "RandomShuffleQueue", ...
  std::string name; // shared_name, or `_<uid>_<node name>`
  int64_t capacity = -1;
  std::vector<ir::DType> types; // full tuple (PriorityQueue: i64 first)
  std::vector<ir::Shape> shapes; // empty: unconstrained
  int64_t minAfterDequeue = 0;
  int64_t seed = 0, seed2 = 0;
  /// The creating session's mode (KernelContext::deterministic): a
  /// RandomShuffleQueue then draws from a logical buffer, so what a
  /// dequeue returns does not depend on timing.
  bool deterministic = false;
};

class QueueBase : public QueueInterface,
                  public std::enable_shared_from_this<QueueBase> {
public:
  explicit QueueBase(QueueSpec spec);
  ~QueueBase() override;

  std::string kind() const override { return spec_.type; }
  void tryEnqueue(Tuple element, CancellationManager *cm,
                  StatusCallback done) override;
  void tryEnqueueMany(Tuple batch, CancellationManager *cm,
                      StatusCallback done) override;
  void tryDequeue(CancellationManager *cm, TupleCallback done) override;
  void tryDequeueMany(int64_t n, bool allowSmaller, CancellationManager *cm,
                      TupleCallback done) override;
  void close(bool cancelPendingEnqueues, StatusCallback done) override;
  int64_t size() override;
  int64_t numBlockedDequeuers() override;
  bool isClosed() override;
  const std::vector<ir::DType> &componentTypes() const override {
    return spec_.types;
  }
  const std::vector<ir::Shape> &componentShapes() const override {
    return spec_.shapes;
  }
  const std::string &name() const override { return spec_.name; }

  int64_t capacity() const { return spec_.capacity; }
  int numComponents() const { return static_cast<int>(spec_.types.size()); }
  const QueueSpec &spec() const { return spec_; }
  /// Whether re-opening with `other` gets this queue; invalid_argument with
  /// TF's words ("capacity", "component types", ...) otherwise.
  virtual Status matches(const QueueSpec &other) const;
  /// Exact for fully defined shapes; PaddingFIFOQueue: compatible.
  virtual bool shapesMatch(const std::vector<ir::Shape> &other) const {
    return other == spec_.shapes;
  }

protected:
  enum class RunResult { kNoProgress, kProgress, kComplete };
  struct Attempt;
  using RunFn = std::function<RunResult(Attempt &)>;
  struct Attempt {
    uint64_t id = 0;
    int64_t requested = 0; // elements still to move
    int64_t total = 0;     // elements the request started with
    CancellationManager *cm = nullptr;
    CancellationManager::Token token = CancellationManager::kInvalidToken;
    RunFn run;
    Status status;
    StatusCallback statusDone;
    TupleCallback tupleDone;
    Tuple input;                 // enqueue: the element or the batch
    std::vector<Tuple> reserved; // dequeue_many: elements taken so far
    /// Row storage: dequeue_many fills `result` (allocated for `total`
    /// rows) in place; rows [0, reservedRows) are taken so far.
    int64_t reservedRows = 0;
    Tuple result;
  };

  // Storage, called with mu_ held. Reserved elements are not stored.
  virtual int64_t storedLocked() const = 0;
  virtual void pushLocked(Tuple t) = 0;
  virtual Tuple popLocked() = 0;
  /// Gives back a failed batch's elements (FIFO: to the front, in order).
  virtual void unreserveLocked(std::vector<Tuple> &reserved) = 0;
  /// How many elements a dequeue may take now (RandomShuffle keeps
  /// min_after_dequeue back while open).
  virtual int64_t dequeuableLocked() const { return storedLocked(); }
  /// PriorityQueue never reserves: dequeue_many waits for n at once.
  virtual bool reservesPartialBatches() const { return true; }
  /// The elements popped since the last call left the queue for good (a
  /// dequeue completed). Only the front dequeue attempt ever pops, so
  /// what unreserveLocked gives back is always the latest pops.
  virtual void commitPopsLocked() {}

  // Row storage (RowRing: fixed-shape elements as rows of columns), for
  // queues that return true from rowStorage(): enqueue_many and
  // dequeue_many then move rows without a tensor per element.
  virtual bool rowStorage() const { return false; }
  /// Stores rows [from, from + n) of `batch`.
  virtual void pushRowsLocked(const Tuple &batch, int64_t from, int64_t n);
  /// Removes the next element into row `row` of `batch`.
  virtual void popIntoLocked(Tuple &batch, int64_t row);
  /// Removes the next `n` elements into rows [row, row + n), in order.
  virtual void popManyIntoLocked(Tuple &batch, int64_t row, int64_t n) {
    for (int64_t k = 0; k < n; ++k)
      popIntoLocked(batch, row + k);
  }
  /// Gives back rows [0, n) of `batch`, the latest pops in pop order.
  virtual void unreserveRowsLocked(const Tuple &batch, int64_t n);
  /// Uninitialized batch tensors for `rows` elements of the spec's shapes.
  Tuple allocateBatch(int64_t rows) const;

  virtual Status validateTuple(const Tuple &t) const;
  virtual Status validateManyTuple(const Tuple &t) const;
  /// Error when dequeue_many/up_to is not allowed (unspecified shapes).
  virtual Status checkDequeueMany() const;
  /// Stacks elements (component i: [k] + element dims). PaddingFIFOQueue
  /// pads to the batch maximum.
  virtual Expected<Tuple> makeBatch(const std::vector<Tuple> &elements) const;
  /// The name in "<Type> '<name>' is closed." (PaddingFIFOQueue says
  /// FIFOQueue there, as TF does).
  virtual std::string enqueueTypeName() const { return spec_.type; }
  bool specifiedShapes() const { return !spec_.shapes.empty(); }

  QueueSpec spec_;
  bool closed_ = false; // guarded by mu_

private:
  enum class Side { kEnqueue, kDequeue };
  struct Cleanup {
    std::function<void()> finish;
    CancellationManager *cm;
    CancellationManager::Token token;
  };

  /// Registers the attempt (or fails it at once when `cm` is cancelled)
  /// and retries the lists.
  void addAttempt(Side side, Attempt a);
  bool tryAttemptsLocked(Side side, std::vector<Cleanup> &cleanups);
  void flush();
  void cancelAttempt(Side side, uint64_t id);
  static std::function<void()> finisher(Attempt &a);

  RunResult runEnqueue(Attempt &a);
  RunResult runEnqueueMany(Attempt &a);
  RunResult runDequeue(Attempt &a);
  RunResult runDequeueMany(Attempt &a, bool allowSmaller);
  RunResult runClose(Attempt &a);

  std::mutex mu_;
  uint64_t nextId_ = 1;              // guarded by mu_
  std::deque<Attempt> enqueueAttempts_, dequeueAttempts_; // guarded by mu_
};

/// TensorShape::DebugString's form: "[2,3]", "[]", "[?,3]".
std::string queueShapeString(const ir::Shape &s);
std::string queueDimsString(const ir::Dims &d);
/// Row `row` of `batch` (its dims minus dim 0), copied.
ir::Tensor sliceRow(const ir::Tensor &batch, int64_t row);
/// Copies `element` into row `row` of `batch` (same trailing dims).
void copyIntoRow(const ir::Tensor &element, ir::Tensor &batch, int64_t row);

/// Creates the queue that `spec.type` names; invalid_argument for bad
/// capacity/min_after_dequeue/priority components (TF's kernel checks).
Expected<std::shared_ptr<QueueBase>> makeQueue(const QueueSpec &spec);

/// The queue named by resource-handle input `input` of a running kernel
/// (queue ops, readers).
Expected<std::shared_ptr<QueueInterface>> lookupQueue(KernelContext &ctx,
                                                      int input);

/// Opens the queue a creating node describes: a private queue in the
/// session's resources (key "#private:<node name>") or, with a
/// shared_name, the process-wide queue of that (container, name), which
/// lives while some session holds it. Returns the handle key.
Expected<std::string> openQueue(ResourceMgr &resources,
                                const std::string &container,
                                const std::string &sharedName,
                                const std::string &nodeName, QueueSpec spec);

} // namespace sluice::backend
