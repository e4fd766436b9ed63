// tests/queues/queue_executor_test.cc: queue ops in sessions: blocked ops
// hold no pool thread, one private queue per session across plans,
// session close and deadlines cancel blocked ops and the queue stays
// usable, shared_name across sessions.
#include <gtest/gtest.h>

#include <thread>

#include "ir/graph.h"
#include "runtime/session.h"

namespace sluice::rt {
namespace {

using ir::DType;
using ir::Shape;

ir::NodeSpec node(std::string name, std::string op, ir::AttrMap attrs = {},
                  std::vector<ir::Output> inputs = {}) {
  ir::NodeSpec s;
  s.name = std::move(name);
  s.op = std::move(op);
  s.attrs = std::move(attrs);
  s.inputs = std::move(inputs);
  return s;
}

struct QueueGraph {
  ir::Graph g;
  ir::NodeId queue = -1;

  ir::NodeId add(ir::NodeSpec s) {
    auto n = g.addNode(std::move(s));
    EXPECT_TRUE(n.hasValue()) << (n.hasValue() ? "" : n.status().toString());
    return (*n)->id();
  }
  explicit QueueGraph(std::string sharedName = "", int64_t capacity = -1) {
    queue = add(node("q", "fifo_queue",
                 {{"component_types", std::vector<DType>{DType::kI32}},
                  {"shapes", std::vector<Shape>{Shape::scalar()}},
                  {"capacity", capacity},
                  {"shared_name", sharedName}}));
  }
  ir::Output dequeue(const std::string &name) {
    return {add(node(name, "queue_dequeue", {{"component_types", std::vector<DType>{DType::kI32}}},
                 {{queue, 0}})),
            0};
  }
  ir::NodeId enqueueMany(const std::string &name, std::vector<int32_t> vals) {
    ir::Tensor t = ir::Tensor::fromVector<int32_t>(vals);
    ir::NodeId c = add(node(name + "/value", "constant", {{"value", t}, {"dtype", DType::kI32}}));
    return add(node(name, "queue_enqueue_many", {}, {{queue, 0}, {c, 0}}));
  }
  ir::NodeId close(const std::string &name, bool cancel = false) {
    return add(node(name, "queue_close", {{"cancel_pending_enqueues", cancel}}, {{queue, 0}}));
  }
  ir::Output size(const std::string &name) {
    return {add(node(name, "queue_size", {}, {{queue, 0}})), 0};
  }
};

std::unique_ptr<Session> session(const ir::Graph &g, int interOp = 1) {
  SessionOptions o;
  o.interOpThreads = interOp;
  o.intraOpThreads = 1;
  auto s = Session::create(&g, nullptr, o);
  EXPECT_TRUE(s.hasValue());
  return std::move(*s);
}

TEST(QueueExecutorTest, BlockedDequeuesDoNotStarveThePool) {
  QueueGraph t;
  constexpr int kBlocked = 12; // more than the pool's one thread
  std::vector<ir::Output> deqs;
  for (int i = 0; i < kBlocked; ++i)
    deqs.push_back(t.dequeue("d" + std::to_string(i)));
  std::vector<int32_t> vals;
  for (int i = 0; i < kBlocked; ++i)
    vals.push_back(i);
  ir::NodeId enq = t.enqueueMany("enq", vals);
  ir::Output late = t.dequeue("late");
  ir::NodeId enq2 = t.enqueueMany("enq2", {100});
  auto s = session(t.g);
  Expected<std::vector<ir::Tensor>> got = internalError("not run");
  RunOptions ro;
  ro.timeoutMs = 20000;
  std::thread consumer([&] { got = s->run({}, deqs, {}, ro); });
  // A second run of blocked dequeues from another thread, too.
  Expected<std::vector<ir::Tensor>> got2 = internalError("not run");
  std::thread consumer2([&] { got2 = s->run({}, {late}, {}, ro); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto e = s->run({}, {}, {enq}, ro);
  ASSERT_TRUE(e.hasValue()) << e.status().toString();
  auto e2 = s->run({}, {}, {enq2}, ro);
  ASSERT_TRUE(e2.hasValue()) << e2.status().toString();
  consumer.join();
  consumer2.join();
  ASSERT_TRUE(got.hasValue()) << got.status().toString();
  ASSERT_TRUE(got2.hasValue()) << got2.status().toString();
  int64_t sum = (*got2)[0].scalarValue<int32_t>();
  for (const auto &v : *got)
    sum += v.scalarValue<int32_t>();
  EXPECT_EQ(sum, 100 + kBlocked * (kBlocked - 1) / 2);
}

TEST(QueueExecutorTest, OnePrivateQueuePerSessionAcrossPlans) {
  QueueGraph t;
  ir::NodeId enq = t.enqueueMany("enq", {1, 2, 3});
  ir::Output size = t.size("size");
  auto s = session(t.g, 2);
  ASSERT_TRUE(s->run({}, {}, {enq}).hasValue());
  auto r = s->run({}, {size}, {});
  ASSERT_TRUE(r.hasValue());
  EXPECT_EQ((*r)[0].scalarValue<int32_t>(), 3);
  auto other = session(t.g, 2); // another session: another private queue
  auto r2 = other->run({}, {size}, {});
  EXPECT_EQ((*r2)[0].scalarValue<int32_t>(), 0);
}

TEST(QueueExecutorTest, DeadlineCancelsAndQueueStaysUsable) {
  QueueGraph t;
  ir::Output d = t.dequeue("d");
  ir::NodeId enq = t.enqueueMany("enq", {7});
  auto s = session(t.g);
  RunOptions ro;
  ro.timeoutMs = 50;
  auto r = s->run({}, {d}, {}, ro);
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kDeadlineExceeded);
  ASSERT_TRUE(s->run({}, {}, {enq}).hasValue());
  auto ok = s->run({}, {d}, {});
  ASSERT_TRUE(ok.hasValue()) << ok.status().toString();
  EXPECT_EQ((*ok)[0].scalarValue<int32_t>(), 7);
}

TEST(QueueExecutorTest, SessionCloseCancelsBlockedDequeue) {
  QueueGraph t;
  ir::Output d = t.dequeue("d");
  auto s = session(t.g);
  Expected<std::vector<ir::Tensor>> got = internalError("not run");
  std::thread consumer([&] { got = s->run({}, {d}, {}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(s->close().isOk());
  consumer.join();
  ASSERT_FALSE(got.hasValue());
  EXPECT_EQ(got.status().code(), Code::kCancelled);
  EXPECT_NE(got.status().message().find("Dequeue operation was cancelled"), std::string::npos);
}

TEST(QueueExecutorTest, CloseThenDrainEndsInOutOfRange) {
  QueueGraph t;
  ir::NodeId enq = t.enqueueMany("enq", {1});
  ir::NodeId close = t.close("close");
  ir::NodeId closeAgain = t.close("close_again");
  ir::Output d = t.dequeue("d");
  auto s = session(t.g);
  ASSERT_TRUE(s->run({}, {}, {enq}).hasValue());
  ASSERT_TRUE(s->run({}, {}, {close}).hasValue());
  auto again = s->run({}, {}, {closeAgain});
  ASSERT_FALSE(again.hasValue());
  EXPECT_EQ(again.status().code(), Code::kCancelled);
  EXPECT_NE(again.status().message().find("is already closed."), std::string::npos);
  EXPECT_TRUE(s->run({}, {d}, {}).hasValue());
  auto end = s->run({}, {d}, {});
  ASSERT_FALSE(end.hasValue());
  EXPECT_EQ(end.status().code(), Code::kOutOfRange);
  EXPECT_NE(end.status().message().find("is closed and has insufficient elements (requested 1, "
                                        "current size 0)"),
            std::string::npos);
}

TEST(QueueExecutorTest, SharedNameAcrossSessions) {
  QueueGraph a("exec_shared_q", 10), b("exec_shared_q", 10), c("exec_shared_q", 5);
  ir::NodeId enq = a.enqueueMany("enq", {5, 6});
  ir::Output d = b.dequeue("d");
  ir::Output csize = c.size("size");
  auto sa = session(a.g), sb = session(b.g), sc = session(c.g);
  ASSERT_TRUE(sa->run({}, {}, {enq}).hasValue());
  auto r = sb->run({}, {d}, {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ((*r)[0].scalarValue<int32_t>(), 5);
  auto bad = sc->run({}, {csize}, {});
  ASSERT_FALSE(bad.hasValue());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("capacity"), std::string::npos);
}

TEST(QueueExecutorTest, StaticShapesAndChecks) {
  QueueGraph t;
  ir::Output d = t.dequeue("d");
  EXPECT_EQ(t.g.node(d.node).outputShape(0), Shape::scalar());
  ir::Tensor n = ir::Tensor::scalar<int32_t>(4);
  ir::NodeId nc = t.add(node("n", "constant", {{"value", n}, {"dtype", DType::kI32}}));
  ir::NodeId many = t.add(node("many", "queue_dequeue_many",
                           {{"component_types", std::vector<DType>{DType::kI32}}},
                           {{t.queue, 0}, {nc, 0}}));
  EXPECT_EQ(t.g.node(many).outputShape(0), Shape({4}));
  ir::NodeId upTo = t.add(node("up_to", "queue_dequeue_up_to",
                           {{"component_types", std::vector<DType>{DType::kI32}}},
                           {{t.queue, 0}, {nc, 0}}));
  EXPECT_EQ(t.g.node(upTo).outputShape(0), Shape({-1}));
  ir::Tensor bad = ir::Tensor::fromVector<int32_t>({1, 2});
  ir::NodeId bc = t.add(node("bad", "constant", {{"value", bad}, {"dtype", DType::kI32}}));
  auto e = t.g.addNode(node("enq_bad", "queue_enqueue", {}, {{t.queue, 0}, {bc, 0}}));
  ASSERT_FALSE(e.hasValue());
  EXPECT_NE(e.status().message().find("Shape mismatch in tuple component 0. Expected [], got [2]"),
            std::string::npos);
}

} // namespace
} // namespace sluice::rt
