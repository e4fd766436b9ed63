// backend/random_shuffle_queue.h: RandomShuffleQueue (TF's
// random_shuffle_queue_op.cc): uniform random removal, keeping
// min_after_dequeue elements back while the queue is open.
#pragma once

#include <algorithm>
#include <deque>
#include <random>

#include "backend/queue_base.h"
#include "backend/row_ring.h"

namespace sluice::backend {

class RandomShuffleQueue : public QueueBase {
public:
  /// seed = seed2 = 0 seeds from the system (nondeterministic).
  explicit RandomShuffleQueue(QueueSpec spec);
  Status matches(const QueueSpec &other) const override;

protected:
  int64_t storedLocked() const override {
    if (rows_)
      return spec_.deterministic ? windowRows_->size() + rows_->size() : rows_->size();
    return static_cast<int64_t>(spec_.deterministic ? window_.size() + overflow_.size()
                                                    : elements_.size());
  }
  void pushLocked(Tuple t) override;
  Tuple popLocked() override;
  void unreserveLocked(std::vector<Tuple> &reserved) override;

  bool rowStorage() const override { return rows_ != nullptr; }
  void pushRowsLocked(const Tuple &batch, int64_t from, int64_t n) override;
  void popIntoLocked(Tuple &batch, int64_t row) override;
  void popManyIntoLocked(Tuple &batch, int64_t row, int64_t n) override;
  void unreserveRowsLocked(const Tuple &batch, int64_t n) override;
  void commitPopsLocked() override { popLog_.clear(); }
  /// Closed: the floor no longer applies.
  int64_t dequeuableLocked() const override {
    int64_t n = storedLocked();
    return closed_ ? n : std::max<int64_t>(0, n - spec_.minAfterDequeue);
  }

private:
  /// Deterministic mode: the index the k-th draw takes in a window of n,
  /// a pure function of (seeds, k), so a draw given back is drawn again
  /// the same way.
  size_t drawIndex(uint64_t k, size_t n) const;
  /// Which stored element the next pop takes (and, deterministic, the
  /// bookkeeping that lets unreserve undo it).
  size_t nextIndex(size_t n);
  /// Row storage, deterministic: refills the window from rows_ after a pop.
  bool refillWindowRows();

  // TF's mode: a bag; which element a dequeue gets depends on which ones
  // happened to be enqueued by then.
  std::vector<Tuple> elements_; // guarded by mu_
  std::mt19937_64 rng_;         // guarded by mu_

  // Deterministic mode: the k-th dequeue draws from the first
  // min_after_dequeue + k + 1 elements enqueued and not yet taken. Those
  // are window_ (at most min_after_dequeue + 1, in an order fixed by the
  // draws alone); later ones wait in overflow_ in enqueue order, and
  // overflow_ is empty unless window_ is full. The layout after a given
  // sequence of enqueued elements and draws is the same however enqueues
  // and dequeues interleave.
  struct PopRecord {
    size_t index;  // the window slot drawn
    bool refilled; // overflow_'s front moved into the window after it
  };
  std::vector<Tuple> window_;      // guarded by mu_
  std::deque<Tuple> overflow_;     // guarded by mu_
  std::vector<PopRecord> popLog_;  // uncommitted pops, guarded by mu_

  // Row storage (fully defined shapes) instead of the tuples above: the
  // bag (TF's mode), or the overflow with windowRows_ as the window.
  std::unique_ptr<RowRing> rows_, windowRows_; // guarded by mu_
  uint64_t draws_ = 0;             // draws so far, guarded by mu_
  uint64_t drawKey_ = 0;           // from the seeds
};

} // namespace sluice::backend
