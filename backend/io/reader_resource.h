// backend/io/reader_resource.h: a reader resource: TF's ReaderBase. It
// takes filenames from a queue and yields (key, value) records from them
// through a RecordIterator; reads are asynchronous and run one at a time.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/io/record_iterator.h"
#include "backend/queue_interface.h"
#include "backend/resource_mgr.h"

namespace sluice::backend {

class ReaderResource : public Resource,
                       public std::enable_shared_from_this<ReaderResource> {
public:
  using IteratorFactory = std::function<std::unique_ptr<io::RecordIterator>()>;
  /// keys, values: equal length, 1..max on success.
  using ReadCallback = std::function<void(Status, std::vector<std::string> keys,
                                          std::vector<std::string> values)>;

  /// Takes a read's records as the reader produces them: `value` is valid
  /// only during the call, and `it.currentKey()` builds the record's key
  /// (a sink that needs no keys never pays for them).
  class RecordSink {
  public:
    virtual ~RecordSink() = default;
    virtual void add(std::string_view value, const io::RecordIterator &it) = 0;
  };
  /// The read's status and how many records went to the sink.
  using SinkCallback = std::function<void(Status, int64_t count)>;

  ReaderResource(std::string kind, IteratorFactory factory)
      : kind_(std::move(kind)), factory_(std::move(factory)) {}
  std::string kind() const override { return kind_; }

  /// Reads 1..max records from the current file, or from the next
  /// filename dequeued from `queue` when there is none; never spans two
  /// files. The queue's out_of_range and cancellation propagate unchanged;
  /// a non-scalar-string element is invalid_argument; a missing file is
  /// not_found (the next read moves on to the next filename). Calls
  /// `done` exactly once, possibly from the queue's thread.
  void readUpTo(std::shared_ptr<QueueInterface> queue, CancellationManager *cm,
                int64_t max, ReadCallback done);
  /// The same read, handing each record to `sink` instead.
  void readUpTo(std::shared_ptr<QueueInterface> queue, CancellationManager *cm,
                int64_t max, std::shared_ptr<RecordSink> sink, SinkCallback done);

  int64_t numRecordsProduced();
  int64_t numWorkUnitsCompleted();
  /// Zeroes the counters and drops the current file (TF's Reset).
  void reset();

private:
  struct Read {
    std::shared_ptr<QueueInterface> queue;
    CancellationManager *cm;
    int64_t max;
    std::shared_ptr<RecordSink> sink;
    SinkCallback done;
    std::shared_ptr<std::atomic<bool>> claimed; // started or cancelled
    CancellationManager::Token token = CancellationManager::kInvalidToken;
  };

  /// Runs queued reads one after another; a read that waits on its queue
  /// resumes the loop from the queue's callback.
  void runPending();
  /// Runs `r` to completion or until it waits; calls finish() when done.
  void step(std::shared_ptr<Read> r, std::function<void()> finish);
  void startFile(std::shared_ptr<Read> r, std::function<void()> finish,
                 Status s, QueueInterface::Tuple element);

  std::string kind_;
  IteratorFactory factory_;

  std::mutex mu_;
  std::deque<std::shared_ptr<Read>> pending_; // guarded by mu_
  bool active_ = false;                       // guarded by mu_
  std::unique_ptr<io::RecordIterator> iter_;  // guarded by mu_; null = no file
  std::string work_;                          // guarded by mu_
  int64_t produced_ = 0;                      // guarded by mu_
  int64_t completed_ = 0;                     // guarded by mu_
};

} // namespace sluice::backend
