// tests/runtime/session_test.cc: feeds, fetches, targets, feed checks,
// caching over a growing graph, deadlines, close and concurrent runs.
#include "runtime/session.h"

#include <thread>

#include "tests/passes/test_graph.h"
#include "tests/runtime/fake_kernels.h"

namespace sluice::rt {
namespace {

using testing::TestGraph;

std::unique_ptr<Session> makeSession(const ir::Graph &g, SessionOptions o = {},
                                     std::shared_mutex *mu = nullptr) {
  auto s = Session::create(&g, mu, std::move(o));
  EXPECT_TRUE(s.hasValue());
  return std::move(*s);
}

TEST(SessionTest, FeedsFetchesAndTargets) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape({2}));
  auto y = t.binary("y", "multiply", x, t.constant("two", 2.0f));
  auto s = makeSession(t.graph());
  auto r = s->run({{x, ir::Tensor::fromVector<float>({1, 2})}}, {y}, {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_TRUE((*r)[0].equals(ir::Tensor::fromVector<float>({2, 4})));
  auto none = s->run({}, {}, {});
  EXPECT_TRUE(none.hasValue());
}

TEST(SessionTest, FeedShapeAndDtypeAreChecked) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape({2}));
  auto s = makeSession(t.graph());
  auto r = s->run({{x, ir::Tensor::fromVector<float>({1, 2, 3})}}, {x}, {});
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "Cannot feed value of shape [3] for Tensor 'x:0', which has shape '[2]'");
  auto d = s->run({{x, ir::Tensor::fromVector<int32_t>({1, 2})}}, {x}, {});
  ASSERT_FALSE(d.hasValue());
  EXPECT_EQ(d.status().message(),
            "Cannot feed value of dtype i32 for Tensor 'x:0', which has dtype f32");
}

TEST(SessionTest, FoldingNeverHidesARunTimeError) {
  TestGraph t;
  auto bad = t.binary("bad", "floor_div", t.constant("a", 1), t.constant("z", 0));
  auto s = makeSession(t.graph());
  auto r = s->run({}, {bad}, {});
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().node(), "bad");
  EXPECT_EQ(r.status().loc().line, 3);
}

TEST(SessionTest, GraphMayGrowBetweenRuns) {
  TestGraph t;
  std::shared_mutex mu;
  auto a = t.constant("a", 2);
  auto s = makeSession(t.graph(), {}, &mu);
  ASSERT_TRUE(s->run({}, {a}, {}).hasValue());
  ASSERT_TRUE(s->run({}, {a}, {}).hasValue());
  EXPECT_EQ(s->numCachedExecutors(), 1u);
  ir::Output b;
  {
    std::unique_lock<std::shared_mutex> lock(mu);
    b = t.binary("b", "add", a, a);
  }
  auto r = s->run({}, {a, b}, {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ((*r)[1].scalarValue<int32_t>(), 4);
  EXPECT_EQ(s->numCachedExecutors(), 1u); // the stale plan was dropped
}

TEST(SessionTest, TimeoutGivesDeadlineExceededAndSessionStaysUsable) {
  FakeKernels fk;
  TestGraph t;
  ir::NodeId b = t.add("block", "no_op", {})->id();
  auto a = t.constant("a", 1);
  SessionOptions o;
  o.kernels = &fk.registry;
  o.interOpThreads = 1;
  o.operationTimeoutMs = 10000;
  auto s = makeSession(t.graph(), o);
  RunOptions ro;
  ro.timeoutMs = 50;
  auto r = s->run({}, {}, {b}, ro);
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kDeadlineExceeded);
  EXPECT_EQ(r.status().message(), "Timed out waiting for notification");
  EXPECT_EQ(fk.cancelledCount.load(), 1);
  auto ok = s->run({}, {a}, {});
  ASSERT_TRUE(ok.hasValue());
  // The session-wide operation timeout applies without RunOptions.
  o.operationTimeoutMs = 30;
  auto s2 = makeSession(t.graph(), o);
  EXPECT_EQ(s2->run({}, {}, {b}).status().code(), Code::kDeadlineExceeded);
}

TEST(SessionTest, CloseCancelsRunningStepsAndLaterRuns) {
  FakeKernels fk;
  TestGraph t;
  ir::NodeId b = t.add("block", "no_op", {})->id();
  SessionOptions o;
  o.kernels = &fk.registry;
  auto s = makeSession(t.graph(), o);
  Status result;
  std::thread runner([&] {
    auto r = s->run({}, {}, {b});
    result = r.hasValue() ? Status::ok() : r.status();
  });
  ASSERT_TRUE(fk.waitStarted(1));
  ASSERT_TRUE(s->close().isOk());
  runner.join();
  EXPECT_EQ(result.code(), Code::kCancelled);
  EXPECT_NE(result.message().find("Blocking op was cancelled"), std::string::npos);
  auto later = s->run({}, {}, {});
  ASSERT_FALSE(later.hasValue());
  EXPECT_EQ(later.status().code(), Code::kCancelled);
  EXPECT_EQ(later.status().message(), "Session has been closed.");
  EXPECT_TRUE(s->close().isOk());
}

TEST(SessionTest, BlockedOpHoldsNoInterOpThread) {
  FakeKernels fk;
  fk.releaseWaitsFor = 3;
  TestGraph t;
  std::vector<ir::NodeId> targets;
  for (int i = 0; i < 3; ++i)
    targets.push_back(t.add("block" + std::to_string(i), "no_op", {})->id());
  targets.push_back(t.add("release", "no_op", {})->id());
  SessionOptions o;
  o.kernels = &fk.registry;
  o.interOpThreads = 1;
  o.intraOpThreads = 1;
  auto s = makeSession(t.graph(), o);
  RunOptions ro;
  ro.timeoutMs = 20000;
  auto r = s->run({}, {}, targets, ro);
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ(fk.released.load(), 3);
}

TEST(SessionTest, ConcurrentRuns) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kI32, ir::Shape::scalar());
  auto y = t.binary("y", "multiply", x, x);
  auto z = t.binary("z", "add", y, x);
  auto s = makeSession(t.graph());
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (int i = 0; i < 100; ++i) {
        int v = k * 100 + i;
        auto r = s->run({{x, ir::Tensor::scalar<int32_t>(v)}}, {z}, {});
        if (!r.hasValue() || (*r)[0].scalarValue<int32_t>() != v * v + v)
          ++bad;
      }
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(bad.load(), 0);
}

} // namespace
} // namespace sluice::rt
