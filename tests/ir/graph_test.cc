// tests/ir/graph_test.cc: Graph basics: validation in addNode, names,
// consumers, rewiring and ordering.
#include <gtest/gtest.h>

#include "ir/graph.h"
#include "tests/ir/graph_builder.h"

namespace sluice::ir {
namespace {

using namespace testing;

TEST(GraphTest, AddNodeInfersDtypeAndShape) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32, Shape({2, Shape::kUnknown}));
  Node *c = constant(g, "c", Tensor(DType::kF32, {2, 3}));
  Node *sum = op(g, "sum", "add", {out(x), out(c)});
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->outputType(0), DType::kF32);
  EXPECT_EQ(sum->outputShape(0), Shape({2, 3}));
  EXPECT_EQ(std::get<DType>(sum->attrs().at("T")), DType::kF32);
  EXPECT_EQ(g.findNode("sum"), sum);
  EXPECT_EQ(g.findNode("nope"), nullptr);
}

TEST(GraphTest, AddNodeRejectsUnknownOp) {
  Graph g;
  NodeSpec s;
  s.name = "n";
  s.op = "no_such_op";
  s.loc = testLoc(4, 2);
  auto n = g.addNode(s);
  ASSERT_FALSE(n.hasValue());
  EXPECT_EQ(n.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(n.status().message(), "unknown op 'no_such_op'");
  EXPECT_EQ(n.status().loc().str(), "test.sluice:4:2");
}

TEST(GraphTest, AddNodeRejectsWrongArity) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32);
  NodeSpec s;
  s.name = "sum";
  s.op = "add";
  s.inputs = {out(x)};
  auto n = g.addNode(s);
  ASSERT_FALSE(n.hasValue());
  EXPECT_EQ(n.status().message(), "add expects 2 inputs but got 1");
  EXPECT_EQ(n.status().node(), "sum");
}

TEST(GraphTest, AddNodeRejectsDtypeMismatch) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32);
  Node *y = placeholder(g, "y", DType::kI32);
  NodeSpec s;
  s.name = "sum";
  s.op = "add";
  s.inputs = {out(x), out(y)};
  auto n = g.addNode(s);
  ASSERT_FALSE(n.hasValue());
  EXPECT_EQ(n.status().message(),
            "input 'y' of add has dtype i32 that does not match dtype f32 of "
            "the other inputs");
}

TEST(GraphTest, AddNodeRejectsDuplicateName) {
  Graph g;
  placeholder(g, "x", DType::kF32);
  NodeSpec s;
  s.name = "x";
  s.op = "placeholder";
  s.attrs["dtype"] = DType::kF32;
  auto n = g.addNode(s);
  ASSERT_FALSE(n.hasValue());
  EXPECT_EQ(n.status().message(), "duplicate node name 'x'");
}

TEST(GraphTest, AddNodeRejectsMissingInput) {
  Graph g;
  NodeSpec s;
  s.name = "i";
  s.op = "identity";
  s.inputs = {Output{7, 0}};
  auto n = g.addNode(s);
  ASSERT_FALSE(n.hasValue());
  EXPECT_EQ(n.status().message(), "input refers to a missing node output");
}

TEST(GraphTest, UniqueNameAppendsCounter) {
  Graph g;
  EXPECT_EQ(g.uniqueName("add"), "add");
  placeholder(g, "add", DType::kF32);
  EXPECT_EQ(g.uniqueName("add"), "add_1");
  placeholder(g, "add_1", DType::kF32);
  EXPECT_EQ(g.uniqueName("add"), "add_2");
  // An unnamed node takes its op's name, made unique.
  NodeSpec s;
  s.op = "placeholder";
  s.attrs["dtype"] = DType::kF32;
  Node *n = addOrFail(g, s);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->name(), "placeholder");
  EXPECT_EQ(addOrFail(g, s)->name(), "placeholder_1");
}

TEST(GraphTest, ConsumersListDataAndControlUses) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32);
  Node *a = op(g, "a", "identity", {out(x)});
  Node *b = op(g, "b", "add", {out(a), out(x)}, {}, {x->id()});
  auto uses = g.consumers(x->id());
  ASSERT_EQ(uses.size(), 3u);
  int data = 0, control = 0;
  for (const Use &u : uses) {
    if (u.inputIndex < 0) {
      ++control;
      EXPECT_EQ(u.node, b->id());
    } else {
      ++data;
    }
  }
  EXPECT_EQ(data, 2);
  EXPECT_EQ(control, 1);
  EXPECT_TRUE(g.consumers(b->id()).empty());
}

TEST(GraphTest, ReplaceUsesRewiresEveryConsumer) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32);
  Node *y = placeholder(g, "y", DType::kF32);
  Node *a = op(g, "a", "identity", {out(x)});
  Node *b = op(g, "b", "add", {out(x), out(x)});
  g.replaceUses(out(x), out(y));
  EXPECT_EQ(a->inputs()[0], out(y));
  EXPECT_EQ(b->inputs()[0], out(y));
  EXPECT_EQ(b->inputs()[1], out(y));
  EXPECT_TRUE(g.consumers(x->id()).empty());
  EXPECT_EQ(g.consumers(y->id()).size(), 3u);
}

TEST(GraphTest, TopologicalOrderOnLongChainDoesNotRecurse) {
  Graph g;
  Node *prev = placeholder(g, "x", DType::kF32);
  constexpr int kLength = 100000;
  for (int i = 1; i < kLength; ++i) {
    NodeSpec s;
    s.name = "n" + std::to_string(i);
    s.op = "identity";
    s.inputs = {out(prev)};
    auto n = g.addNode(std::move(s));
    ASSERT_TRUE(n.hasValue());
    prev = *n;
  }
  auto order = g.topologicalOrder();
  ASSERT_TRUE(order.hasValue());
  ASSERT_EQ(order->size(), size_t(kLength));
  for (int i = 0; i < kLength; ++i)
    ASSERT_EQ((*order)[i], i);
}

TEST(GraphTest, TopologicalOrderNamesCycle) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32);
  Node *a = op(g, "a", "identity", {out(x)});
  Node *b = op(g, "b", "identity", {out(a)});
  g.addControlInput(a->id(), b->id());
  auto order = g.topologicalOrder();
  ASSERT_FALSE(order.hasValue());
  EXPECT_EQ(order.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(order.status().message().find("graph has a cycle through node"),
            std::string::npos);
}

TEST(GraphTest, FinalizedGraphRejectsNodes) {
  Graph g;
  g.finalize();
  NodeSpec s;
  s.op = "placeholder";
  s.attrs["dtype"] = DType::kF32;
  auto n = g.addNode(s);
  ASSERT_FALSE(n.hasValue());
  EXPECT_EQ(n.status().code(), Code::kRuntimeError);
}

TEST(GraphTest, ACloneOfAFinalizedGraphTakesNodes) {
  // Sessions run passes on a copy of a supervised session's finalized graph.
  Graph g;
  placeholder(g, "x", DType::kF32, Shape({3}));
  g.finalize();
  auto copy = g.clone();
  EXPECT_FALSE(copy->isFinalized());
  EXPECT_TRUE(g.isFinalized());
  NodeSpec s;
  s.op = "placeholder";
  s.attrs["dtype"] = DType::kF32;
  EXPECT_TRUE(copy->addNode(s).hasValue());
}

TEST(GraphTest, CloneIsDeep) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32, Shape({3}));
  op(g, "a", "identity", {out(x)});
  auto copy = g.clone();
  ASSERT_EQ(copy->numNodes(), 2);
  copy->node(1).setRequestedDevice("/cpu:0");
  EXPECT_EQ(g.node(1).requestedDevice(), "");
  EXPECT_EQ(copy->consumers(0).size(), 1u);
}

} // namespace
} // namespace sluice::ir
