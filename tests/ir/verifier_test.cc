// tests/ir/verifier_test.cc: verifyGraph accepts what addNode builds and
// names the node and location of each broken invariant.
#include <gtest/gtest.h>

#include "ir/text/verifier.h"
#include "tests/ir/graph_builder.h"

namespace sluice::ir {
namespace {

using namespace testing;

struct Fixture {
  Graph g;
  Node *x, *i, *sum;
  Fixture() {
    x = placeholder(g, "x", DType::kF32, Shape({2}));
    Node *k = placeholder(g, "k", DType::kI32, Shape({2}));
    (void)k;
    NodeSpec s;
    s.name = "i";
    s.op = "identity";
    s.inputs = {out(x)};
    s.loc = testLoc(5, 3);
    i = addOrFail(g, s);
    sum = op(g, "sum", "add", {out(x), out(i)});
  }
};

TEST(VerifierTest, AcceptsValidGraph) {
  Fixture f;
  EXPECT_TRUE(verifyGraph(f.g).isOk());
}

TEST(VerifierTest, InputDtypeMismatch) {
  Fixture f;
  f.g.replaceUses(out(f.x), out(f.g.findNode("k")));
  Status s = verifyGraph(f.g);
  EXPECT_EQ(s.toString(),
            "test.sluice:5:3: error: invalid_argument: node 'i': input 0 of "
            "identity reads 'k:0' of dtype i32, but f32 is expected");
}

TEST(VerifierTest, Cycle) {
  Fixture f;
  f.g.addControlInput(f.i->id(), f.sum->id());
  Status s = verifyGraph(f.g);
  EXPECT_EQ(s.code(), Code::kFailedPrecondition);
  EXPECT_TRUE(s.node() == "i" || s.node() == "sum") << s.toString();
  EXPECT_NE(s.message().find("the graph has a cycle through this"),
            std::string::npos);
}

TEST(VerifierTest, SelfLoopIsACycle) {
  Fixture f;
  f.g.addControlInput(f.i->id(), f.i->id());
  Status s = verifyGraph(f.g);
  EXPECT_EQ(s.toString(),
            "test.sluice:5:3: error: failed_precondition: node "
            "'i': the graph has a cycle through this identity node");
}

TEST(VerifierTest, AttrOfWrongType) {
  Fixture f;
  f.i->setAttr("T", int64_t{3});
  EXPECT_EQ(verifyGraph(f.g).toString(),
            "test.sluice:5:3: error: invalid_argument: node 'i': attribute 'T' "
            "of identity must be type, got int");
}

TEST(VerifierTest, DisallowedDtype) {
  Fixture f;
  f.sum->setAttr("T", DType::kString);
  EXPECT_EQ(verifyGraph(f.g).toString(),
            "error: invalid_argument: node 'sum': attribute 'T' = string is "
            "not an allowed dtype for add");
}

TEST(VerifierTest, UndeclaredAttr) {
  Fixture f;
  f.i->setAttr("_internal", int64_t{1}); // TF's '_' attrs are allowed
  EXPECT_TRUE(verifyGraph(f.g).isOk());
  f.i->setAttr("extra", int64_t{1});
  EXPECT_EQ(verifyGraph(f.g).toString(),
            "test.sluice:5:3: error: invalid_argument: node 'i': op identity "
            "has no attribute 'extra'");
}

TEST(VerifierTest, AttrBelowMinimum) {
  Fixture f;
  Node *n = op(f.g, "n", "add_n", {out(f.x)});
  ASSERT_TRUE(n);
  n->setAttr("N", int64_t{0});
  EXPECT_EQ(verifyGraph(f.g).toString(),
            "error: invalid_argument: node 'n': attribute 'N' of add_n must "
            "be at least 1, got 0");
  n->setAttr("N", int64_t{2});
  EXPECT_EQ(verifyGraph(f.g).toString(),
            "error: invalid_argument: node 'n': add_n expects 2 inputs, got 1");
}

TEST(VerifierTest, OutputDtypeDisagreesWithOpDef) {
  Fixture f;
  f.x->setAttr("dtype", DType::kI64);
  EXPECT_EQ(verifyGraph(f.g).toString(),
            "error: invalid_argument: node 'x': output 0 of placeholder has "
            "dtype f32, but placeholder gives i64");
}

TEST(VerifierTest, OutputShapeContradictsInference) {
  Fixture f;
  f.i->setOutputShape(0, Shape({5}));
  EXPECT_EQ(verifyGraph(f.g).toString(),
            "test.sluice:5:3: error: invalid_argument: node 'i': output 0 of "
            "identity has shape [5], but identity infers [2]");
  f.i->setOutputShape(0, Shape({Shape::kUnknown})); // less specific is fine
  EXPECT_TRUE(verifyGraph(f.g).isOk());
}

TEST(VerifierTest, ShapeFunctionFailureAfterRewiring) {
  Graph g;
  Node *a = placeholder(g, "a", DType::kF32, Shape({2}));
  Node *b = placeholder(g, "b", DType::kF32, Shape({3}));
  Node *c = placeholder(g, "c", DType::kF32, Shape({2}));
  op(g, "sum", "add", {out(a), out(c)});
  g.replaceUses(out(c), out(b));
  Status s = verifyGraph(g);
  EXPECT_EQ(s.node(), "sum");
  EXPECT_NE(s.message().find("Incompatible shapes: [2] vs. [3]"),
            std::string::npos)
      << s.toString();
}

} // namespace
} // namespace sluice::ir
