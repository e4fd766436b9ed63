// tests/ir/dot_test.cc: the DOT writer's nodes, edges and escaping.
#include <gtest/gtest.h>

#include "ir/text/dot.h"
#include "tests/ir/graph_builder.h"

namespace sluice::ir {
namespace {

using namespace testing;

TEST(DotTest, NodesEdgesAndControlEdges) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32, Shape({2, Shape::kUnknown}));
  x->setRequestedDevice("/job:worker");
  Node *c = constant(g, "c", Tensor(DType::kF32, {2, 3}));
  Node *init = op(g, "init", "no_op", {});
  Node *sum = op(g, "sum", "add", {out(x), out(c)}, {}, {init->id()});
  sum->setAssignedDevice("/job:worker/task:0/device:CPU:0");
  Node *parts = op(g, "parts", "split", {out(c)},
                   {{"num_split", int64_t{3}}, {"axis", int64_t{1}}});
  op(g, "last", "identity", {out(parts, 2)});
  EXPECT_EQ(writeDot(g),
            "digraph sluice {\n"
            "  node [shape=box, fontname=\"monospace\"];\n"
            "  n0 [label=\"x\\nplaceholder\\n/job:worker\"];\n"
            "  n1 [label=\"c\\nconstant\"];\n"
            "  n2 [label=\"init\\nno_op\"];\n"
            "  n3 [label=\"sum\\nadd\\n/job:worker/task:0/device:CPU:0\"];\n"
            "  n4 [label=\"parts\\nsplit\"];\n"
            "  n5 [label=\"last\\nidentity\"];\n"
            "  n0 -> n3 [label=\"f32 [2, ?]\"];\n"
            "  n1 -> n3 [label=\"f32 [2, 3]\"];\n"
            "  n2 -> n3 [style=dotted];\n"
            "  n1 -> n4 [label=\"f32 [2, 3]\"];\n"
            "  n4 -> n5 [label=\":2 f32 [2, 1]\"];\n"
            "}\n");
}

TEST(DotTest, EscapesLabels) {
  Graph g;
  placeholder(g, "a\"b\\c\nd", DType::kF32);
  placeholder(g, "caf\xc3\xa9", DType::kF32);
  placeholder(g, "bad\xff\x01", DType::kString);
  std::string dot = writeDot(g);
  EXPECT_NE(dot.find("n0 [label=\"a\\\"b\\\\c\\nd\\nplaceholder\"];"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("n1 [label=\"caf\xc3\xa9\\nplaceholder\"];"),
            std::string::npos);
  EXPECT_NE(dot.find("n2 [label=\"bad\\\\xff\\\\x01\\nplaceholder\"];"),
            std::string::npos)
      << dot;
}

TEST(DotTest, UnknownRankPrintsQuestionMark) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kI32);
  op(g, "y", "identity", {out(x)});
  EXPECT_NE(writeDot(g).find("n0 -> n1 [label=\"i32 ?\"];"), std::string::npos);
}

TEST(DotTest, ByDeviceBoxesTasksAndDashesCrossDeviceEdges) {
  const std::string ps = "/job:ps/replica:0/task:0/device:CPU:0";
  const std::string w0 = "/job:worker/replica:0/task:0/device:CPU:0";
  const std::string w1 = "/job:worker/replica:0/task:0/device:CPU:1";
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32, Shape({2}));
  Node *y = op(g, "y", "negative", {out(x)});
  Node *z = op(g, "z", "add", {out(y), out(x)}, {}, {x->id()});
  Node *u = op(g, "u", "identity", {out(z)}, {}, {y->id()});
  Node *loose = op(g, "loose", "identity", {out(u)});
  x->setAssignedDevice(ps);
  y->setAssignedDevice(ps);
  z->setAssignedDevice(w0);
  u->setAssignedDevice(w1);
  (void)loose; // unplaced: outside every box, unfilled
  std::string dot = writeDot(g, DotOptions{true});
  // One box per task, tasks in name order; CPU:0 and CPU:1 share a box.
  EXPECT_NE(dot.find("  subgraph cluster_0 {\n"
                     "    label=\"/job:ps/replica:0/task:0\";\n"
                     "    n0 [label=\"x\\nplaceholder\\nCPU:0\", style=filled, "
                     "fillcolor=\"#8dd3c7\"];\n"
                     "    n1 [label=\"y\\nnegative\\nCPU:0\", style=filled, "
                     "fillcolor=\"#8dd3c7\"];\n"
                     "  }\n"
                     "  subgraph cluster_1 {\n"
                     "    label=\"/job:worker/replica:0/task:0\";\n"
                     "    n2 [label=\"z\\nadd\\nCPU:0\", style=filled, "
                     "fillcolor=\"#ffffb3\"];\n"
                     "    n3 [label=\"u\\nidentity\\nCPU:1\", style=filled, "
                     "fillcolor=\"#bebada\"];\n"
                     "  }\n"
                     "  n4 [label=\"loose\\nidentity\"];\n"),
            std::string::npos)
      << dot;
  // The legend names every device with its colour.
  EXPECT_NE(dot.find("legend_0 [label=\"" + ps + "\", style=filled, fillcolor=\"#8dd3c7\"]"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("legend_2 [label=\"" + w1 + "\", style=filled, fillcolor=\"#bebada\"]"),
            std::string::npos)
      << dot;
  // Same device: solid; between devices: dashed; control: dotted, bold
  // dotted between devices; an unplaced end is not "between devices".
  EXPECT_NE(dot.find("  n0 -> n1 [label=\"f32 [2]\"];\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  n1 -> n2 [label=\"f32 [2]\", style=dashed];\n"), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("  n2 -> n3 [label=\"f32 [2]\", style=dashed];\n"), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("  n0 -> n2 [style=\"dotted,bold\"];\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  n1 -> n3 [style=\"dotted,bold\"];\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  n3 -> n4 [label=\"f32 [2]\"];\n"), std::string::npos) << dot;
  // Without the option the same graph has no boxes and no fills.
  std::string plain = writeDot(g);
  EXPECT_EQ(plain.find("subgraph"), std::string::npos);
  EXPECT_EQ(plain.find("fillcolor"), std::string::npos);
  EXPECT_EQ(plain.find("dashed"), std::string::npos);
}

TEST(DotTest, ByDeviceOnAnUnplacedGraphHasNoLegend) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32);
  op(g, "y", "identity", {out(x)});
  std::string dot = writeDot(g, DotOptions{true});
  EXPECT_EQ(dot, writeDot(g));
}

} // namespace
} // namespace sluice::ir
