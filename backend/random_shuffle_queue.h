// backend/random_shuffle_queue.h: RandomShuffleQueue (TF's
// random_shuffle_queue_op.cc): uniform random removal, keeping
// min_after_dequeue elements back while the queue is open.
#pragma once

#include <algorithm>
#include <random>

#include "backend/queue_base.h"

namespace sluice::backend {

class RandomShuffleQueue : public QueueBase {
public:
  /// seed = seed2 = 0 seeds from the system (nondeterministic).
  explicit RandomShuffleQueue(QueueSpec spec);
  Status matches(const QueueSpec &other) const override;

protected:
  int64_t storedLocked() const override {
    return static_cast<int64_t>(elements_.size());
  }
  void pushLocked(Tuple t) override { elements_.push_back(std::move(t)); }
  Tuple popLocked() override;
  void unreserveLocked(std::vector<Tuple> &reserved) override {
    for (auto &t : reserved)
      elements_.push_back(std::move(t));
  }
  /// Closed: the floor no longer applies.
  int64_t dequeuableLocked() const override {
    int64_t n = storedLocked();
    return closed_ ? n : std::max<int64_t>(0, n - spec_.minAfterDequeue);
  }

private:
  std::vector<Tuple> elements_; // guarded by mu_
  std::mt19937_64 rng_;         // guarded by mu_
};

} // namespace sluice::backend
