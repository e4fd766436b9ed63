// backend/data/prefetch_dataset.cc: a background thread runs the input
// pipeline up to buffer_size elements ahead of get_next. Elements and
// errors come out in input order. Destroying the iterator cancels the
// thread's work (a blocked map body included) and joins it.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "backend/data/dataset.h"

namespace sluice::backend::data {

namespace {

// tf.data.experimental.AUTOTUNE: a small fixed buffer here.
constexpr int64_t kAutotuneBuffer = 4;

class PrefetchDataset : public DatasetBase {
public:
  PrefetchDataset(DatasetPtr input, int64_t bufferSize)
      : DatasetBase(input->outputTypes(), input->outputShapes()), input_(std::move(input)),
        bufferSize_(bufferSize < 0 ? kAutotuneBuffer : bufferSize) {}
  std::string kind() const override { return "Prefetch"; }
  std::unique_ptr<IteratorBase> makeIterator() const override {
    if (bufferSize_ == 0) // no prefetching: the input's own iterator
      return input_->makeIterator();
    return std::make_unique<Iterator>(*this);
  }

private:
  struct Slot {
    Status status;
    Element element;
    bool end = false;
  };

  class Iterator : public IteratorBase {
  public:
    explicit Iterator(const PrefetchDataset &d) : d_(d), in_(d.input_->makeIterator()) {}
    ~Iterator() override {
      {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
      }
      cv_.notify_all();
      ownCancel_.startCancel();
      if (thread_.joinable())
        thread_.join();
    }

    Status getNext(IteratorContext &ctx, Element &out, bool &end) override {
      std::unique_lock<std::mutex> lock(mu_);
      if (!thread_.joinable()) {
        resources_ = ctx.resources;
        thread_ = std::thread([this] { produce(); });
      }
      cancelled_ = false;
      CancellationManager::Token token = CancellationManager::kInvalidToken;
      if (ctx.cancellation) {
        // The callback touches only members: it may still be running when
        // this call has returned.
        token = ctx.cancellation->registerCallback([this] {
          std::lock_guard<std::mutex> l(mu_);
          cancelled_ = true;
          cv_.notify_all();
        });
        if (token == CancellationManager::kInvalidToken)
          return cancelled("get_next was cancelled");
      }
      cv_.wait(lock, [&] { return !buffer_.empty() || cancelled_; });
      bool gotSlot = !buffer_.empty();
      Slot slot;
      if (gotSlot) {
        slot = std::move(buffer_.front());
        // The end marker stays, so every later call sees the end too.
        if (!slot.end)
          buffer_.pop_front();
        cv_.notify_all();
      }
      lock.unlock();
      if (token != CancellationManager::kInvalidToken)
        ctx.cancellation->deregisterCallback(token);
      if (!gotSlot)
        return cancelled("get_next was cancelled");
      end = slot.end;
      if (!slot.end)
        out = std::move(slot.element);
      return slot.status;
    }

  private:
    void produce() {
      IteratorContext ctx{resources_, &ownCancel_};
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait(lock, [&] {
            return stopping_ || static_cast<int64_t>(buffer_.size()) < d_.bufferSize_;
          });
          if (stopping_)
            return;
        }
        Slot slot;
        slot.status = in_->getNext(ctx, slot.element, slot.end);
        if (!slot.status.isOk())
          slot.end = false;
        bool last = slot.end;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (stopping_)
            return;
          buffer_.push_back(std::move(slot));
        }
        cv_.notify_all();
        if (last)
          return;
      }
    }

    const PrefetchDataset &d_;
    std::unique_ptr<IteratorBase> in_;
    ResourceMgr *resources_ = nullptr;
    CancellationManager ownCancel_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Slot> buffer_;
    bool stopping_ = false;
    bool cancelled_ = false;
    std::thread thread_;
  };

  DatasetPtr input_;
  int64_t bufferSize_;
};

} // namespace

Expected<DatasetPtr> makePrefetchDataset(DatasetPtr input, int64_t bufferSize) {
  if (bufferSize < -1)
    return invalidArgument("buffer_size must be >= -1 (-1 is AUTOTUNE), got " +
                           std::to_string(bufferSize));
  return DatasetPtr(std::make_shared<PrefetchDataset>(std::move(input), bufferSize));
}

} // namespace sluice::backend::data
