// tests/runtime/partition_exec_test.cc: a step spread over several local
// devices gives exactly what the same graph gives on one device, on
// random graphs (data and control edges across devices, a variable on a
// ps task), and a failing partition fails the step without hanging.
#include <random>

#include "runtime/session.h"
#include "tests/passes/test_graph.h"

namespace sluice::rt {
namespace {

using testing::TestGraph;

struct RandomGraph {
  TestGraph t;
  ir::Output x;                  // placeholder f32[8]
  std::vector<ir::Output> fetches;
  std::vector<ir::NodeId> targets;
};

// A random DAG of element-wise ops over a fed vector, some constants and a
// ps variable; `devices` > 0 requests a random /cpu:i (or the ps task) per
// node, 0 leaves every node unrequested.
void build(RandomGraph &r, uint32_t seed, int devices) {
  // Device choices draw from their own stream, so both builds of a seed
  // are the same graph.
  std::mt19937 rng(seed), deviceRng(seed * 7919u);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  auto request = [&](ir::Output o) {
    if (devices > 0)
      r.t.graph().node(o.node).setRequestedDevice(
          "/cpu:" + std::to_string(deviceRng() % static_cast<uint32_t>(devices)));
  };
  r.x = r.t.placeholder("x", ir::DType::kF32, ir::Shape({8}));
  std::vector<ir::Output> pool{r.x};
  for (int i = 0; i < 3; ++i) {
    std::vector<float> v(8);
    for (float &f : v)
      f = static_cast<float>(pick(9)) - 4.0f;
    pool.push_back(r.t.constantVec<float>("c" + std::to_string(i), v));
    request(pool.back());
  }
  ir::Node *var = r.t.add("v", "variable", {},
                          {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({8})}});
  if (devices > 0)
    var->setRequestedDevice("/job:ps/task:0");
  ir::Node *init = r.t.add("v_init", "assign", {r.t.out(var), pool[1]});
  r.targets.push_back(init->id());
  ir::Node *read = r.t.add("v_read", "read_variable", {r.t.out(var)},
                           {{"dtype", ir::DType::kF32}}, {init->id()});
  pool.push_back(r.t.out(read));
  const char *binary[] = {"add", "subtract", "multiply", "maximum", "minimum"};
  const char *unary[] = {"negative", "abs", "square"};
  int n = 10 + pick(20);
  for (int i = 0; i < n; ++i) {
    std::string name = "n" + std::to_string(i);
    ir::Output o;
    if (pick(3) == 0) {
      o = r.t.out(r.t.add(name, unary[pick(3)], {pool[pick(static_cast<int>(pool.size()))]}));
    } else {
      o = r.t.binary(name, binary[pick(5)], pool[pick(static_cast<int>(pool.size()))],
                     pool[pick(static_cast<int>(pool.size()))]);
    }
    // Now and then a control edge from an earlier value.
    if (pick(4) == 0)
      r.t.graph().addControlInput(o.node, pool[pick(static_cast<int>(pool.size()))].node);
    request(o);
    pool.push_back(o);
  }
  for (int i = 0; i < 3; ++i)
    r.fetches.push_back(pool[pool.size() - 1 - static_cast<size_t>(pick(6))]);
}

std::vector<ir::Tensor> runOnce(const ir::Graph &g, const RandomGraph &r, int cpus,
                                bool folding) {
  SessionOptions o;
  o.deviceCount = {{"CPU", cpus}};
  o.constantFolding = folding;
  auto s = Session::create(&g, nullptr, o);
  EXPECT_TRUE(s.hasValue());
  ir::Tensor feed = ir::Tensor::fromVector<float>({1, -2, 3, -4, 5, -6, 7, -8});
  auto out = (*s)->run({{r.x, feed}}, r.fetches, r.targets);
  EXPECT_TRUE(out.hasValue()) << out.status().toString();
  return out.hasValue() ? *out : std::vector<ir::Tensor>{};
}

TEST(PartitionExecTest, RandomGraphsMatchSingleDevice) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    RandomGraph spread, single;
    build(spread, seed, 4);
    build(single, seed, 0);
    auto want = runOnce(single.t.graph(), single, 1, true);
    for (bool folding : {true, false}) {
      auto got = runOnce(spread.t.graph(), spread, 4, folding);
      ASSERT_EQ(got.size(), want.size()) << "seed " << seed;
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_TRUE(got[i].equals(want[i]))
            << "seed " << seed << " fetch " << i << ": " << ir::formatTensor(got[i])
            << " vs " << ir::formatTensor(want[i]);
    }
  }
}

TEST(PartitionExecTest, RepeatedRunsReuseThePartitionedPlan) {
  RandomGraph r;
  build(r, 7, 4);
  SessionOptions o;
  o.deviceCount = {{"CPU", 4}};
  auto s = Session::create(&r.t.graph(), nullptr, o);
  ASSERT_TRUE(s.hasValue());
  ir::Tensor feed = ir::Tensor::fromVector<float>({1, 2, 3, 4, 5, 6, 7, 8});
  auto first = (*s)->run({{r.x, feed}}, r.fetches, r.targets);
  ASSERT_TRUE(first.hasValue()) << first.status().toString();
  for (int i = 0; i < 50; ++i) {
    auto again = (*s)->run({{r.x, feed}}, r.fetches, r.targets);
    ASSERT_TRUE(again.hasValue());
    for (size_t k = 0; k < again->size(); ++k)
      EXPECT_TRUE((*again)[k].equals((*first)[k]));
  }
  EXPECT_EQ((*s)->numCachedExecutors(), 1u);
}

TEST(PartitionExecTest, AFailingPartitionFailsTheStepWithItsError) {
  TestGraph t;
  auto a = t.constant("a", 1);
  auto z = t.constant("z", 0);
  t.graph().node(a.node).setRequestedDevice("/cpu:0");
  t.graph().node(z.node).setRequestedDevice("/cpu:0");
  auto bad = t.binary("bad", "floor_div", a, z); // fails on CPU:1
  t.graph().node(bad.node).setRequestedDevice("/cpu:1");
  auto after = t.binary("after", "add", bad, a); // waits on CPU:2 for it
  t.graph().node(after.node).setRequestedDevice("/cpu:2");
  SessionOptions o;
  o.deviceCount = {{"CPU", 3}};
  o.constantFolding = false;
  auto s = Session::create(&t.graph(), nullptr, o);
  ASSERT_TRUE(s.hasValue());
  auto r = (*s)->run({}, {after}, {});
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().toString();
  EXPECT_EQ(r.status().node(), "bad");
}

} // namespace
} // namespace sluice::rt
