// tests/passes/cost_model_test.cc: the cost model on hand-computed placed
// graphs: bytes per device pair, parameter bytes per task, FLOPs per
// device, symbolic dims, and when each warning fires.
#include "passes/cost_model.h"

#include "tests/passes/test_graph.h"

namespace sluice::passes {
namespace {

using testing::TestGraph;

const std::string kPs0 = "/job:ps/replica:0/task:0/device:CPU:0";
const std::string kPs1 = "/job:ps/replica:0/task:1/device:CPU:0";
const std::string kPs2 = "/job:ps/replica:0/task:2/device:CPU:0";
const std::string kWorker = "/job:worker/replica:0/task:0/device:CPU:0";
const std::string kWorkerCpu1 = "/job:worker/replica:0/task:0/device:CPU:1";
const std::string kLocal = "/job:localhost/replica:0/task:0/device:CPU:0";

void place(TestGraph &t, ir::Output o, const std::string &device) {
  t.graph().node(o.node).setAssignedDevice(device);
}

// A variable of `shape` on `device` and its read, colocated with it.
ir::Output variable(TestGraph &t, const std::string &name, ir::Shape shape,
                    const std::string &device) {
  ir::Node *v = t.add(name, "variable", {}, {{"dtype", ir::DType::kF32}, {"shape", shape}});
  ir::Node *r = t.add(name + "/read", "read_variable", {t.out(v)}, {{"dtype", ir::DType::kF32}});
  v->setAssignedDevice(device);
  r->setAssignedDevice(device);
  return t.out(r);
}

// x[batch, 784] @ w[784, 10]: w on ps task 0, x and the matmul on the
// worker.
struct Mnist {
  TestGraph t;
  ir::Node *logits = nullptr;
  explicit Mnist(int64_t batch, const std::string &xDevice = kWorker) {
    auto x = t.placeholder("x", ir::DType::kF32, ir::Shape({batch, 784}));
    place(t, x, xDevice);
    auto w = variable(t, "w", ir::Shape({784, 10}), kPs0);
    logits = t.add("logits", "matmul", {x, w});
    logits->setAssignedDevice(kWorker);
  }
};

TEST(CostModelTest, HandComputedMatmulOnPsAndWorker) {
  Mnist m(32);
  auto r = estimateCost(m.t.graph(), {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  ASSERT_EQ(r->transfers.size(), 1u);
  EXPECT_EQ(r->transfers[0].from, kPs0);
  EXPECT_EQ(r->transfers[0].to, kWorker);
  EXPECT_EQ(r->transfers[0].tensors, 1);
  EXPECT_EQ(r->transfers[0].bytes.str(), "31360"); // 784 * 10 * 4
  ASSERT_EQ(r->parameters.size(), 1u);
  EXPECT_EQ(r->parameters[0].task, "/job:ps/replica:0/task:0");
  EXPECT_EQ(r->parameters[0].variables, 1);
  EXPECT_EQ(r->parameters[0].bytes.known(), 31360);
  ASSERT_EQ(r->compute.size(), 2u);
  EXPECT_EQ(r->compute[0].device, kPs0);
  EXPECT_EQ(r->compute[0].flops.str(), "0");
  EXPECT_EQ(r->compute[1].device, kWorker);
  EXPECT_EQ(r->compute[1].flops.str(), "501760"); // 2 * 32 * 10 * 784
  EXPECT_EQ(r->totalFlops.known(), 501760);
  // One ps task cannot be unbalanced, and 31360 bytes < 501760 FLOPs.
  EXPECT_TRUE(r->warnings.empty()) << r->warnings[0].message();
  // The transfers' total row is blank under "to": 83 spaces to the count.
  std::string transfers =
      "bytes crossing devices per step (one value per tensor and destination device):\n"
      "  from                                   to                                         "
      "tensors  bytes\n"
      "  /job:ps/replica:0/task:0/device:CPU:0  /job:worker/replica:0/task:0/device:CPU:0"
      "        1  31360\n"
      "  total" +
      std::string(83, ' ') + "1  31360\n";
  EXPECT_EQ(formatCostReport(*r),
            transfers + "\n"
                        "parameter bytes per task (variables: elements * dtype size):\n"
                        "  task                      variables  bytes   share\n"
                        "  /job:ps/replica:0/task:0          1  31360  100.0%\n"
                        "  total                             1  31360\n"
                        "\n"
                        "FLOPs per device per step (matmul 2*M*N*K, elementwise 1 per element, "
                        "reductions 1 per input element):\n"
                        "  device                                      flops\n"
                        "  /job:ps/replica:0/task:0/device:CPU:0           0\n"
                        "  /job:worker/replica:0/task:0/device:CPU:0  501760\n"
                        "  total                                      501760\n");
}

TEST(CostModelTest, TransferBoundStepWarnsAtTheReader) {
  Mnist m(1); // 2 * 1 * 10 * 784 = 15680 FLOPs for 31360 bytes
  auto r = estimateCost(m.t.graph(), {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ(r->totalFlops.str(), "15680");
  ASSERT_EQ(r->warnings.size(), 1u);
  const Status &w = r->warnings[0];
  EXPECT_EQ(w.node(), "logits");
  EXPECT_EQ(w.loc().line, m.logits->loc().line);
  EXPECT_NE(w.message().find("31360 bytes cross devices per step but the step computes only "
                             "15680 FLOPs"),
            std::string::npos)
      << w.message();
  EXPECT_NE(w.message().find("'w/read:0' (31360 bytes, " + kPs0 + " -> " + kWorker + ")"),
            std::string::npos)
      << w.message();
  EXPECT_NE(w.message().find("hint: colocate"), std::string::npos);
  EXPECT_NE(w.message().find("add ps tasks"), std::string::npos);
}

TEST(CostModelTest, UnknownBatchStaysSymbolic) {
  // x on the local task: its bytes depend on the batch too.
  Mnist m(ir::Shape::kUnknown, kLocal);
  auto r = estimateCost(m.t.graph(), {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  ASSERT_EQ(r->transfers.size(), 2u);
  EXPECT_EQ(r->transfers[0].from, kLocal);
  EXPECT_EQ(r->transfers[0].bytes.str(), "3136*?"); // 784 * 4 per row
  EXPECT_EQ(r->transfers[1].bytes.str(), "31360");
  EXPECT_EQ(r->totalBytes.str(), "31360 + 3136*?");
  EXPECT_EQ(r->totalBytes.known(), 31360);
  EXPECT_FALSE(r->totalBytes.isExact());
  EXPECT_EQ(r->totalFlops.str(), "15680*?");
  // 31360 + 3136*? > 15680*? only for small batches: no warning.
  EXPECT_TRUE(r->warnings.empty());
  std::string text = formatCostReport(*r);
  EXPECT_NE(text.find("notation: ? is an unknown dimension"), std::string::npos) << text;
  EXPECT_NE(text.find("31360 + 3136*?"), std::string::npos) << text;
}

TEST(CostModelTest, BytesDominatingEveryTermWarnsEvenWithUnknownDims) {
  // neg(x) on the worker, x[?, 4] from the local task: 16*? bytes for 4*?
  // FLOPs whatever the batch.
  TestGraph u;
  auto ux = u.placeholder("x", ir::DType::kF32, ir::Shape({ir::Shape::kUnknown, 4}));
  place(u, ux, kLocal);
  ir::Node *neg = u.add("neg", "negative", {ux});
  neg->setAssignedDevice(kWorker);
  auto r = estimateCost(u.graph(), {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ(r->totalBytes.str(), "16*?");
  EXPECT_EQ(r->totalFlops.str(), "4*?");
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].node(), "neg");
}

TEST(CostModelTest, UnsizedFlopsNeverWarn) {
  // x of unknown rank: the negation's FLOPs are unsized, so bytes > FLOPs
  // cannot be concluded although the known parts say so.
  TestGraph t;
  ir::Node *x = t.add("x", "placeholder", {}, {{"dtype", ir::DType::kF32}});
  x->setAssignedDevice(kLocal);
  ir::Node *neg = t.add("neg", "negative", {t.out(x)});
  neg->setAssignedDevice(kWorker);
  auto c = t.constantVec<float>("c", {1, 2, 3});
  place(t, c, kLocal);
  ir::Node *id = t.add("id", "identity", {c});
  id->setAssignedDevice(kWorker);
  auto r = estimateCost(t.graph(), {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_EQ(r->totalBytes.str(), "12 + unsized(1)");
  EXPECT_EQ(r->totalFlops.str(), "unsized(1)");
  EXPECT_TRUE(r->warnings.empty());
}

TEST(CostModelTest, OneValuePerTensorAndDestinationLikeThePartitioner) {
  TestGraph t;
  auto w = variable(t, "w", ir::Shape({10}), kPs0);
  // Two readers on the worker share one transfer; a reader on another
  // device of the same task gets its own.
  ir::Node *a = t.add("a", "negative", {w});
  ir::Node *b = t.add("b", "square", {w});
  ir::Node *c = t.add("c", "negative", {w});
  // Control edges: one empty value per (source, destination) as well.
  ir::Node *g1 = t.add("g1", "no_op", {}, {}, {a->id(), b->id()});
  ir::Node *g2 = t.add("g2", "no_op", {}, {}, {a->id()});
  a->setAssignedDevice(kWorker);
  b->setAssignedDevice(kWorker);
  c->setAssignedDevice(kWorkerCpu1);
  g1->setAssignedDevice(kPs0);
  g2->setAssignedDevice(kPs0);
  auto r = estimateCost(t.graph(), {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  ASSERT_EQ(r->transfers.size(), 3u);
  EXPECT_EQ(r->transfers[0].from, kPs0);
  EXPECT_EQ(r->transfers[0].to, kWorker);
  EXPECT_EQ(r->transfers[0].tensors, 1);
  EXPECT_EQ(r->transfers[0].bytes.str(), "40");
  EXPECT_EQ(r->transfers[1].to, kWorkerCpu1);
  EXPECT_EQ(r->transfers[1].bytes.str(), "40");
  EXPECT_EQ(r->transfers[2].from, kWorker);
  EXPECT_EQ(r->transfers[2].to, kPs0);
  EXPECT_EQ(r->transfers[2].tensors, 2); // ^a and ^b, ^a once for g1 and g2
  EXPECT_EQ(r->transfers[2].bytes.str(), "0");
  EXPECT_EQ(r->totalBytes.str(), "80");
  // a, b on the worker CPU:0: 10 + 10; c on CPU:1: 10.
  ASSERT_EQ(r->compute.size(), 3u);
  EXPECT_EQ(r->compute[1].flops.str(), "20");
  EXPECT_EQ(r->compute[2].flops.str(), "10");
  // 82 bytes > 30 FLOPs.
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].message().find("'w/read:0' (40 bytes"), std::string::npos)
      << r->warnings[0].message();
}

struct PsTasks {
  TestGraph t;
  // One variable of floats[i] floats on ps task i.
  explicit PsTasks(const std::vector<int64_t> &floats) {
    const std::string devices[] = {kPs0, kPs1, kPs2};
    for (size_t i = 0; i < floats.size(); ++i)
      variable(t, "v" + std::to_string(i), ir::Shape({floats[i]}), devices[i]);
  }
};

std::vector<Status> psWarnings(const CostReport &r) {
  std::vector<Status> out;
  for (const Status &w : r.warnings)
    if (w.message().find("ps task") != std::string::npos)
      out.push_back(w);
  return out;
}

TEST(CostModelTest, PsImbalanceWarnsAtTheLargestVariable) {
  PsTasks p({7840, 10}); // w[7840] on ps 0: 31360 of 31400 bytes
  auto r = estimateCost(p.t.graph(), {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  ASSERT_EQ(r->parameters.size(), 2u);
  EXPECT_EQ(r->parameters[0].bytes.str(), "31360");
  EXPECT_EQ(r->parameters[1].bytes.str(), "40");
  EXPECT_EQ(r->totalParameters.str(), "31400");
  auto ws = psWarnings(*r);
  ASSERT_EQ(ws.size(), 1u);
  EXPECT_EQ(ws[0].node(), "v0");
  EXPECT_EQ(ws[0].message(),
            "ps task '/job:ps/replica:0/task:0' holds 31360 of the 31400 parameter bytes on 2 ps "
            "tasks (99.9%); its largest variable is 'v0' (31360 bytes); hint: more ps tasks, "
            "greedy_load_balancing_strategy, or partition the variable");
  EXPECT_EQ(r->warnings.size(), 1u);
}

TEST(CostModelTest, PsBalanceThresholds) {
  // Two tasks: even is 50%; the limit is 1.5 * 50% = 75%.
  PsTasks balanced({100, 100});
  EXPECT_TRUE(psWarnings(*estimateCost(balanced.t.graph(), {})).empty());
  PsTasks seventy({70, 30});
  EXPECT_TRUE(psWarnings(*estimateCost(seventy.t.graph(), {})).empty());
  PsTasks eighty({80, 20});
  EXPECT_EQ(psWarnings(*estimateCost(eighty.t.graph(), {})).size(), 1u);
  // The device set names a third, empty ps task: 60% is now more than half
  // and more than 1.5 * 33%.
  PsTasks sixty({60, 40});
  EXPECT_TRUE(psWarnings(*estimateCost(sixty.t.graph(), {})).empty());
  CostOptions three;
  three.devices = {kLocal, kPs0, kPs1, kPs2, kWorker};
  auto r = estimateCost(sixty.t.graph(), three);
  ASSERT_TRUE(r.hasValue());
  ASSERT_EQ(r->parameters.size(), 3u);
  EXPECT_EQ(r->parameters[2].task, "/job:ps/replica:0/task:2");
  EXPECT_EQ(r->parameters[2].variables, 0);
  EXPECT_EQ(r->compute.size(), 5u); // idle devices are listed too
  auto ws = psWarnings(*r);
  ASSERT_EQ(ws.size(), 1u);
  EXPECT_NE(ws[0].message().find("on 3 ps tasks (60.0%)"), std::string::npos) << ws[0].message();
  // A single ps task holding everything is not an imbalance.
  PsTasks one({100});
  EXPECT_TRUE(psWarnings(*estimateCost(one.t.graph(), {})).empty());
}

TEST(CostModelTest, NodeFlopsPerOp) {
  TestGraph t;
  auto a = t.placeholder("a", ir::DType::kF32, ir::Shape({784, 32}));
  auto b = t.placeholder("b", ir::DType::kF32, ir::Shape({10, 784}));
  ir::Node *mm =
      t.add("mm", "matmul", {a, b}, {{"transpose_a", true}, {"transpose_b", true}}); // [32, 10]
  auto s = t.placeholder("s", ir::DType::kF32, ir::Shape({32, 10}));
  auto u = t.placeholder("u", ir::DType::kF32, ir::Shape({ir::Shape::kUnknown, 10}));
  ir::Node *sum = t.add("sum", "reduce_sum", {s}, {{"axis", std::vector<int64_t>{1}}});
  ir::Node *sm = t.add("sm", "softmax", {s});
  ir::Node *addn = t.add("addn", "add_n", {s, s, s});
  ir::Node *mmu = t.add("mmu", "matmul", {u, t.out(mm)}, {{"transpose_b", true}}); // [?, 32]
  ir::Node *cast = t.add("cast", "cast", {u}, {{"dtype", ir::DType::kI32}});
  ir::Node *reshape = t.add("re", "identity", {s});
  const ir::Graph &g = t.graph();
  EXPECT_EQ(nodeFlops(g, *mm).str(), "501760");
  EXPECT_EQ(nodeFlops(g, *sum).str(), "320"); // per input element
  EXPECT_EQ(nodeFlops(g, *sm).str(), "1600");
  EXPECT_EQ(nodeFlops(g, *addn).str(), "640");
  EXPECT_EQ(nodeFlops(g, *mmu).str(), "640*?"); // 2 * ? * 32 * 10
  EXPECT_EQ(nodeFlops(g, *cast).str(), "10*?");
  EXPECT_EQ(nodeFlops(g, *reshape).str(), "0");
}

TEST(CostModelTest, SymbolicCountArithmetic) {
  SymbolicCount c;
  EXPECT_EQ(c.str(), "0");
  EXPECT_TRUE(c.isExact());
  c += SymbolicCount::monomial(16, 2);
  c += SymbolicCount::monomial(40, 0);
  c += SymbolicCount::monomial(3136, 1);
  c += SymbolicCount::unsizedOne();
  c += SymbolicCount::unsizedOne();
  c += SymbolicCount::monomial(0, 3); // adds nothing
  EXPECT_EQ(c.str(), "40 + 3136*? + 16*?^2 + unsized(2)");
  EXPECT_EQ(c.known(), 40);
  EXPECT_FALSE(c.isExact());
  SymbolicCount big = SymbolicCount::monomial(INT64_MAX, 0);
  big += SymbolicCount::monomial(1, 0);
  EXPECT_EQ(big.str(), std::to_string(INT64_MAX) + " + unsized(1)");
  // A shape whose size passes 2^63 is unsized rather than wrapped.
  TestGraph t;
  auto huge = t.placeholder("h", ir::DType::kF64, ir::Shape({int64_t(1) << 40, int64_t(1) << 30}));
  place(t, huge, kLocal);
  ir::Node *n = t.add("n", "negative", {huge});
  n->setAssignedDevice(kWorker);
  auto r = estimateCost(t.graph(), {});
  ASSERT_TRUE(r.hasValue());
  EXPECT_EQ(r->totalBytes.str(), "unsized(1)");
  EXPECT_EQ(r->totalFlops.str(), "unsized(1)");
}

TEST(CostModelTest, StringsAreUnsized) {
  TestGraph t;
  auto s = t.placeholder("s", ir::DType::kString, ir::Shape({4}));
  place(t, s, kLocal);
  ir::Node *id = t.add("id", "identity", {s});
  id->setAssignedDevice(kWorker);
  auto r = estimateCost(t.graph(), {});
  ASSERT_TRUE(r.hasValue());
  EXPECT_EQ(r->totalBytes.str(), "unsized(1)");
  EXPECT_EQ(r->transfers[0].tensors, 1);
}

TEST(CostModelTest, UnplacedGraphIsAnError) {
  TestGraph t;
  auto x = t.constant("x", 1.0f);
  place(t, x, kLocal);
  t.binary("y", "add", x, x);
  auto r = estimateCost(t.graph(), {});
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().node(), "y");
  EXPECT_NE(r.status().message().find("has no assigned device: place the graph first"),
            std::string::npos);
}

TEST(CostModelTest, SingleDeviceGraphCrossesNothing) {
  TestGraph t;
  auto x = t.constant("x", 1.0f);
  auto y = t.binary("y", "add", x, x);
  place(t, x, kLocal);
  place(t, y, kLocal);
  auto r = estimateCost(t.graph(), {});
  ASSERT_TRUE(r.hasValue());
  EXPECT_TRUE(r->transfers.empty());
  EXPECT_TRUE(r->warnings.empty());
  std::string text = formatCostReport(*r);
  EXPECT_NE(text.find("bytes crossing devices per step: none\n"), std::string::npos) << text;
  EXPECT_NE(text.find("parameter bytes per task: none\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("notation:"), std::string::npos);
}

} // namespace
} // namespace sluice::passes
