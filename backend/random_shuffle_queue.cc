// backend/random_shuffle_queue.cc: seeded uniform removal and the extra
// sharing checks (min_after_dequeue, seeds).
#include "backend/random_shuffle_queue.h"

namespace sluice::backend {

RandomShuffleQueue::RandomShuffleQueue(QueueSpec spec) : QueueBase(std::move(spec)) {
  if (spec_.seed == 0 && spec_.seed2 == 0) {
    std::random_device rd;
    rng_.seed((uint64_t(rd()) << 32) ^ rd());
  } else {
    std::seed_seq seq{uint32_t(spec_.seed), uint32_t(uint64_t(spec_.seed) >> 32),
                      uint32_t(spec_.seed2), uint32_t(uint64_t(spec_.seed2) >> 32)};
    rng_.seed(seq);
  }
}

QueueInterface::Tuple RandomShuffleQueue::popLocked() {
  // The last element moves into the hole, as in TF.
  std::uniform_int_distribution<size_t> pick(0, elements_.size() - 1);
  size_t i = pick(rng_);
  Tuple t = std::move(elements_[i]);
  if (i + 1 != elements_.size())
    elements_[i] = std::move(elements_.back());
  elements_.pop_back();
  return t;
}

Status RandomShuffleQueue::matches(const QueueSpec &o) const {
  SLUICE_TRY(QueueBase::matches(o));
  const std::string pre = "Shared queue '" + spec_.name + "' has ";
  if (o.minAfterDequeue != spec_.minAfterDequeue)
    return invalidArgument(pre + "min_after_dequeue " + std::to_string(spec_.minAfterDequeue) +
                           " but requested min_after_dequeue was " +
                           std::to_string(o.minAfterDequeue));
  bool anySeed = o.seed == 0 && o.seed2 == 0;
  if (!anySeed && (o.seed != spec_.seed || o.seed2 != spec_.seed2))
    return invalidArgument(pre + "random seeds (" + std::to_string(spec_.seed) + ", " +
                           std::to_string(spec_.seed2) + ") but requested seeds are (" +
                           std::to_string(o.seed) + ", " + std::to_string(o.seed2) + ")");
  return Status::ok();
}

} // namespace sluice::backend
