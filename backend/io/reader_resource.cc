// backend/io/reader_resource.cc: the reader protocol of TF's ReaderBase,
// made asynchronous: a read that needs a filename waits on the queue
// without holding a thread, and later reads wait their turn behind it.
#include "backend/io/reader_resource.h"

#include <algorithm>

namespace sluice::backend {

namespace {

Status checkWorkElement(const QueueInterface::Tuple &t) {
  // TF's ReaderBase::GetNextWorkLocked messages.
  if (t.size() != 1)
    return invalidArgument("Expected single component queue");
  if (t[0].dtype() != ir::DType::kString)
    return invalidArgument("Expected queue with single string component");
  if (t[0].numElements() != 1)
    return invalidArgument("Expected to dequeue a one-element string tensor");
  return Status::ok();
}

} // namespace

namespace {

// The vector form of a read (reader_read, reader_read_up_to).
class VectorSink : public ReaderResource::RecordSink {
public:
  explicit VectorSink(int64_t max) {
    size_t expect = static_cast<size_t>(std::min<int64_t>(max, 4096));
    keys.reserve(expect);
    values.reserve(expect);
  }
  void add(std::string_view value, const io::RecordIterator &it) override {
    keys.push_back(it.currentKey());
    values.emplace_back(value);
  }
  std::vector<std::string> keys, values;
};

} // namespace

void ReaderResource::readUpTo(std::shared_ptr<QueueInterface> queue, CancellationManager *cm,
                              int64_t max, ReadCallback done) {
  auto sink = std::make_shared<VectorSink>(std::max<int64_t>(max, 1));
  readUpTo(std::move(queue), cm, max, sink,
           [sink, done = std::move(done)](Status s, int64_t) {
             if (!s.isOk())
               return done(std::move(s), {}, {});
             done(Status::ok(), std::move(sink->keys), std::move(sink->values));
           });
}

void ReaderResource::readUpTo(std::shared_ptr<QueueInterface> queue,
                              CancellationManager *cm, int64_t max,
                              std::shared_ptr<RecordSink> sink, SinkCallback done) {
  if (!queue)
    return done(invalidArgument("reader needs a queue of filenames"), 0);
  if (max < 1)
    max = 1;
  auto r = std::make_shared<Read>();
  r->queue = std::move(queue);
  r->cm = cm;
  r->max = max;
  r->sink = std::move(sink);
  r->done = std::move(done);
  r->claimed = std::make_shared<std::atomic<bool>>(false);
  if (cm) {
    // A read waiting behind a blocked one must still honour cancellation.
    r->token = cm->registerCallback([r] {
      if (!r->claimed->exchange(true))
        r->done(cancelled("Reader read was cancelled"), 0);
    });
    if (r->token == CancellationManager::kInvalidToken)
      return r->done(cancelled("Reader read was cancelled"), 0);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(r);
    if (active_)
      return;
    active_ = true;
  }
  runPending();
}

void ReaderResource::runPending() {
  while (true) {
    std::shared_ptr<Read> r;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty()) {
        active_ = false;
        return;
      }
      r = std::move(pending_.front());
      pending_.pop_front();
    }
    if (r->claimed->exchange(true))
      continue; // cancelled while waiting
    if (r->cm && r->token != CancellationManager::kInvalidToken)
      r->cm->deregisterCallback(r->token);
    // Whoever of (this loop, the completion) comes second continues the
    // loop, so that a read completing inline does not recurse.
    auto turn = std::make_shared<std::atomic<int>>(0);
    auto self = shared_from_this();
    step(r, [self, turn] {
      if (turn->fetch_add(1) == 1)
        self->runPending();
    });
    if (turn->fetch_add(1) == 0)
      return;
  }
}

void ReaderResource::step(std::shared_ptr<Read> r, std::function<void()> finish) {
  int64_t count = 0;
  Status failure;
  {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (!iter_) {
        lock.unlock();
        auto self = shared_from_this();
        r->queue->tryDequeue(r->cm, [self, r, finish](Status s, QueueInterface::Tuple t) {
          self->startFile(r, finish, std::move(s), std::move(t));
        });
        return;
      }
      std::string_view value;
      Status s;
      while (count < r->max) {
        s = iter_->nextView(&value);
        if (!s.isOk())
          break;
        r->sink->add(value, *iter_);
        ++count;
      }
      if (s.isOk() || s.code() == Code::kOutOfRange) {
        produced_ += count;
        if (!s.isOk()) { // end of this file: the work unit is done
          iter_.reset();
          work_.clear();
          ++completed_;
        }
        if (count == 0)
          continue; // an empty file: on to the next filename
        break;
      }
      // A read error leaves the file current, as TF: the error repeats.
      // The records the sink took before it are dropped with the read.
      failure = std::move(s);
      break;
    }
  }
  int64_t delivered = failure.isOk() ? count : 0;
  r->done(std::move(failure), delivered);
  finish();
}

void ReaderResource::startFile(std::shared_ptr<Read> r, std::function<void()> finish,
                               Status s, QueueInterface::Tuple element) {
  if (s.isOk())
    s = checkWorkElement(element);
  if (s.isOk()) {
    const std::string &file = element[0].strings()[0];
    auto it = factory_();
    s = it->open(file);
    if (s.isOk()) {
      std::lock_guard<std::mutex> lock(mu_);
      iter_ = std::move(it);
      work_ = file;
    }
  }
  if (!s.isOk()) {
    r->done(std::move(s), 0);
    finish();
    return;
  }
  step(std::move(r), std::move(finish));
}

int64_t ReaderResource::numRecordsProduced() {
  std::lock_guard<std::mutex> lock(mu_);
  return produced_;
}

int64_t ReaderResource::numWorkUnitsCompleted() {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_;
}

void ReaderResource::reset() {
  std::lock_guard<std::mutex> lock(mu_);
  iter_.reset();
  work_.clear();
  produced_ = 0;
  completed_ = 0;
}

} // namespace sluice::backend
