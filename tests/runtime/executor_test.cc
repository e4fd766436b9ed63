// tests/runtime/executor_test.cc: scheduling over chains, diamonds and
// control edges; feeds; errors naming nodes; fake async kernels.
#include "runtime/executor.h"

#include <algorithm>
#include <thread>

#include "tests/passes/test_graph.h"
#include "tests/runtime/fake_kernels.h"

namespace sluice::rt {
namespace {

using testing::TestGraph;

Expected<std::vector<ir::Tensor>> runOnce(TestGraph &t, std::vector<ir::Output> feeds,
                                          std::vector<ir::Tensor> values,
                                          std::vector<ir::Output> fetches,
                                          std::vector<ir::NodeId> targets = {},
                                          ThreadPool *pool = nullptr,
                                          const ExecutorOptions &opts = {}) {
  std::shared_ptr<const ir::Graph> g(std::move(t.owned()));
  auto ex = Executor::create(g, feeds, fetches, targets, opts);
  if (!ex.hasValue())
    return ex.takeStatus();
  backend::ResourceMgr rm;
  StepParams p;
  p.feedValues = &values;
  p.resources = &rm;
  p.pool = pool;
  return (*ex)->run(p);
}

TEST(ExecutorTest, RunsALongChainOnOneThread) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape::scalar());
  ir::Output cur = x;
  for (int i = 0; i < 1000; ++i)
    cur = t.binary("a" + std::to_string(i), "add", cur, x);
  auto r = runOnce(t, {x}, {ir::Tensor::scalar<float>(0.5f)}, {cur});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_FLOAT_EQ((*r)[0].scalarValue<float>(), 500.5f);
}

TEST(ExecutorTest, DiamondAndPoolAgree) {
  for (int threads : {0, 1, 2}) {
    TestGraph t;
    auto a = t.constant("a", 3);
    auto b = t.binary("b", "add", a, a);
    auto c = t.binary("c", "multiply", a, a);
    auto d = t.binary("d", "subtract", c, b);
    std::unique_ptr<ThreadPool> pool;
    if (threads)
      pool = std::make_unique<ThreadPool>(threads);
    auto r = runOnce(t, {}, {}, {d, b, a}, {}, pool.get());
    ASSERT_TRUE(r.hasValue()) << r.status().toString();
    EXPECT_EQ((*r)[0].scalarValue<int32_t>(), 3);
    EXPECT_EQ((*r)[1].scalarValue<int32_t>(), 6);
    EXPECT_EQ((*r)[2].scalarValue<int32_t>(), 3);
  }
}

TEST(ExecutorTest, FetchingAFedTensorReturnsTheFeed) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kI32, ir::Shape::scalar());
  auto y = t.binary("y", "add", x, x);
  auto z = t.binary("z", "add", y, y);
  auto r = runOnce(t, {y}, {ir::Tensor::scalar<int32_t>(5)}, {y, z});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ((*r)[0].scalarValue<int32_t>(), 5);
  EXPECT_EQ((*r)[1].scalarValue<int32_t>(), 10);
}

TEST(ExecutorTest, UnfedPlaceholderFailsNamingIt) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape::scalar());
  auto y = t.binary("y", "add", x, x);
  auto r = runOnce(t, {}, {}, {y});
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().node(), "x");
  EXPECT_EQ(r.status().loc().line, 1);
  EXPECT_NE(r.status().message().find("You must feed a value for placeholder tensor 'x'"),
            std::string::npos);
}

TEST(ExecutorTest, FailingOpNamesNodeOpAndLocation) {
  TestGraph t;
  auto a = t.constant("a", 1);
  auto z = t.constant("z", 0);
  auto bad = t.binary("bad", "floor_div", a, z);
  auto after = t.binary("after", "add", bad, a);
  auto r = runOnce(t, {}, {}, {after});
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().toString(), "test.sluice:3:1: error: invalid_argument: "
                                   "node 'bad': Integer division by zero (op floor_div)");
}

TEST(ExecutorTest, ControlEdgesOrderExecution) {
  FakeKernels fk;
  TestGraph t;
  std::vector<ir::NodeId> ids;
  for (int i = 0; i < 5; ++i) {
    std::vector<ir::NodeId> ctl;
    if (i)
      ctl.push_back(ids.back());
    ids.push_back(t.add("record" + std::to_string(i), "no_op", {}, {}, ctl)->id());
  }
  ExecutorOptions opts;
  opts.kernels = &fk.registry;
  ThreadPool pool(2);
  auto r = runOnce(t, {}, {}, {}, {ids.back()}, &pool, opts);
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ(fk.log(), "record0 record1 record2 record3 record4 ");
}

TEST(ExecutorTest, AsyncKernelsCompletingInlineDoNotRecurse) {
  // 20,000 async ops that call done inside computeAsync, chained by
  // control edges: continuing in the running loop keeps the stack flat.
  FakeKernels fk;
  TestGraph t;
  ir::NodeId prev = t.add("instant0", "no_op", {})->id();
  for (int i = 1; i < 20000; ++i)
    prev = t.add("instant" + std::to_string(i), "no_op", {}, {}, {prev})->id();
  ExecutorOptions opts;
  opts.kernels = &fk.registry;
  ThreadPool pool(1);
  auto r = runOnce(t, {}, {}, {}, {prev}, &pool, opts);
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  std::string log = fk.log();
  EXPECT_EQ(log.substr(0, 27), "instant0 instant1 instant2 ");
  EXPECT_EQ(std::count(log.begin(), log.end(), ' '), 20000);
}

TEST(ExecutorTest, AsyncKernelHoldsNoPoolThread) {
  // Two blocked ops and a releaser, one pool thread: if a blocked op held
  // the thread the releaser could never run.
  FakeKernels fk;
  fk.releaseWaitsFor = 2;
  TestGraph t;
  ir::NodeId b1 = t.add("block1", "no_op", {})->id();
  ir::NodeId b2 = t.add("block2", "no_op", {})->id();
  ir::NodeId rel = t.add("release", "no_op", {})->id();
  ExecutorOptions opts;
  opts.kernels = &fk.registry;
  ThreadPool pool(1);
  auto r = runOnce(t, {}, {}, {}, {b1, b2, rel}, &pool, opts);
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ(fk.released.load(), 2);
}

TEST(ExecutorTest, DeadlineCancelsBlockedOps) {
  FakeKernels fk;
  TestGraph t;
  auto x = t.constant("x", 1);
  ir::NodeId b = t.add("block", "no_op", {})->id();
  std::shared_ptr<const ir::Graph> g(std::move(t.owned()));
  ExecutorOptions opts;
  opts.kernels = &fk.registry;
  auto ex = Executor::create(g, {}, {x}, {b}, opts);
  ASSERT_TRUE(ex.hasValue());
  backend::ResourceMgr rm;
  ThreadPool pool(1);
  std::vector<ir::Tensor> none;
  StepParams p;
  p.feedValues = &none;
  p.resources = &rm;
  p.pool = &pool;
  p.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  auto r = (*ex)->run(p);
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kDeadlineExceeded);
  EXPECT_EQ(r.status().message(), "Timed out waiting for notification");
  EXPECT_EQ(fk.cancelledCount.load(), 1);
  // The executor is reusable after a timed-out step.
  p.deadline = std::chrono::steady_clock::time_point::max();
  auto ex2 = Executor::create(g, {}, {x}, {}, opts);
  auto ok = (*ex2)->run(p);
  ASSERT_TRUE(ok.hasValue());
}

TEST(ExecutorTest, AFailingOpCancelsBlockedOps) {
  FakeKernels fk;
  TestGraph t;
  ir::NodeId b = t.add("block", "no_op", {})->id();
  auto one = t.constant("one", 1);
  auto zero = t.constant("zero", 0);
  auto bad = t.binary("bad", "floor_div", one, zero);
  ExecutorOptions opts;
  opts.kernels = &fk.registry;
  ThreadPool pool(1);
  auto r = runOnce(t, {}, {}, {bad}, {b}, &pool, opts);
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().node(), "bad");
  EXPECT_EQ(fk.cancelledCount.load(), 1);
}

TEST(ExecutorTest, ConcurrentStepsShareOnePlan) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kI64, ir::Shape::scalar());
  ir::Output cur = x;
  for (int i = 0; i < 50; ++i)
    cur = t.binary("m" + std::to_string(i), "add", cur, x);
  std::shared_ptr<const ir::Graph> g(std::move(t.owned()));
  auto ex = Executor::create(g, {x}, {cur}, {});
  ASSERT_TRUE(ex.hasValue());
  ThreadPool pool(2);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      backend::ResourceMgr rm;
      for (int i = 0; i < 200; ++i) {
        std::vector<ir::Tensor> v{ir::Tensor::scalar<int64_t>(k + i)};
        StepParams p;
        p.feedValues = &v;
        p.resources = &rm;
        p.pool = &pool;
        auto r = (*ex)->run(p);
        if (!r.hasValue() || (*r)[0].scalarValue<int64_t>() != 51 * (k + i))
          ++bad;
      }
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(bad.load(), 0);
}

} // namespace
} // namespace sluice::rt
