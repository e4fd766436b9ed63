// tests/passes/placer_test.cc: device sets, colocation groups, kernels
// per device type and soft placement, on graphs built directly.
#include "passes/placer.h"
#include "runtime/pass_config.h"

#include "tests/passes/test_graph.h"

namespace sluice::passes {
namespace {

using testing::TestGraph;

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";

PlacementOptions twoCpus() {
  PlacementOptions o;
  o.devices = {kCpu0, kCpu1};
  return o;
}

TEST(PlacerTest, LocalDevicesHostEveryRequestedTask) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  t.graph().node(a.node).setRequestedDevice("/job:ps/task:2/device:CPU:0");
  auto b = t.constant("b", 1.0f);
  t.graph().node(b.node).setRequestedDevice("/job:worker");
  auto devs = localDevices(t.graph(), {{"CPU", 2}, {"GPU", 1}});
  EXPECT_EQ(devs, (std::vector<std::string>{
                      kCpu0, kCpu1, "/job:ps/replica:0/task:2/device:CPU:0",
                      "/job:ps/replica:0/task:2/device:CPU:1",
                      "/job:worker/replica:0/task:0/device:CPU:0",
                      "/job:worker/replica:0/task:0/device:CPU:1"}));
  EXPECT_EQ(localDevices(TestGraph().graph(), {}), std::vector<std::string>{kCpu0});
}

TEST(PlacerTest, UnrequestedGoesFirstAndPartialRequestsMatch) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  auto b = t.constant("b", 2.0f);
  t.graph().node(b.node).setRequestedDevice("/device:CPU:1");
  ASSERT_TRUE(placeGraph(t.graph(), twoCpus(), nullptr).isOk());
  EXPECT_EQ(t.graph().node(a.node).assignedDevice(), kCpu0);
  EXPECT_EQ(t.graph().node(b.node).assignedDevice(), kCpu1);
}

TEST(PlacerTest, ColocationAndResourceEdgesFormGroups) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  auto c = t.binary("c", "add", a, a);
  t.graph().node(c.node).addColocation("a");
  t.graph().node(a.node).setRequestedDevice("/cpu:1");
  ir::Node *v = t.add("v", "variable", {}, {{"dtype", ir::DType::kF32}, {"shape", ir::Shape::scalar()}});
  v->setRequestedDevice("/cpu:1");
  ir::Node *r = t.add("r", "read_variable", {t.out(v)}, {{"dtype", ir::DType::kF32}});
  ASSERT_TRUE(placeGraph(t.graph(), twoCpus(), nullptr).isOk());
  EXPECT_EQ(t.graph().node(c.node).assignedDevice(), kCpu1);
  EXPECT_EQ(r->assignedDevice(), kCpu1);
}

TEST(PlacerTest, ConflictsNameBothNodes) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  auto b = t.constant("b", 1.0f);
  t.graph().node(a.node).setRequestedDevice("/cpu:0");
  t.graph().node(b.node).setRequestedDevice("/cpu:1");
  t.graph().node(b.node).addColocation("a");
  Status s = placeGraph(t.graph(), twoCpus(), nullptr);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("Cannot colocate nodes 'a'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("and 'b'"), std::string::npos) << s.message();
  EXPECT_EQ(s.node(), "b");

  TestGraph u;
  auto x = u.constant("x", 1.0f);
  u.graph().node(x.node).addColocation("nowhere");
  EXPECT_NE(placeGraph(u.graph(), twoCpus(), nullptr).message().find("'nowhere'"),
            std::string::npos);
}

TEST(PlacerTest, MissingDevicesFailOrMoveWithANote) {
  TestGraph t;
  auto g = t.constant("g", 1.0f);
  t.graph().node(g.node).setRequestedDevice("/gpu:0");
  Status s = placeGraph(t.graph(), twoCpus(), nullptr);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("Could not satisfy explicit device specification '/device:GPU:0'"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(s.node(), "g");

  PlacementOptions soft = twoCpus();
  soft.allowSoftPlacement = true;
  std::vector<Status> notes;
  ASSERT_TRUE(placeGraph(t.graph(), soft, &notes).isOk());
  EXPECT_EQ(t.graph().node(g.node).assignedDevice(), kCpu0);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].message().find("soft placement: 'g'"), std::string::npos);
}

TEST(PlacerTest, KernelsDecideTheDeviceType) {
  // A registry where `add` has only a GPU kernel: a GPU device is chosen
  // even though the CPU comes first in the list.
  backend::KernelRegistry reg;
  reg.add("constant", "CPU", nullptr);
  reg.add("add", "GPU", nullptr);
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  auto s = t.binary("s", "add", a, a);
  PlacementOptions o;
  o.devices = {kCpu0, "/job:localhost/replica:0/task:0/device:GPU:0"};
  o.kernels = rt::kernelQueries(&reg);
  ASSERT_TRUE(placeGraph(t.graph(), o, nullptr).isOk());
  EXPECT_EQ(t.graph().node(s.node).assignedDevice(), "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(t.graph().node(a.node).assignedDevice(), kCpu0);
}

} // namespace
} // namespace sluice::passes
