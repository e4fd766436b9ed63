// tests/queues/queue_test_util.h: waiting on queue callbacks in tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "backend/queue_base.h"

namespace sluice::backend::testing {

using Tuple = QueueInterface::Tuple;

/// The outcome of one queue call, filled by its callback.
struct Pending {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status status;
  Tuple tuple;

  bool isDone() {
    std::lock_guard<std::mutex> l(mu);
    return done;
  }
  /// Waits up to `ms`; false on timeout.
  bool wait(int ms = 5000) {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, std::chrono::milliseconds(ms), [&] { return done; });
  }
  void finish(Status s, Tuple t = {}) {
    std::lock_guard<std::mutex> l(mu);
    EXPECT_FALSE(done) << "callback called twice";
    status = std::move(s);
    tuple = std::move(t);
    done = true;
    cv.notify_all();
  }
};
using PendingPtr = std::shared_ptr<Pending>;

inline QueueInterface::StatusCallback statusCb(const PendingPtr &p) {
  return [p](Status s) { p->finish(std::move(s)); };
}
inline QueueInterface::TupleCallback tupleCb(const PendingPtr &p) {
  return [p](Status s, Tuple t) { p->finish(std::move(s), std::move(t)); };
}

inline PendingPtr enqueue(QueueInterface &q, Tuple t, CancellationManager *cm = nullptr) {
  auto p = std::make_shared<Pending>();
  q.tryEnqueue(std::move(t), cm, statusCb(p));
  return p;
}
inline PendingPtr enqueueMany(QueueInterface &q, Tuple t, CancellationManager *cm = nullptr) {
  auto p = std::make_shared<Pending>();
  q.tryEnqueueMany(std::move(t), cm, statusCb(p));
  return p;
}
inline PendingPtr dequeue(QueueInterface &q, CancellationManager *cm = nullptr) {
  auto p = std::make_shared<Pending>();
  q.tryDequeue(cm, tupleCb(p));
  return p;
}
inline PendingPtr dequeueMany(QueueInterface &q, int64_t n, bool upTo = false,
                              CancellationManager *cm = nullptr) {
  auto p = std::make_shared<Pending>();
  q.tryDequeueMany(n, upTo, cm, tupleCb(p));
  return p;
}
inline PendingPtr closeQueue(QueueInterface &q, bool cancel = false) {
  auto p = std::make_shared<Pending>();
  q.close(cancel, statusCb(p));
  return p;
}

inline std::shared_ptr<QueueBase> make(QueueSpec spec) {
  auto q = makeQueue(spec);
  EXPECT_TRUE(q.hasValue()) << (q.hasValue() ? "" : q.status().toString());
  return *q;
}

inline QueueSpec spec(std::string type, std::vector<ir::DType> types,
                      std::vector<ir::Shape> shapes = {}, int64_t capacity = -1,
                      std::string name = "q") {
  QueueSpec s;
  s.type = std::move(type);
  s.name = std::move(name);
  s.types = std::move(types);
  s.shapes = std::move(shapes);
  s.capacity = capacity;
  return s;
}

inline ir::Tensor i32(int32_t v) { return ir::Tensor::scalar<int32_t>(v); }
inline ir::Tensor i64(int64_t v) { return ir::Tensor::scalar<int64_t>(v); }

} // namespace sluice::backend::testing
