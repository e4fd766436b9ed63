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
            "  n2 -> n3 [style=dashed];\n"
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

} // namespace
} // namespace sluice::ir
