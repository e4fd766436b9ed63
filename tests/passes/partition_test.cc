// tests/passes/partition_test.cc: the partitioner's invariants: every
// partition is a valid graph, each cross-device edge is one send/recv pair
// (one recv per tensor and destination), control edges cross as a [0]
// float constant, and nothing is lost or duplicated.
#include "passes/partition.h"

#include <map>
#include <set>

#include "ir/text/verifier.h"
#include "tests/passes/test_graph.h"

namespace sluice::passes {
namespace {

using testing::TestGraph;

const std::string kA = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kB = "/job:localhost/replica:0/task:0/device:CPU:1";
const std::string kPs = "/job:ps/replica:0/task:0/device:CPU:0";

void place(ir::Graph &g, ir::Output o, const std::string &device) {
  g.node(o.node).setAssignedDevice(device);
}

int countOp(const ir::Graph &g, const std::string &op) {
  int n = 0;
  for (ir::NodeId id = 0; id < g.numNodes(); ++id)
    n += g.node(id).opName() == op;
  return n;
}

TEST(PartitionTest, OneDeviceGivesOneCopy) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  auto b = t.binary("b", "add", a, a);
  place(t.graph(), a, kA);
  place(t.graph(), b, kA);
  auto p = partitionGraph(t.graph());
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  ASSERT_EQ(p->parts.size(), 1u);
  EXPECT_EQ(p->parts[0].device, kA);
  EXPECT_EQ(testing::dump(*p->parts[0].graph), testing::dump(t.graph()));
}

TEST(PartitionTest, UnplacedNodeIsAnError) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  (void)a;
  auto p = partitionGraph(t.graph());
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.status().code(), Code::kInvalidArgument);
  EXPECT_NE(p.status().message().find("'a' has no assigned device"), std::string::npos);
  EXPECT_EQ(p.status().loc().line, 1);
}

TEST(PartitionTest, CrossEdgeBecomesOneSendRecvPairPerDestination) {
  TestGraph t;
  auto a = t.constant("a", 2.0f);
  auto b = t.binary("b", "add", a, a);      // two uses on B: one recv
  auto c = t.binary("c", "multiply", a, b); // another use on B
  auto d = t.binary("d", "subtract", a, a); // a use on the ps task
  place(t.graph(), a, kA);
  place(t.graph(), b, kB);
  place(t.graph(), c, kB);
  place(t.graph(), d, kPs);
  auto p = partitionGraph(t.graph());
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  ASSERT_EQ(p->parts.size(), 3u);
  std::map<std::string, const ir::Graph *> by;
  for (const Partition &part : p->parts) {
    by[part.device] = part.graph.get();
    EXPECT_TRUE(ir::verifyGraph(*part.graph).isOk()) << part.device;
    for (ir::NodeId id = 0; id < part.graph->numNodes(); ++id)
      EXPECT_EQ(part.graph->node(id).assignedDevice(), part.device);
  }
  EXPECT_EQ(countOp(*by[kA], "send"), 2); // to B and to ps, once each
  EXPECT_EQ(countOp(*by[kB], "recv"), 1);
  EXPECT_EQ(countOp(*by[kPs], "recv"), 1);
  // Sends and recvs pair up by their endpoint attributes.
  std::multiset<std::string> sends, recvs;
  for (const Partition &part : p->parts)
    for (ir::NodeId id = 0; id < part.graph->numNodes(); ++id) {
      const ir::Node &n = part.graph->node(id);
      if (n.opName() != "send" && n.opName() != "recv")
        continue;
      std::string key = n.attr<std::string>("send_device") + ";" +
                        n.attr<std::string>("recv_device") + ";" +
                        n.attr<std::string>("tensor_name");
      EXPECT_EQ(n.attr<std::string>(n.opName() == "send" ? "send_device" : "recv_device"),
                part.device);
      EXPECT_EQ(n.attr<std::string>("tensor_name").rfind("edge_", 0), 0u);
      (n.opName() == "send" ? sends : recvs).insert(key);
    }
  EXPECT_EQ(sends, recvs);
  EXPECT_EQ(sends.size(), 2u);
  // Every original node is in exactly one partition, under its own name.
  std::set<std::string> seen;
  for (ir::NodeId id = 0; id < t.graph().numNodes(); ++id) {
    auto [part, local] = p->where[id];
    ASSERT_GE(part, 0);
    EXPECT_EQ(p->parts[part].graph->node(local).name(), t.graph().node(id).name());
    EXPECT_TRUE(seen.insert(t.graph().node(id).name()).second);
  }
  // c's inputs on B: the recv of a and the local b.
  const ir::Graph &gb = *by[kB];
  const ir::Node *cb = gb.findNode("c");
  ASSERT_NE(cb, nullptr);
  EXPECT_EQ(gb.node(cb->inputs()[0].node).opName(), "recv");
  EXPECT_EQ(gb.node(cb->inputs()[1].node).name(), "b");
}

TEST(PartitionTest, ControlEdgeCrossesAsAnEmptyFloatConstant) {
  TestGraph t;
  auto a = t.constant("a", 1);
  ir::Node *b = t.add("b", "constant", {},
                      {{"value", ir::Tensor::scalar<int32_t>(2)}, {"dtype", ir::DType::kI32}},
                      {a.node});
  t.graph().node(a.node).setAssignedDevice(kA);
  b->setAssignedDevice(kB);
  auto p = partitionGraph(t.graph());
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  const ir::Graph &ga = *p->parts[p->where[a.node].first].graph;
  const ir::Graph &gb = *p->parts[p->where[b->id()].first].graph;
  const ir::Node *dummy = nullptr;
  for (ir::NodeId id = 0; id < ga.numNodes(); ++id)
    if (ga.node(id).opName() == "constant" && ga.node(id).name() != "a")
      dummy = &ga.node(id);
  ASSERT_NE(dummy, nullptr);
  EXPECT_EQ(dummy->attr<ir::Tensor>("value").dtype(), ir::DType::kF32);
  EXPECT_EQ(dummy->attr<ir::Tensor>("value").numElements(), 0);
  EXPECT_EQ(dummy->controlInputs(), std::vector<ir::NodeId>{ga.findNode("a")->id()});
  const ir::Node *bb = gb.findNode("b");
  ASSERT_EQ(bb->controlInputs().size(), 1u);
  const ir::Node &ctl = gb.node(bb->controlInputs()[0]);
  EXPECT_EQ(ctl.opName(), "identity");
  EXPECT_EQ(gb.node(ctl.inputs()[0].node).opName(), "recv");
}

TEST(PartitionTest, LocateMapsFeedsAndFetches) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape({2}));
  auto y = t.binary("y", "add", x, x);
  place(t.graph(), x, kA);
  place(t.graph(), y, kB);
  auto p = partitionGraph(t.graph());
  ASSERT_TRUE(p.hasValue());
  auto [px, ox] = p->locate(x);
  auto [py, oy] = p->locate(y);
  EXPECT_EQ(p->parts[px].device, kA);
  EXPECT_EQ(p->parts[py].device, kB);
  EXPECT_EQ(p->parts[px].graph->node(ox.node).name(), "x");
  EXPECT_EQ(p->parts[py].graph->node(oy.node).name(), "y");
  // The recv keeps the static shape, so shape checks downstream still work.
  const ir::Graph &gb = *p->parts[py].graph;
  EXPECT_EQ(gb.node(gb.node(oy.node).inputs()[0].node).outputShape(0), ir::Shape({2}));
}

} // namespace
} // namespace sluice::passes
