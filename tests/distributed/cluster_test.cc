// tests/distributed/cluster_test.cc: sessions on a cluster of in-process
// gRPC servers on loopback: partitions run on the tasks owning their
// devices, variables live on the ps across sessions, errors keep their
// code and node, and the failure cases (no token, a task that is not up,
// a closed session) end promptly with the right error.
#include <thread>

#include "backend/jit/jit.h"
#include "runtime/distributed/cluster_client.h"
#include "runtime/distributed/free_port.h"
#include "runtime/distributed/server.h"
#include "runtime/distributed/worker_service.h"
#include "runtime/session.h"
#include "tests/passes/test_graph.h"

namespace sluice::dist {
namespace {

using testing::TestGraph;

std::string loopback() {
  auto port = pickFreeLoopbackPort();
  EXPECT_TRUE(port.hasValue());
  return "127.0.0.1:" + std::to_string(port.hasValue() ? *port : 1);
}

struct Cluster {
  rt::ClusterSpec spec;
  std::vector<std::unique_ptr<Server>> servers;

  explicit Cluster(int ps, int workers, ChannelOptions channel = {}) {
    std::vector<std::string> p, w;
    for (int i = 0; i < ps; ++i)
      p.push_back(loopback());
    for (int i = 0; i < workers; ++i)
      w.push_back(loopback());
    spec.addJob("ps", p);
    spec.addJob("worker", w);
    for (auto [job, n] : {std::pair<std::string, int>{"ps", ps}, {"worker", workers}})
      for (int i = 0; i < n; ++i) {
        ServerOptions o;
        o.cluster = spec;
        o.job = job;
        o.taskIndex = i;
        o.channel = channel;
        auto s = Server::start(o);
        EXPECT_TRUE(s.hasValue()) << s.status().toString();
        if (s.hasValue())
          servers.push_back(std::move(*s));
      }
  }

  std::shared_ptr<ClusterClient> client(ChannelOptions channel = {}) {
    ClusterClientOptions o;
    o.cluster = spec;
    o.localTask = "/job:worker/replica:0/task:0";
    o.channel = channel;
    o.startupTimeout = std::chrono::seconds(10);
    return std::make_shared<ClusterClient>(o);
  }
};

std::unique_ptr<rt::Session> session(const ir::Graph &g, std::shared_ptr<ClusterClient> c,
                                     const std::string &backend = "jit") {
  rt::SessionOptions o;
  o.cluster = std::move(c);
  o.backend = backend;
  o.constantFolding = false;
  auto s = rt::Session::create(&g, nullptr, o);
  EXPECT_TRUE(s.hasValue()) << s.status().toString();
  return s.hasValue() ? std::move(*s) : nullptr;
}

// v (on ps 0) = [1, 2, 3]; y = v * x + 1 on the worker; v += y on the ps.
struct LinearGraph {
  TestGraph t;
  ir::Output x, y, v, read;
  ir::NodeId init = 0, update = 0;
  LinearGraph() {
    x = t.placeholder("x", ir::DType::kF32, ir::Shape({3}));
    ir::Node *var = t.add("v", "variable", {},
                          {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({3})}});
    var->setRequestedDevice("/job:ps/task:0");
    v = t.out(var);
    auto c = t.constantVec<float>("init_value", {1, 2, 3});
    init = t.add("v_init", "assign", {v, c})->id();
    ir::Node *r = t.add("v_read", "read_variable", {v}, {{"dtype", ir::DType::kF32}});
    read = t.out(r);
    auto prod = t.binary("prod", "multiply", read, x);
    auto one = t.constant<float>("one", 1.0f);
    y = t.binary("y", "add", prod, one);
    t.graph().node(prod.node).setRequestedDevice("/job:worker/task:0");
    t.graph().node(y.node).setRequestedDevice("/job:worker/task:0");
    update = t.add("v_update", "assign_add", {v, y})->id();
  }
};

TEST(ClusterTest, APartitionedStepRunsOnTheTasks) {
  Cluster cluster(1, 1);
  LinearGraph g;
  auto s = session(g.t.graph(), cluster.client());
  ASSERT_TRUE(s);
  ASSERT_TRUE((*s).run({}, {}, {g.init}).hasValue());
  ir::Tensor x = ir::Tensor::fromVector<float>({2, 2, 2});
  auto r = s->run({{g.x, x}}, {g.y}, {g.update});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_TRUE((*r)[0].equals(ir::Tensor::fromVector<float>({3, 5, 7})));
  auto after = s->run({}, {g.read}, {});
  ASSERT_TRUE(after.hasValue()) << after.status().toString();
  EXPECT_TRUE((*after)[0].equals(ir::Tensor::fromVector<float>({4, 7, 10})));
}

int64_t jitKernelsUsed() {
  backend::jit::JitStats s = backend::jit::stats();
  return s.compiled + s.memoryHits + s.diskHits;
}

// The worker's `y = v * x + 1` is one fused node: the session's backend
// reaches the task, which compiles it (jit) or interprets it (interp).
TEST(ClusterTest, RemoteTasksRunFusedNodesWithTheSessionsBackend) {
  Cluster cluster(1, 1);
  LinearGraph g;
  ir::Tensor x = ir::Tensor::fromVector<float>({2, 2, 2});
  for (const std::string backend : {"interp", "jit"}) {
    auto s = session(g.t.graph(), cluster.client(), backend);
    ASSERT_TRUE(s->run({}, {}, {g.init}).hasValue());
    int64_t before = jitKernelsUsed();
    auto r = s->run({{g.x, x}}, {g.y}, {});
    ASSERT_TRUE(r.hasValue()) << r.status().toString();
    EXPECT_TRUE((*r)[0].equals(ir::Tensor::fromVector<float>({3, 5, 7}))) << backend;
    if (backend == "jit")
      EXPECT_GT(jitKernelsUsed(), before);
    else
      EXPECT_EQ(jitKernelsUsed(), before);
  }
}

TEST(ClusterTest, ATaskRefusesABackendItDoesNotHave) {
  Cluster cluster(1, 1);
  TestGraph t;
  ir::Node *c = t.add("c", "constant", {},
                      {{"dtype", ir::DType::kF32}, {"value", ir::Tensor::scalar<float>(1)}});
  c->setAssignedDevice("/job:ps/replica:0/task:0/device:CPU:0");
  rt::RemoteCluster::PartitionSpec spec;
  spec.graph = &t.graph();
  spec.device = c->assignedDevice();
  spec.targets = {c->id()};
  spec.backend = "gpu";
  auto handle = cluster.client()->registerPartition(spec);
  ASSERT_FALSE(handle.hasValue());
  EXPECT_EQ(handle.status().code(), Code::kInvalidArgument);
  EXPECT_NE(handle.status().message().find("backend 'gpu'"), std::string::npos)
      << handle.status().toString();
}

TEST(ClusterTest, VariablesOnThePsOutliveTheSession) {
  Cluster cluster(1, 1);
  LinearGraph g;
  {
    auto s = session(g.t.graph(), cluster.client());
    ASSERT_TRUE(s->run({}, {}, {g.init}).hasValue());
    ASSERT_TRUE(
        s->run({{g.x, ir::Tensor::fromVector<float>({0, 0, 0})}}, {}, {g.update}).hasValue());
  }
  // A second client (another worker's session) sees the same variable.
  auto s = session(g.t.graph(), cluster.client());
  auto r = s->run({}, {g.read}, {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_TRUE((*r)[0].equals(ir::Tensor::fromVector<float>({2, 3, 4})));
}

TEST(ClusterTest, SessionsDeregisterTheirPartitions) {
  Cluster cluster(1, 1);
  LinearGraph g;
  {
    auto client = cluster.client();
    auto s = session(g.t.graph(), client);
    ASSERT_TRUE(s->run({}, {}, {g.init}).hasValue());
    EXPECT_GE(cluster.servers[0]->service().numGraphs(), 1u);
    s.reset();
  } // the client waits for its deregistrations
  for (auto &server : cluster.servers)
    EXPECT_EQ(server->service().numGraphs(), 0u) << server->task();
}

// A step of one partition sends nothing between tasks: its task drops the
// step as it answers, and no CleanupStep call is needed.
TEST(ClusterTest, ALonePartitionsTaskDropsItsStep) {
  Cluster cluster(1, 1);
  TestGraph t;
  auto a = t.constant("a", 2.0f);
  auto y = t.binary("y", "multiply", a, a);
  t.graph().node(a.node).setRequestedDevice("/job:ps/task:0");
  t.graph().node(y.node).setRequestedDevice("/job:ps/task:0");
  auto s = session(t.graph(), cluster.client());
  for (int i = 0; i < 3; ++i) {
    auto r = s->run({}, {y}, {});
    ASSERT_TRUE(r.hasValue()) << r.status().toString();
    EXPECT_EQ((*r)[0].scalarValue<float>(), 4.0f);
    for (auto &server : cluster.servers)
      EXPECT_EQ(server->service().numSteps(), 0u) << server->task();
  }
}

TEST(ClusterTest, ARemoteErrorKeepsItsCodeAndNode) {
  Cluster cluster(1, 1);
  TestGraph t;
  auto a = t.constant("a", 1);
  auto z = t.constant("z", 0);
  t.graph().node(a.node).setRequestedDevice("/job:ps/task:0");
  t.graph().node(z.node).setRequestedDevice("/job:ps/task:0");
  auto bad = t.binary("bad", "floor_div", a, z);
  t.graph().node(bad.node).setRequestedDevice("/job:ps/task:0");
  auto after = t.binary("after", "add", bad, a);
  t.graph().node(after.node).setRequestedDevice("/job:worker/task:0");
  auto s = session(t.graph(), cluster.client());
  auto r = s->run({}, {after}, {});
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().toString();
  EXPECT_EQ(r.status().node(), "bad");
}

TEST(ClusterTest, ACallWithoutTheTokenIsRefused) {
  ChannelOptions secret;
  secret.token = "s3cret";
  Cluster cluster(1, 1, secret);
  LinearGraph g;
  auto s = session(g.t.graph(), cluster.client());
  auto r = s->run({}, {}, {g.init});
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kUnauthenticated) << r.status().toString();
  // It names the task that refused the call, and where it is.
  EXPECT_NE(r.status().message().find("/job:"), std::string::npos) << r.status().toString();
  EXPECT_NE(r.status().message().find("127.0.0.1:"), std::string::npos) << r.status().toString();
  auto ok = session(g.t.graph(), cluster.client(secret));
  EXPECT_TRUE(ok->run({}, {}, {g.init}).hasValue());
}

TEST(ClusterTest, ATaskThatIsNotUpIsUnavailableNamingIt) {
  rt::ClusterSpec spec;
  std::string ps = loopback();
  spec.addJob("ps", {ps});
  spec.addJob("worker", {loopback()});
  ClusterClientOptions o;
  o.cluster = spec;
  o.localTask = "/job:worker/replica:0/task:0";
  o.startupTimeout = std::chrono::milliseconds(300);
  o.waitLogEvery = std::chrono::milliseconds(100);
  std::vector<std::string> logged;
  o.log = [&](const std::string &line) { logged.push_back(line); };
  LinearGraph g;
  auto s = session(g.t.graph(), std::make_shared<ClusterClient>(o));
  auto start = std::chrono::steady_clock::now();
  auto r = s->run({}, {}, {g.init});
  ASSERT_FALSE(r.hasValue());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(r.status().code(), Code::kUnavailable) << r.status().toString();
  EXPECT_NE(r.status().message().find("/job:ps/replica:0/task:0 at " + ps), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(logged.empty());
}

TEST(ClusterTest, ClosingTheSessionCancelsARemoteStep) {
  Cluster cluster(1, 1);
  TestGraph t;
  ir::Node *q = t.add("q", "fifo_queue", {},
                      {{"component_types", std::vector<ir::DType>{ir::DType::kF32}},
                       {"capacity", int64_t{4}}});
  q->setRequestedDevice("/job:ps/task:0");
  ir::Node *deq = t.add("deq", "queue_dequeue", {t.out(q)},
                        {{"component_types", std::vector<ir::DType>{ir::DType::kF32}}});
  auto y = t.binary("y", "add", t.out(deq), t.out(deq));
  t.graph().node(y.node).setRequestedDevice("/job:worker/task:0");
  auto s = session(t.graph(), cluster.client());
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    s->close().ignore();
  });
  auto r = s->run({}, {y}, {});
  closer.join();
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kCancelled) << r.status().toString();
}

TEST(ClusterTest, AStepDeadlineReachesTheTasks) {
  Cluster cluster(1, 1);
  TestGraph t;
  ir::Node *q = t.add("q", "fifo_queue", {},
                      {{"component_types", std::vector<ir::DType>{ir::DType::kF32}}});
  q->setRequestedDevice("/job:ps/task:0");
  ir::Node *deq = t.add("deq", "queue_dequeue", {t.out(q)},
                        {{"component_types", std::vector<ir::DType>{ir::DType::kF32}}});
  auto y = t.binary("y", "add", t.out(deq), t.out(deq));
  t.graph().node(y.node).setRequestedDevice("/job:worker/task:0");
  auto s = session(t.graph(), cluster.client());
  rt::RunOptions ro;
  ro.timeoutMs = 200;
  auto r = s->run({}, {y}, {}, ro);
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kDeadlineExceeded) << r.status().toString();
}

TEST(ClusterTest, TwoServersCannotShareAnAddress) {
  rt::ClusterSpec spec;
  std::string a = loopback();
  spec.addJob("worker", {a, a});
  ServerOptions o;
  o.cluster = spec;
  o.job = "worker";
  auto first = Server::start(o);
  ASSERT_TRUE(first.hasValue()) << first.status().toString();
  o.taskIndex = 1;
  auto second = Server::start(o);
  ASSERT_FALSE(second.hasValue());
  EXPECT_EQ(second.status().code(), Code::kUnavailable);
  EXPECT_NE(second.status().message().find(a), std::string::npos);
}

} // namespace
} // namespace sluice::dist
