// tests/passes/partition_roundtrip_test.cc: the partitioner's output on a ps/worker
// graph: one graph per device, a send/recv pair per (tensor, destination)
// and per cross-device control edge, each partition printable as .sir and
// read back unchanged, and the cost model counting the same transfers.
#include "passes/partition.h"

#include <map>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "passes/cost_model.h"
#include "tests/passes/test_graph.h"

namespace sluice::passes {
namespace {

using testing::TestGraph;

const std::string kPs0 = "/job:ps/replica:0/task:0/device:CPU:0";
const std::string kWorker = "/job:worker/replica:0/task:0/device:CPU:0";
const std::string kWorkerCpu1 = "/job:worker/replica:0/task:0/device:CPU:1";

int countOp(const ir::Graph &g, const std::string &op) {
  int n = 0;
  for (ir::NodeId id = 0; id < g.numNodes(); ++id)
    n += g.node(id).opName() == op;
  return n;
}

// x[32, 784] @ w[784, 10] with w on the ps; w also feeds a second worker
// device, and the matmul runs after an init op on the ps.
struct PsWorker {
  TestGraph t;
  PsWorker() {
    ir::Node *w =
        t.add("w", "variable", {}, {{"dtype", ir::DType::kF32}, {"shape", ir::Shape({784, 10})}});
    ir::Node *r = t.add("w/read", "read_variable", {t.out(w)}, {{"dtype", ir::DType::kF32}});
    ir::Node *init = t.add("init", "no_op", {});
    auto x = t.placeholder("x", ir::DType::kF32, ir::Shape({32, 784}));
    ir::Node *mm = t.add("logits", "matmul", {x, t.out(r)}, {}, {init->id()});
    ir::Node *sq = t.add("sq", "square", {t.out(r)});
    ir::Node *neg = t.add("neg", "negative", {t.out(r)});
    for (ir::Node *n : {w, r, init})
      n->setAssignedDevice(kPs0);
    for (ir::Node *n : {&t.graph().node(x.node), mm, sq})
      n->setAssignedDevice(kWorker);
    neg->setAssignedDevice(kWorkerCpu1);
  }
};

TEST(PartitionRoundTripTest, SendRecvPairsPerTensorAndDestination) {
  PsWorker p;
  auto split = partitionGraph(p.t.graph());
  ASSERT_TRUE(split.hasValue()) << split.status().toString();
  ASSERT_EQ(split->parts.size(), 3u);
  std::map<std::string, const ir::Graph *> byDevice;
  for (const Partition &part : split->parts)
    byDevice[part.device] = part.graph.get();
  ASSERT_EQ(byDevice.size(), 3u);
  // The ps sends w/read to each worker device and the control value of
  // init to the matmul's; the worker CPU:0 receives both (w/read once,
  // although two of its nodes read it).
  EXPECT_EQ(countOp(*byDevice[kPs0], "send"), 3);
  EXPECT_EQ(countOp(*byDevice[kPs0], "recv"), 0);
  EXPECT_EQ(countOp(*byDevice[kWorker], "recv"), 2);
  EXPECT_EQ(countOp(*byDevice[kWorker], "send"), 0);
  EXPECT_EQ(countOp(*byDevice[kWorkerCpu1], "recv"), 1);
  // Every node of a partition is on its device, and every send has one
  // recv with the same key on its recv_device.
  std::multiset<std::string> sends, recvs;
  for (const Partition &part : split->parts) {
    const ir::Graph &g = *part.graph;
    for (ir::NodeId id = 0; id < g.numNodes(); ++id) {
      const ir::Node &n = g.node(id);
      EXPECT_EQ(n.assignedDevice(), part.device) << n.name();
      if (n.opName() != "send" && n.opName() != "recv")
        continue;
      std::string key = n.attr<std::string>("send_device") + ";" +
                        n.attr<std::string>("recv_device") + ";" +
                        n.attr<std::string>("tensor_name");
      if (n.opName() == "send") {
        EXPECT_EQ(n.attr<std::string>("send_device"), part.device);
        sends.insert(key);
      } else {
        EXPECT_EQ(n.attr<std::string>("recv_device"), part.device);
        recvs.insert(key);
      }
    }
  }
  EXPECT_EQ(sends, recvs);
  // The matmul reads a recv carrying w's static shape, and waits on a recv.
  const ir::Graph &worker = *byDevice[kWorker];
  const ir::Node *mm = worker.findNode("logits");
  ASSERT_NE(mm, nullptr);
  const ir::Node &wIn = worker.node(mm->inputs()[1].node);
  EXPECT_EQ(wIn.opName(), "recv");
  EXPECT_EQ(wIn.outputShape(0), ir::Shape({784, 10}));
  EXPECT_EQ(wIn.attr<ir::Shape>("shape"), ir::Shape({784, 10}));
  ASSERT_EQ(mm->controlInputs().size(), 1u);
  const ir::Node &ctl = worker.node(mm->controlInputs()[0]);
  EXPECT_EQ(ctl.opName(), "identity");
  EXPECT_EQ(worker.node(ctl.inputs()[0].node).opName(), "recv");
  EXPECT_EQ(mm->outputShape(0), ir::Shape({32, 10}));
}

TEST(PartitionRoundTripTest, EachPartitionRoundTripsThroughText) {
  PsWorker p;
  auto split = partitionGraph(p.t.graph());
  ASSERT_TRUE(split.hasValue()) << split.status().toString();
  for (const Partition &part : split->parts) {
    std::string text = ir::printGraph(*part.graph);
    auto back = ir::parseGraph(text, "part.sir");
    ASSERT_TRUE(back.hasValue()) << part.device << ": " << back.status().toString() << "\n" << text;
    EXPECT_EQ(ir::printGraph(**back), text) << part.device;
    EXPECT_EQ((*back)->numNodes(), part.graph->numNodes());
    EXPECT_EQ(countOp(**back, "send"), countOp(*part.graph, "send"));
    EXPECT_EQ(countOp(**back, "recv"), countOp(*part.graph, "recv"));
  }
}

TEST(PartitionRoundTripTest, CostModelCountsThePartitionersTransfers) {
  PsWorker p;
  auto split = partitionGraph(p.t.graph());
  auto cost = estimateCost(p.t.graph());
  ASSERT_TRUE(split.hasValue() && cost.hasValue());
  int sends = 0;
  for (const Partition &part : split->parts)
    sends += countOp(*part.graph, "send");
  int tensors = 0;
  for (const DeviceTransfer &t : cost->transfers)
    tensors += t.tensors;
  EXPECT_EQ(tensors, sends);
  // w/read twice (31360 bytes each) and init's empty control value.
  EXPECT_EQ(cost->totalBytes.str(), "62720");
}

} // namespace
} // namespace sluice::passes
