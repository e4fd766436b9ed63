// backend/queue_base.cc: the attempt machinery of every queue. All state
// changes happen under mu_; callbacks (`done`) always run after it is
// released, so a callback may use the queue again.
#include "backend/queue_base.h"

#include <algorithm>
#include <cstring>

namespace sluice::backend {

namespace {

std::string enqueueCancelled() { return "Enqueue operation was cancelled"; }
std::string dequeueCancelled() { return "Dequeue operation was cancelled"; }

} // namespace

std::string queueDimsString(const ir::Dims &d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

std::string queueShapeString(const ir::Shape &s) {
  if (!s.hasRank())
    return "<unknown>";
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i)
    out += (i ? "," : "") + (s.dim(i) < 0 ? std::string("?") : std::to_string(s.dim(i)));
  return out + "]";
}

ir::Tensor sliceRow(const ir::Tensor &batch, int64_t row) {
  ir::Dims dims(batch.dims().begin() + 1, batch.dims().end());
  ir::Tensor out = ir::Tensor::uninitialized(batch.dtype(), std::move(dims));
  int64_t n = out.numElements();
  if (ir::isPod(batch.dtype())) {
    size_t bytes = out.byteSize();
    if (bytes)
      std::memcpy(out.rawData(),
                  static_cast<const char *>(batch.rawData()) + row * bytes, bytes);
  } else {
    for (int64_t i = 0; i < n; ++i)
      out.strings()[i] = batch.strings()[row * n + i];
  }
  return out;
}

void copyIntoRow(const ir::Tensor &element, ir::Tensor &batch, int64_t row) {
  int64_t n = element.numElements();
  if (ir::isPod(element.dtype())) {
    size_t bytes = element.byteSize();
    if (bytes)
      std::memcpy(static_cast<char *>(batch.rawData()) + row * bytes,
                  element.rawData(), bytes);
  } else {
    for (int64_t i = 0; i < n; ++i)
      batch.strings()[row * n + i] = element.strings()[i];
  }
}

QueueBase::QueueBase(QueueSpec spec) : spec_(std::move(spec)) {}

QueueBase::~QueueBase() {
  // Nothing can reach a destroyed queue; fail what still waits so that no
  // step hangs on it.
  std::vector<Cleanup> cleanups;
  for (auto *list : {&enqueueAttempts_, &dequeueAttempts_}) {
    for (Attempt &a : *list) {
      a.status = cancelled(list == &enqueueAttempts_ ? enqueueCancelled()
                                                      : dequeueCancelled());
      cleanups.push_back({finisher(a), a.cm, a.token});
    }
    list->clear();
  }
  for (auto &c : cleanups) {
    if (c.cm && c.token != CancellationManager::kInvalidToken)
      c.cm->deregisterCallback(c.token);
    c.finish();
  }
}

std::function<void()> QueueBase::finisher(Attempt &a) {
  if (a.tupleDone)
    return [cb = std::move(a.tupleDone), st = std::move(a.status),
            res = std::move(a.result)]() mutable { cb(std::move(st), std::move(res)); };
  return [cb = std::move(a.statusDone), st = std::move(a.status)]() mutable {
    if (cb)
      cb(std::move(st));
  };
}

// --- validation ---------------------------------------------------------

static Status validateCommon(const QueueSpec &spec, const QueueInterface::Tuple &t) {
  if (t.size() != spec.types.size())
    return invalidArgument("Wrong number of components in tuple. Expected " +
                           std::to_string(spec.types.size()) + ", got " +
                           std::to_string(t.size()));
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].dtype() != spec.types[i])
      return invalidArgument("Type mismatch in tuple component " + std::to_string(i) +
                             ". Expected " + std::string(ir::dtypeName(spec.types[i])) +
                             ", got " + std::string(ir::dtypeName(t[i].dtype())));
  return Status::ok();
}

Status QueueBase::validateTuple(const Tuple &t) const {
  SLUICE_TRY(validateCommon(spec_, t));
  if (specifiedShapes())
    for (size_t i = 0; i < t.size(); ++i)
      if (!spec_.shapes[i].isCompatibleWith(t[i].dims()))
        return invalidArgument("Shape mismatch in tuple component " + std::to_string(i) +
                               ". Expected " + queueShapeString(spec_.shapes[i]) +
                               ", got " + queueDimsString(t[i].dims()));
  return Status::ok();
}

Status QueueBase::validateManyTuple(const Tuple &t) const {
  SLUICE_TRY(validateCommon(spec_, t));
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].rank() < 1)
      return invalidArgument("Shape mismatch in tuple component " + std::to_string(i) +
                             ". Expected a batch (at least 1 dimension), got " +
                             queueDimsString(t[i].dims()));
  int64_t batch = t.empty() ? 0 : t[0].dim(0);
  for (size_t i = 0; i < t.size(); ++i) {
    if (specifiedShapes()) {
      std::vector<int64_t> want{batch};
      const ir::Shape &s = spec_.shapes[i];
      if (s.hasRank())
        want.insert(want.end(), s.dims().begin(), s.dims().end());
      ir::Shape expected = s.hasRank() ? ir::Shape(want) : ir::Shape::unknown();
      if (!expected.isCompatibleWith(t[i].dims()))
        return invalidArgument("Shape mismatch in tuple component " + std::to_string(i) +
                               ". Expected " + queueShapeString(expected) + ", got " +
                               queueDimsString(t[i].dims()));
    } else if (t[i].dim(0) != batch) {
      return invalidArgument(
          "All input tensors must have the same size in the 0th dimension. Component " +
          std::to_string(i) + " has " + std::to_string(t[i].dim(0)) +
          ", and should have " + std::to_string(batch));
    }
  }
  return Status::ok();
}

Status QueueBase::checkDequeueMany() const {
  if (specifiedShapes())
    return Status::ok();
  return invalidArgument(spec_.type +
                         "'s DequeueMany and DequeueUpTo require the components to "
                         "have specified shapes.");
}

Expected<QueueInterface::Tuple>
QueueBase::makeBatch(const std::vector<Tuple> &elements) const {
  Tuple out;
  int64_t k = static_cast<int64_t>(elements.size());
  for (int c = 0; c < numComponents(); ++c) {
    ir::Dims dims{k};
    if (k > 0) {
      const ir::Dims &ed = elements[0][c].dims();
      dims.insert(dims.end(), ed.begin(), ed.end());
    } else if (specifiedShapes() && spec_.shapes[c].hasRank()) {
      for (int64_t d : spec_.shapes[c].dims())
        dims.push_back(d < 0 ? 0 : d);
    }
    ir::Tensor batch = ir::Tensor::uninitialized(spec_.types[c], dims);
    if (!ir::isPod(spec_.types[c]))
      batch = ir::Tensor(spec_.types[c], dims);
    for (int64_t r = 0; r < k; ++r)
      copyIntoRow(elements[r][c], batch, r);
    out.push_back(std::move(batch));
  }
  return out;
}

// --- row storage defaults: element by element --------------------------------

void QueueBase::pushRowsLocked(const Tuple &batch, int64_t from, int64_t n) {
  for (int64_t r = from; r < from + n; ++r) {
    Tuple element;
    element.reserve(batch.size());
    for (const ir::Tensor &c : batch)
      element.push_back(sliceRow(c, r));
    pushLocked(std::move(element));
  }
}

void QueueBase::popIntoLocked(Tuple &batch, int64_t row) {
  Tuple element = popLocked();
  for (size_t c = 0; c < element.size(); ++c)
    copyIntoRow(element[c], batch[c], row);
}

void QueueBase::unreserveRowsLocked(const Tuple &batch, int64_t n) {
  std::vector<Tuple> elements;
  for (int64_t r = 0; r < n; ++r) {
    Tuple element;
    for (const ir::Tensor &c : batch)
      element.push_back(sliceRow(c, r));
    elements.push_back(std::move(element));
  }
  unreserveLocked(elements);
}

QueueInterface::Tuple QueueBase::allocateBatch(int64_t rows) const {
  Tuple out;
  for (int c = 0; c < numComponents(); ++c) {
    ir::Dims dims{rows};
    for (int64_t d : spec_.shapes[c].dims())
      dims.push_back(d);
    out.push_back(ir::isPod(spec_.types[c]) ? ir::Tensor::uninitialized(spec_.types[c], dims)
                                            : ir::Tensor(spec_.types[c], dims));
  }
  return out;
}

// --- the attempt lists ----------------------------------------------------

void QueueBase::addAttempt(Side side, Attempt a) {
  CancellationManager *cm = a.cm;
  bool alreadyCancelled = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    a.id = nextId_++;
    if (cm) {
      // Registered under mu_: the callback needs mu_ to find the attempt,
      // so it cannot miss it.
      std::weak_ptr<QueueBase> self = weak_from_this();
      uint64_t id = a.id;
      a.token = cm->registerCallback([self, side, id] {
        if (auto q = self.lock())
          q->cancelAttempt(side, id);
      });
      alreadyCancelled = a.token == CancellationManager::kInvalidToken;
    }
    if (!alreadyCancelled)
      (side == Side::kEnqueue ? enqueueAttempts_ : dequeueAttempts_)
          .push_back(std::move(a));
  }
  if (alreadyCancelled) {
    a.status = cancelled(side == Side::kEnqueue ? enqueueCancelled() : dequeueCancelled());
    finisher(a)();
    return;
  }
  flush();
}

bool QueueBase::tryAttemptsLocked(Side side, std::vector<Cleanup> &cleanups) {
  auto &list = side == Side::kEnqueue ? enqueueAttempts_ : dequeueAttempts_;
  bool progress = false;
  while (!list.empty()) {
    Attempt &a = list.front();
    RunResult r = a.run(a);
    if (r == RunResult::kNoProgress)
      break;
    progress = true;
    if (r == RunResult::kProgress)
      break;
    cleanups.push_back({finisher(a), a.cm, a.token});
    list.pop_front();
  }
  return progress;
}

void QueueBase::flush() {
  std::vector<Cleanup> cleanups;
  {
    std::lock_guard<std::mutex> lock(mu_);
    bool changed;
    do {
      changed = tryAttemptsLocked(Side::kEnqueue, cleanups);
      changed = tryAttemptsLocked(Side::kDequeue, cleanups) || changed;
    } while (changed);
  }
  for (auto &c : cleanups) {
    if (c.cm && c.token != CancellationManager::kInvalidToken)
      c.cm->deregisterCallback(c.token);
    c.finish();
  }
}

void QueueBase::cancelAttempt(Side side, uint64_t id) {
  std::function<void()> finish;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto &list = side == Side::kEnqueue ? enqueueAttempts_ : dequeueAttempts_;
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (it->id != id)
        continue;
      // Unlike TF, a cancelled batch gives its reserved elements back, so
      // cancelling a step never loses data.
      if (!it->reserved.empty())
        unreserveLocked(it->reserved);
      it->reserved.clear();
      if (it->reservedRows > 0)
        unreserveRowsLocked(it->result, it->reservedRows);
      it->reservedRows = 0;
      it->result.clear();
      it->status = cancelled(side == Side::kEnqueue ? enqueueCancelled() : dequeueCancelled());
      finish = finisher(*it);
      list.erase(it);
      break;
    }
  }
  if (finish) {
    finish();
    flush(); // the attempt may have blocked the ones behind it
  }
}

// --- run functions (mu_ held) -----------------------------------------------

QueueBase::RunResult QueueBase::runEnqueue(Attempt &a) {
  if (closed_) {
    a.status = cancelled(enqueueTypeName() + " '" + spec_.name + "' is closed.");
    return RunResult::kComplete;
  }
  if (spec_.capacity >= 0 && storedLocked() >= spec_.capacity)
    return RunResult::kNoProgress;
  pushLocked(std::move(a.input));
  return RunResult::kComplete;
}

QueueBase::RunResult QueueBase::runEnqueueMany(Attempt &a) {
  if (closed_) {
    a.status = cancelled(enqueueTypeName() + " '" + spec_.name + "' is closed.");
    return RunResult::kComplete;
  }
  if (rowStorage()) {
    int64_t room = spec_.capacity < 0 ? a.requested : spec_.capacity - storedLocked();
    int64_t n = std::min(room, a.requested);
    if (n <= 0)
      return RunResult::kNoProgress;
    pushRowsLocked(a.input, a.total - a.requested, n);
    a.requested -= n;
    if (a.requested > 0)
      return RunResult::kProgress;
    a.input.clear();
    return RunResult::kComplete;
  }
  RunResult r = RunResult::kNoProgress;
  while (spec_.capacity < 0 || storedLocked() < spec_.capacity) {
    r = RunResult::kProgress;
    int64_t row = a.total - a.requested;
    Tuple element;
    element.reserve(a.input.size());
    for (const ir::Tensor &c : a.input)
      element.push_back(sliceRow(c, row));
    pushLocked(std::move(element));
    if (--a.requested == 0) {
      a.input.clear();
      return RunResult::kComplete;
    }
  }
  return r;
}

QueueBase::RunResult QueueBase::runDequeue(Attempt &a) {
  int64_t size = storedLocked();
  if (closed_ && size == 0) {
    a.status = outOfRange(spec_.type + " '" + spec_.name +
                          "' is closed and has insufficient elements (requested 1, "
                          "current size 0)");
    return RunResult::kComplete;
  }
  if (dequeuableLocked() <= 0)
    return RunResult::kNoProgress;
  a.result = popLocked();
  commitPopsLocked();
  return RunResult::kComplete;
}

QueueBase::RunResult QueueBase::runDequeueMany(Attempt &a, bool allowSmaller) {
  int64_t size = storedLocked();
  if (closed_ && size < a.requested) {
    if (!a.reserved.empty()) {
      unreserveLocked(a.reserved);
      a.reserved.clear();
    }
    if (a.reservedRows > 0) {
      unreserveRowsLocked(a.result, a.reservedRows);
      a.reservedRows = 0;
    }
    a.result.clear();
    if (allowSmaller && storedLocked() > 0) {
      a.requested = a.total = storedLocked();
    } else {
      // dequeue_up_to first lets enqueues queued before the close land.
      if (allowSmaller && !enqueueAttempts_.empty())
        return RunResult::kNoProgress;
      a.status = outOfRange(spec_.type + " '" + spec_.name +
                            "' is closed and has insufficient elements (requested " +
                            std::to_string(a.requested) + ", current size " +
                            std::to_string(size) + ")");
      return RunResult::kComplete;
    }
  }
  int64_t avail = dequeuableLocked();
  if (!reservesPartialBatches() && avail < a.requested)
    return RunResult::kNoProgress;
  if (rowStorage()) {
    if (avail <= 0)
      return RunResult::kNoProgress;
    if (a.result.empty())
      a.result = allocateBatch(a.total);
    int64_t n = std::min(avail, a.requested);
    popManyIntoLocked(a.result, a.reservedRows, n);
    a.reservedRows += n;
    a.requested -= n;
    if (a.requested > 0)
      return RunResult::kProgress;
    commitPopsLocked();
    a.reservedRows = 0;
    return RunResult::kComplete;
  }
  RunResult r = RunResult::kNoProgress;
  while (avail > 0 && a.requested > 0) {
    a.reserved.push_back(popLocked());
    --a.requested;
    --avail;
    r = RunResult::kProgress;
  }
  if (a.requested > 0)
    return r;
  commitPopsLocked();
  auto batch = makeBatch(a.reserved);
  a.reserved.clear();
  if (batch.hasValue())
    a.result = std::move(*batch);
  else
    a.status = batch.takeStatus();
  return RunResult::kComplete;
}

QueueBase::RunResult QueueBase::runClose(Attempt &a) {
  if (closed_)
    a.status = cancelled("Queue '" + spec_.name + "' is already closed.");
  else
    closed_ = true;
  return RunResult::kComplete;
}

// --- the interface ------------------------------------------------------------

void QueueBase::tryEnqueue(Tuple element, CancellationManager *cm, StatusCallback done) {
  if (Status s = validateTuple(element); !s)
    return done(std::move(s));
  Attempt a;
  a.requested = a.total = 1;
  a.cm = cm;
  a.input = std::move(element);
  a.statusDone = std::move(done);
  a.run = [this](Attempt &x) { return runEnqueue(x); };
  addAttempt(Side::kEnqueue, std::move(a));
}

void QueueBase::tryEnqueueMany(Tuple batch, CancellationManager *cm, StatusCallback done) {
  if (Status s = validateManyTuple(batch); !s)
    return done(std::move(s));
  int64_t rows = batch.empty() ? 0 : batch[0].dim(0);
  if (rows == 0) // TF returns at once, even on a closed queue
    return done(Status::ok());
  Attempt a;
  a.requested = a.total = rows;
  a.cm = cm;
  a.input = std::move(batch);
  a.statusDone = std::move(done);
  a.run = [this](Attempt &x) { return runEnqueueMany(x); };
  addAttempt(Side::kEnqueue, std::move(a));
}

void QueueBase::tryDequeue(CancellationManager *cm, TupleCallback done) {
  Attempt a;
  a.requested = a.total = 1;
  a.cm = cm;
  a.tupleDone = std::move(done);
  a.run = [this](Attempt &x) { return runDequeue(x); };
  addAttempt(Side::kDequeue, std::move(a));
}

void QueueBase::tryDequeueMany(int64_t n, bool allowSmaller, CancellationManager *cm,
                               TupleCallback done) {
  if (n < 0)
    return done(invalidArgument(std::string(allowSmaller ? "DequeueUpToOp" : "DequeueManyOp") +
                                " requested " + std::to_string(n) + " < 0 elements"),
                Tuple());
  if (Status s = checkDequeueMany(); !s)
    return done(std::move(s), Tuple());
  if (n == 0) { // empty tensors at once, even when closed
    auto batch = makeBatch({});
    if (!batch.hasValue())
      return done(batch.takeStatus(), Tuple());
    return done(Status::ok(), std::move(*batch));
  }
  Attempt a;
  a.requested = a.total = n;
  a.cm = cm;
  a.tupleDone = std::move(done);
  a.run = [this, allowSmaller](Attempt &x) { return runDequeueMany(x, allowSmaller); };
  addAttempt(Side::kDequeue, std::move(a));
}

void QueueBase::close(bool cancelPendingEnqueues, StatusCallback done) {
  if (!cancelPendingEnqueues) {
    // Waits behind the pending enqueues, which then succeed.
    Attempt a;
    a.statusDone = std::move(done);
    a.run = [this](Attempt &x) { return runClose(x); };
    addAttempt(Side::kEnqueue, std::move(a));
    return;
  }
  std::vector<Cleanup> cleanups;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    for (Attempt &a : enqueueAttempts_) {
      a.status = cancelled(enqueueCancelled());
      cleanups.push_back({finisher(a), a.cm, a.token});
    }
    enqueueAttempts_.clear();
  }
  for (auto &c : cleanups) {
    if (c.cm && c.token != CancellationManager::kInvalidToken)
      c.cm->deregisterCallback(c.token);
    c.finish();
  }
  flush(); // unsatisfiable dequeues now fail
  if (done)
    done(Status::ok());
}

int64_t QueueBase::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return storedLocked();
}

bool QueueBase::isClosed() {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

// --- sharing ------------------------------------------------------------------

static std::string typesString(const std::vector<ir::DType> &ts) {
  std::string s = "[";
  for (size_t i = 0; i < ts.size(); ++i)
    s += (i ? ", " : "") + std::string(ir::dtypeName(ts[i]));
  return s + "]";
}

static std::string shapesString(const std::vector<ir::Shape> &ss) {
  std::string s = "[";
  for (size_t i = 0; i < ss.size(); ++i)
    s += (i ? ", " : "") + queueShapeString(ss[i]);
  return s + "]";
}

Status QueueBase::matches(const QueueSpec &o) const {
  const std::string pre = "Shared queue '" + spec_.name + "' has ";
  if (o.type != spec_.type)
    return invalidArgument(pre + "type '" + spec_.type +
                           "' that does not match the requested type '" + o.type + "'");
  if (o.capacity != spec_.capacity)
    return invalidArgument(pre + "capacity " + std::to_string(spec_.capacity) +
                           " but requested capacity was " + std::to_string(o.capacity));
  if (o.types != spec_.types)
    return invalidArgument(pre + "component types " + typesString(spec_.types) +
                           " but requested component types were " + typesString(o.types));
  if (!shapesMatch(o.shapes))
    return invalidArgument(pre + "component shapes " + shapesString(spec_.shapes) +
                           " but requested component shapes were " + shapesString(o.shapes));
  return Status::ok();
}

int64_t QueueBase::numBlockedDequeuers() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(dequeueAttempts_.size());
}

} // namespace sluice::backend
