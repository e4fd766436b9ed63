// tests/passes/constant_folding_test.cc: what folds, what must not, and
// that a failing kernel is left for run time.
#include "passes/constant_folding.h"

#include "passes/pipeline.h"
#include "runtime/pass_config.h"
#include "tests/passes/test_graph.h"

namespace sluice::passes {
namespace {

using testing::dump;
using testing::TestGraph;

std::string foldAndPrune(TestGraph &t, PassContext &ctx) {
  ctx.options.kernels = rt::kernelQueries(nullptr); // what a session's pipeline asks
  Status s = runPipeline(t.owned(), ctx);
  EXPECT_TRUE(s.isOk()) << s.toString();
  return dump(t.graph());
}

TEST(ConstantFoldingTest, FoldsConstantSubgraphs) {
  TestGraph t;
  auto a = t.constant("a", 2);
  auto b = t.constant("b", 3);
  auto c = t.binary("c", "add", a, b);
  auto d = t.binary("d", "multiply", c, c);
  auto x = t.placeholder("x", ir::DType::kI32, ir::Shape::scalar());
  auto e = t.binary("e", "add", d, x);
  PassContext ctx;
  ctx.feeds = {x};
  ctx.fetches = {e};
  EXPECT_EQ(foldAndPrune(t, ctx), "x = placeholder()\n"
                                  "d/_folded_0 = constant() 25\n"
                                  "e = add(d/_folded_0, x)\n");
}

TEST(ConstantFoldingTest, FetchOfAFoldedNodeIsRemapped) {
  TestGraph t;
  auto a = t.constant("a", 1.5f);
  auto b = t.constant("b", 1.0f);
  auto c = t.binary("c", "add", a, b);
  PassContext ctx;
  ctx.fetches = {c};
  EXPECT_EQ(foldAndPrune(t, ctx), "c/_folded_0 = constant() 2.5\n");
  EXPECT_EQ(t.graph().node(ctx.fetches[0].node).name(), "c/_folded_0");
}

TEST(ConstantFoldingTest, FailingKernelIsLeftForRunTime) {
  TestGraph t;
  auto a = t.constant("a", 1);
  auto z = t.constant("z", 0);
  auto bad = t.binary("bad", "floor_div", a, z);
  PassContext ctx;
  ctx.fetches = {bad};
  EXPECT_EQ(foldAndPrune(t, ctx), "a = constant() 1\n"
                                  "z = constant() 0\n"
                                  "bad = floor_div(a, z)\n");
}

TEST(ConstantFoldingTest, FedConstantsAndStatefulOpsDoNotFold) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  auto b = t.constant("b", 2.0f);
  auto c = t.binary("c", "add", a, b);
  ir::Node *v = t.add("v", "variable", {},
                      {{"dtype", ir::DType::kF32}, {"shape", ir::Shape::scalar()}});
  auto r = t.out(t.add("r", "read_variable", {t.out(v)}, {{"dtype", ir::DType::kF32}}));
  PassContext ctx;
  ctx.feeds = {a};
  ctx.fetches = {c, r};
  EXPECT_EQ(foldAndPrune(t, ctx), "a = constant() 1.\n"
                                  "b = constant() 2.\n"
                                  "c = add(a, b)\n"
                                  "v = variable()\n"
                                  "r = read_variable(v)\n");
}

TEST(ConstantFoldingTest, LargeOutputsAndDisabledFoldingAreLeftAlone) {
  for (bool disabled : {false, true}) {
    TestGraph t;
    auto a = t.constantVec<float>("a", {1, 2, 3});
    auto b = t.constantVec<float>("b", {1, 1, 1});
    auto c = t.binary("c", "add", a, b);
    PassContext ctx;
    ctx.fetches = {c};
    if (disabled)
      ctx.options.constantFolding = false;
    else
      ctx.options.maxFoldElements = 2;
    EXPECT_EQ(foldAndPrune(t, ctx), "a = constant() [1. 2. 3.]\n"
                                    "b = constant() [1. 1. 1.]\n"
                                    "c = add(a, b)\n");
  }
}

TEST(ConstantFoldingTest, NodesWithControlInputsDoNotFold) {
  TestGraph t;
  ir::Node *first = t.add("first", "no_op", {});
  auto a = t.constant("a", 1.0f);
  auto c = t.out(t.add("c", "add", {a, a}, {}, {first->id()}));
  PassContext ctx;
  ctx.fetches = {c};
  EXPECT_EQ(foldAndPrune(t, ctx), "first = no_op()\n"
                                  "a = constant() 1.\n"
                                  "c = add(a, a) ^first\n");
}

} // namespace
} // namespace sluice::passes
