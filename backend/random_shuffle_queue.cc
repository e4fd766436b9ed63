// backend/random_shuffle_queue.cc: seeded uniform removal (TF's bag, or
// the deterministic logical buffer) and the extra sharing checks
// (min_after_dequeue, seeds, mode).
#include "backend/random_shuffle_queue.h"

namespace sluice::backend {

namespace {

uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string modeName(bool deterministic) { return deterministic ? "true" : "false"; }

} // namespace

RandomShuffleQueue::RandomShuffleQueue(QueueSpec spec) : QueueBase(std::move(spec)) {
  if (RowRing::supports(spec_.types, spec_.shapes)) {
    rows_ = std::make_unique<RowRing>(spec_.types, spec_.shapes);
    if (spec_.deterministic)
      windowRows_ = std::make_unique<RowRing>(spec_.types, spec_.shapes);
  }
  if (spec_.seed == 0 && spec_.seed2 == 0) {
    std::random_device rd;
    rng_.seed((uint64_t(rd()) << 32) ^ rd());
    drawKey_ = (uint64_t(rd()) << 32) ^ rd();
  } else {
    std::seed_seq seq{uint32_t(spec_.seed), uint32_t(uint64_t(spec_.seed) >> 32),
                      uint32_t(spec_.seed2), uint32_t(uint64_t(spec_.seed2) >> 32)};
    rng_.seed(seq);
    uint64_t s = static_cast<uint64_t>(spec_.seed);
    drawKey_ = splitmix64(s);
    s = drawKey_ ^ static_cast<uint64_t>(spec_.seed2);
    drawKey_ = splitmix64(s);
  }
}

size_t RandomShuffleQueue::drawIndex(uint64_t k, size_t n) const {
  if (n <= 1)
    return 0;
  uint64_t state = k;
  state = drawKey_ ^ splitmix64(state);
  // Rejection keeps every slot equally likely.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do
    x = splitmix64(state);
  while (x >= limit);
  return static_cast<size_t>(x % n);
}

size_t RandomShuffleQueue::nextIndex(size_t n) {
  if (!spec_.deterministic) {
    std::uniform_int_distribution<size_t> pick(0, n - 1);
    return pick(rng_);
  }
  return drawIndex(draws_++, n);
}

bool RandomShuffleQueue::refillWindowRows() {
  if (rows_->empty())
    return false;
  windowRows_->pushBackRowOf(*rows_, 0);
  rows_->popFront();
  return true;
}

void RandomShuffleQueue::pushRowsLocked(const Tuple &batch, int64_t from, int64_t n) {
  if (spec_.deterministic) {
    // The window takes the oldest min_after_dequeue + 1; the rest wait.
    int64_t room = std::max<int64_t>(0, spec_.minAfterDequeue + 1 - windowRows_->size());
    int64_t k = std::min(room, n);
    for (int64_t r = 0; r < k; ++r)
      windowRows_->pushBack(batch, from + r);
    from += k;
    n -= k;
  }
  rows_->pushRows(batch, from, n);
}

void RandomShuffleQueue::popIntoLocked(Tuple &batch, int64_t row) {
  popManyIntoLocked(batch, row, 1);
}

void RandomShuffleQueue::popManyIntoLocked(Tuple &batch, int64_t row, int64_t n) {
  RowRing::Target target(batch);
  RowRing &bag = spec_.deterministic ? *windowRows_ : *rows_;
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = static_cast<int64_t>(nextIndex(static_cast<size_t>(bag.size())));
    bag.takeSwap(i, target, row + k); // the last element moves into the hole, as in TF
    if (spec_.deterministic)
      popLog_.push_back({static_cast<size_t>(i), refillWindowRows()});
  }
}

void RandomShuffleQueue::unreserveRowsLocked(const Tuple &batch, int64_t n) {
  if (!spec_.deterministic) {
    rows_->pushRows(batch, 0, n);
    return;
  }
  // As unreserveLocked: undo the pops newest first.
  for (int64_t j = n; j-- > 0;) {
    if (popLog_.empty()) { // unreachable while QueueBase keeps its invariant
      windowRows_->pushBack(batch, j);
      continue;
    }
    PopRecord rec = popLog_.back();
    popLog_.pop_back();
    if (rec.refilled) {
      rows_->pushFrontRowOf(*windowRows_, windowRows_->size() - 1);
      windowRows_->popBack();
    }
    int64_t index = static_cast<int64_t>(rec.index);
    if (index == windowRows_->size()) {
      windowRows_->pushBack(batch, j);
    } else {
      windowRows_->pushBackRowOf(*windowRows_, index);
      windowRows_->assign(index, batch, j);
    }
    --draws_;
  }
}

void RandomShuffleQueue::pushLocked(Tuple t) {
  if (rows_) {
    bool toWindow = spec_.deterministic &&
                    windowRows_->size() < spec_.minAfterDequeue + 1;
    (toWindow ? *windowRows_ : *rows_).pushBack(t, -1);
    return;
  }
  if (!spec_.deterministic)
    elements_.push_back(std::move(t));
  else if (window_.size() < static_cast<size_t>(spec_.minAfterDequeue) + 1)
    window_.push_back(std::move(t));
  else
    overflow_.push_back(std::move(t));
}

QueueInterface::Tuple RandomShuffleQueue::popLocked() {
  if (rows_) {
    Tuple t = allocateBatch(1);
    popIntoLocked(t, 0);
    for (ir::Tensor &c : t) // a batch of one, without its leading dim
      c = c.reshaped(ir::Dims(c.dims().begin() + 1, c.dims().end()));
    return t;
  }
  if (!spec_.deterministic) {
    // The last element moves into the hole, as in TF.
    std::uniform_int_distribution<size_t> pick(0, elements_.size() - 1);
    size_t i = pick(rng_);
    Tuple t = std::move(elements_[i]);
    if (i + 1 != elements_.size())
      elements_[i] = std::move(elements_.back());
    elements_.pop_back();
    return t;
  }
  // The window holds the oldest elements, so it is never empty here. While
  // open it is full (a dequeue waits for min_after_dequeue + 1 stored);
  // once closed nothing else arrives, so its size is fixed by the draws.
  size_t i = drawIndex(draws_++, window_.size());
  Tuple t = std::move(window_[i]);
  if (i + 1 != window_.size())
    window_[i] = std::move(window_.back());
  window_.pop_back();
  bool refilled = !overflow_.empty();
  if (refilled) {
    window_.push_back(std::move(overflow_.front()));
    overflow_.pop_front();
  }
  popLog_.push_back({i, refilled});
  return t;
}

void RandomShuffleQueue::unreserveLocked(std::vector<Tuple> &reserved) {
  if (rows_) {
    Tuple batch = allocateBatch(static_cast<int64_t>(reserved.size()));
    for (size_t r = 0; r < reserved.size(); ++r)
      for (size_t c = 0; c < batch.size(); ++c)
        copyIntoRow(reserved[r][c], batch[c], static_cast<int64_t>(r));
    unreserveRowsLocked(batch, static_cast<int64_t>(reserved.size()));
    return;
  }
  if (!spec_.deterministic) {
    for (auto &t : reserved)
      elements_.push_back(std::move(t));
    return;
  }
  // The reserved elements are the latest pops, in order (QueueBase:
  // only the front dequeue pops): undo them newest first, which restores
  // the layout and the draw count exactly, so a cancelled or retried
  // dequeue_many leaves no trace.
  for (size_t j = reserved.size(); j-- > 0;) {
    if (popLog_.empty()) { // unreachable while QueueBase keeps its invariant
      pushLocked(std::move(reserved[j]));
      continue;
    }
    PopRecord rec = popLog_.back();
    popLog_.pop_back();
    if (rec.refilled) {
      overflow_.push_front(std::move(window_.back()));
      window_.pop_back();
    }
    if (rec.index == window_.size()) {
      window_.push_back(std::move(reserved[j]));
    } else {
      window_.push_back(std::move(window_[rec.index]));
      window_[rec.index] = std::move(reserved[j]);
    }
    --draws_;
  }
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
  // The first session decides how the queue draws; a session that asks
  // for the other mode would silently not get it.
  if (o.deterministic != spec_.deterministic)
    return invalidArgument("Shared queue '" + spec_.name + "' was created by a session with "
                           "deterministic: " + modeName(spec_.deterministic) +
                           " but this session has deterministic: " +
                           modeName(o.deterministic));
  return Status::ok();
}

} // namespace sluice::backend
