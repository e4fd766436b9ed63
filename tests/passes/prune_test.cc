// tests/passes/prune_test.cc: pruning to fetches/targets and feed cuts.
#include "passes/prune.h"

#include "tests/passes/test_graph.h"

namespace sluice::passes {
namespace {

using testing::dump;
using testing::TestGraph;

std::unique_ptr<ir::Graph> prune(ir::Graph &g, PassContext &ctx) {
  auto pass = createPrunePass();
  Status s = pass->run(g, ctx);
  EXPECT_TRUE(s.isOk()) << s.toString();
  EXPECT_NE(ctx.replacement, nullptr);
  return std::move(ctx.replacement);
}

TEST(PruneTest, KeepsOnlyWhatFetchesNeed) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  auto b = t.constant("b", 2.0f);
  auto c = t.binary("c", "add", a, b);
  t.binary("unused", "multiply", a, a);
  PassContext ctx;
  ctx.fetches = {c};
  auto g = prune(t.graph(), ctx);
  EXPECT_EQ(dump(*g), "a = constant() 1.\n"
                      "b = constant() 2.\n"
                      "c = add(a, b)\n");
  EXPECT_EQ(g->node(ctx.fetches[0].node).name(), "c");
  EXPECT_EQ(g->node(2).loc().line, 3); // locations survive the copy
}

TEST(PruneTest, FedPlaceholderIsKeptAndItsValueCutsNothing) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape({2}));
  auto two = t.constant("two", 2.0f);
  auto y = t.binary("y", "multiply", x, two);
  PassContext ctx;
  ctx.feeds = {x};
  ctx.fetches = {y};
  auto g = prune(t.graph(), ctx);
  EXPECT_EQ(dump(*g), "x = placeholder()\n"
                      "two = constant() 2.\n"
                      "y = multiply(x, two)\n");
  EXPECT_EQ(g->node(ctx.feeds[0].node).name(), "x");
  EXPECT_EQ(g->node(2).outputShape(0).str(), "[2]");
}

TEST(PruneTest, FeedingAComputedTensorDropsItsProducers) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape::scalar());
  auto one = t.constant("one", 1.0f);
  auto y = t.binary("y", "add", x, one);
  auto z = t.binary("z", "multiply", y, y);
  PassContext ctx;
  ctx.feeds = {y};
  ctx.fetches = {z};
  auto g = prune(t.graph(), ctx);
  EXPECT_EQ(dump(*g), "y/_feed_0 = _feed()\n"
                      "z = multiply(y/_feed_0, y/_feed_0)\n");
  EXPECT_EQ(g->node(ctx.feeds[0].node).opName(), "_feed");
}

TEST(PruneTest, FetchingAFedTensorNeedsNoProducer) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape::scalar());
  auto y = t.binary("y", "add", x, x);
  PassContext ctx;
  ctx.feeds = {y};
  ctx.fetches = {y};
  auto g = prune(t.graph(), ctx);
  EXPECT_EQ(dump(*g), "y/_feed_0 = _feed()\n");
  EXPECT_EQ(ctx.fetches[0], ctx.feeds[0]);
}

TEST(PruneTest, TargetsAndControlEdgesAreKept) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  ir::Node *first = t.add("first", "no_op", {});
  ir::Node *group = t.add("group", "no_op", {}, {}, {first->id(), a.node});
  t.add("other", "no_op", {});
  PassContext ctx;
  ctx.targets = {group->id()};
  auto g = prune(t.graph(), ctx);
  EXPECT_EQ(dump(*g), "a = constant() 1.\n"
                      "first = no_op()\n"
                      "group = no_op() ^first ^a\n");
  EXPECT_EQ(g->node(ctx.targets[0]).name(), "group");
}

TEST(PruneTest, NeededNodesStopsAtFeeds) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape::scalar());
  auto y = t.binary("y", "add", x, x);
  auto z = t.binary("z", "add", y, y);
  auto needed = neededNodes(t.graph(), {y}, {z}, {});
  EXPECT_EQ(needed, (std::vector<bool>{false, false, true}));
}

} // namespace
} // namespace sluice::passes
