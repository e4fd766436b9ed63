// tests/passes/fusion_test.cc: what the fusion pass clusters and what it
// leaves alone (control edges, stateful ops, devices, unknown shapes,
// feeds, cycles), and that fused graphs verify and round-trip as text.
#include "passes/fusion.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/text/verifier.h"
#include "passes/pipeline.h"

namespace sluice::passes {
namespace {

std::unique_ptr<ir::Graph> parse(const std::string &body) {
  auto g = ir::parseGraph("# sluice ir v1\n" + body, "t.sir");
  EXPECT_TRUE(g.hasValue()) << g.status().toString();
  return g.hasValue() ? std::move(*g) : std::make_unique<ir::Graph>();
}

ir::Output out(const ir::Graph &g, const std::string &name, int i = 0) {
  return {g.findNode(name)->id(), i};
}

std::unique_ptr<ir::Graph> fuse(std::unique_ptr<ir::Graph> g, PassContext &ctx) {
  PipelineOptions po;
  po.fuse = true;
  Status s = runPipeline(g, ctx, po);
  EXPECT_TRUE(s.isOk()) << s.toString();
  return g;
}

// The fused nodes of `g`, each as the sorted names of the ops its body holds.
std::vector<std::set<std::string>> clusters(const ir::Graph &g) {
  std::vector<std::set<std::string>> out;
  for (ir::NodeId id = 0; id < g.numNodes(); ++id) {
    const ir::Node &n = g.node(id);
    if (n.opName() != "fused")
      continue;
    auto f = g.functions().find(n.attr<std::string>("f"));
    EXPECT_TRUE(f);
    std::set<std::string> names;
    for (ir::NodeId k = 0; k < f->body->numNodes(); ++k)
      if (f->body->node(k).opName() != "function_arg")
        names.insert(f->body->node(k).name());
    out.push_back(names);
  }
  return out;
}

const char *kInputs =
    "%x = placeholder() {dtype = f32, shape = shape[4, 3]} : (f32 [4, 3])\n"
    "%b = placeholder() {dtype = f32, shape = shape[3]} : (f32 [3])\n"
    "%a = constant() {dtype = f32, value = tensor<f32 [] {2.0}>} : (f32 [])\n";

TEST(FusionTest, FusesAChainAndRewiresTheFetch) {
  auto g = parse(std::string(kInputs) +
                 "%m = multiply(%x:0, %a:0) : (f32 [4, 3])\n"
                 "%s = add(%m:0, %b:0) : (f32 [4, 3])\n"
                 "%y = relu(%s:0) : (f32 [4, 3])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "y")};
  g = fuse(std::move(g), ctx);
  ASSERT_EQ(clusters(*g), (std::vector<std::set<std::string>>{{"m", "s", "y"}}));
  const ir::Node &f = g->node(ctx.fetches[0].node);
  EXPECT_EQ(f.opName(), "fused");
  EXPECT_EQ(f.numInputs(), 3);
  EXPECT_EQ(f.outputShape(0), ir::Shape({4, 3}));
  EXPECT_EQ(g->findNode("m"), nullptr); // pruned
  EXPECT_TRUE(ir::verifyGraph(*g).isOk()) << ir::verifyGraph(*g).toString();
}

TEST(FusionTest, ALoneOpIsFusedOnlyWhenAsked) {
  const std::string text = std::string(kInputs) + "%y = relu(%x:0) : (f32 [4, 3])\n";
  PassContext plain;
  plain.fetches = {out(*parse(text), "y")};
  auto g = fuse(parse(text), plain);
  EXPECT_TRUE(clusters(*g).empty());
  // Ahead of time every op must become code, so a lone op gets a cluster.
  PassContext aot;
  aot.options.fuseSingleOps = true;
  g = parse(text);
  aot.fetches = {out(*g, "y")};
  g = fuse(std::move(g), aot);
  ASSERT_EQ(clusters(*g), (std::vector<std::set<std::string>>{{"y"}}));
  EXPECT_EQ(g->node(aot.fetches[0].node).opName(), "fused");
}

TEST(FusionTest, FusedGraphRoundTripsAsText) {
  auto g = parse(std::string(kInputs) +
                 "%m = multiply(%x:0, %a:0) : (f32 [4, 3])\n"
                 "%c = cast(%m:0) {dtype = i32} : (i32 [4, 3])\n"
                 "%y = greater(%c:0, %c:0) : (bool [4, 3])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "y"), out(*g, "m")};
  g = fuse(std::move(g), ctx);
  ASSERT_EQ(clusters(*g).size(), 1u);
  // m is fetched and read inside: it is an output too.
  EXPECT_EQ(g->node(ctx.fetches[0].node).numOutputs(), 2);
  std::string text = ir::printGraph(*g);
  auto back = ir::parseGraph(text, "back.sir");
  ASSERT_TRUE(back.hasValue()) << back.status().toString() << "\n" << text;
  EXPECT_EQ(ir::printGraph(**back), text);
  EXPECT_TRUE(ir::verifyGraph(**back).isOk());
  EXPECT_NE(describeClusters(*g).find("# cluster %y/fused"), std::string::npos)
      << describeClusters(*g);
}

TEST(FusionTest, SingleOpsAreLeftAlone) {
  auto g = parse(std::string(kInputs) + "%y = relu(%x:0) : (f32 [4, 3])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "y")};
  g = fuse(std::move(g), ctx);
  EXPECT_TRUE(clusters(*g).empty());
}

TEST(FusionTest, ControlInputsAndStatefulOpsStayOut) {
  auto g = parse(std::string(kInputs) +
            "%shape = constant() {dtype = i32, value = tensor<i32 [2] {4, 3}>} : (i32 [2])\n"
            "%r = random_uniform(%shape:0) {dtype = f32, seed = 1, seed2 = 2} : (f32 [4, 3])\n"
            "%m = multiply(%x:0, %r:0) : (f32 [4, 3])\n"
            "%n = negative(%m:0) : (f32 [4, 3])\n"
            "%k = exp(%n:0) ^%r : (f32 [4, 3])\n"
            "%done = no_op() ^%n : ()\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "k")};
  ctx.targets = {g->findNode("done")->id()};
  g = fuse(std::move(g), ctx);
  // k has a control input; random_uniform is stateful.
  ASSERT_EQ(clusters(*g), (std::vector<std::set<std::string>>{{"m", "n"}}));
  const ir::Node *done = g->findNode("done");
  ASSERT_NE(done, nullptr);
  ASSERT_EQ(done->controlInputs().size(), 1u);
  EXPECT_EQ(g->node(done->controlInputs()[0]).opName(), "fused");
  EXPECT_EQ(g->node(ctx.fetches[0].node).opName(), "exp");
}

TEST(FusionTest, DevicesSplitClusters) {
  auto g = parse(std::string(kInputs) +
                 "%m = multiply(%x:0, %a:0) : (f32 [4, 3]) @\"/cpu:0\"\n"
                 "%s = add(%m:0, %b:0) : (f32 [4, 3]) @\"/cpu:0\"\n"
                 "%t = tanh(%s:0) : (f32 [4, 3]) @\"/cpu:1\"\n"
                 "%y = exp(%t:0) : (f32 [4, 3]) @\"/cpu:1\"\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "y")};
  g = fuse(std::move(g), ctx);
  auto c = clusters(*g);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0], (std::set<std::string>{"m", "s"}));
  EXPECT_EQ(c[1], (std::set<std::string>{"t", "y"}));
}

TEST(FusionTest, UnknownShapesAndFedValuesStayOut) {
  auto g = parse("%x = placeholder() {dtype = f32, shape = shape[?, 3]} : (f32 [?, 3])\n"
                 "%z = placeholder() {dtype = f32, shape = shape[3]} : (f32 [3])\n"
                 "%m = multiply(%x:0, %x:0) : (f32 [?, 3])\n"
                 "%y = relu(%m:0) : (f32 [?, 3])\n"
                 "%p = exp(%z:0) : (f32 [3])\n"
                 "%q = log(%p:0) : (f32 [3])\n"
                 "%w = sqrt(%q:0) : (f32 [3])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "y"), out(*g, "w")};
  ctx.feeds = {out(*g, "q")};
  g = fuse(std::move(g), ctx);
  // Unknown dims fuse (the JIT compiles per call shapes); q is fed, so w
  // stands alone (and p is pruned).
  EXPECT_EQ(clusters(*g), (std::vector<std::set<std::string>>{{"m", "y"}}));
}

// An unknown rank does not fuse, nor a broadcast_to whose shape is only a
// run-time value.
TEST(FusionTest, UnknownRanksAndValueShapesStayOut) {
  auto g = parse("%x = placeholder() {dtype = f32} : (f32 ?)\n"
                 "%s = placeholder() {dtype = i32, shape = shape[2]} : (i32 [2])\n"
                 "%v = placeholder() {dtype = f32, shape = shape[3]} : (f32 [3])\n"
                 "%m = multiply(%x:0, %x:0) : (f32 ?)\n"
                 "%y = relu(%m:0) : (f32 ?)\n"
                 "%b = broadcast_to(%v:0, %s:0) : (f32 [?, ?])\n"
                 "%e = exp(%b:0) : (f32 [?, ?])\n"
                 "%f = negative(%e:0) : (f32 [?, ?])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "y"), out(*g, "f")};
  g = fuse(std::move(g), ctx);
  EXPECT_EQ(clusters(*g), (std::vector<std::set<std::string>>{{"e", "f"}}));
}

// x -> n -> reshape -> c and n -> c: n and c may not share a cluster, since
// the reshape (not fusible) runs between them.
TEST(FusionTest, NeverMakesACycle) {
  auto g = parse(std::string(kInputs) +
                 "%shape = constant() {dtype = i32, value = tensor<i32 [2] {4, 3}>} : (i32 [2])\n"
                 "%e = exp(%x:0) : (f32 [4, 3])\n"
                 "%n = negative(%e:0) : (f32 [4, 3])\n"
                 "%r = reshape(%n:0, %shape:0) : (f32 [4, 3])\n"
                 "%c = add(%n:0, %r:0) : (f32 [4, 3])\n"
                 "%d = relu(%c:0) : (f32 [4, 3])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "d")};
  g = fuse(std::move(g), ctx);
  EXPECT_EQ(clusters(*g), (std::vector<std::set<std::string>>{{"e", "n"}, {"c", "d"}}));
  EXPECT_TRUE(g->topologicalOrder().hasValue());
}

TEST(FusionTest, AReductionEndsItsCluster) {
  auto g = parse(std::string(kInputs) +
                 "%q = square(%x:0) : (f32 [4, 3])\n"
                 "%n = negative(%q:0) : (f32 [4, 3])\n"
                 "%t = reduce_mean(%n:0) {axis = [0]} : (f32 [3])\n"
                 "%after = relu(%t:0) : (f32 [3])\n"
                 "%e = exp(%x:0) : (f32 [4, 3])\n"
                 "%s = reduce_sum(%e:0) {axis = [1], keepdims = true} : (f32 [4, 1])\n"
                 "%d = divide(%e:0, %s:0) : (f32 [4, 3])\n"
                 "%y = relu(%d:0) : (f32 [4, 3])\n"
                 "%lone = reduce_max(%b:0) : (f32 [])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "after"), out(*g, "y"), out(*g, "lone")};
  g = fuse(std::move(g), ctx);
  // t ends {q, n, t}: relu(t) does not join it (t drops a dim). s folds
  // rows and keeps them, so the divide reading it joins too; a reduction
  // alone is not a cluster.
  EXPECT_EQ(clusters(*g),
            (std::vector<std::set<std::string>>{{"e", "s", "d", "y"}, {"q", "n", "t"}}));
  EXPECT_TRUE(ir::verifyGraph(*g).isOk()) << ir::verifyGraph(*g).toString();
}

// Softmax built from ops: the max over x's rows starts a cluster (x is
// no cluster's), and everything reading it joins: one kernel.
TEST(FusionTest, RowReductionsKeepTheirClusterOpen) {
  auto g = parse(std::string(kInputs) +
                 "%m = reduce_max(%x:0) {axis = [-1], keepdims = true} : (f32 [4, 1])\n"
                 "%sub = subtract(%x:0, %m:0) : (f32 [4, 3])\n"
                 "%e = exp(%sub:0) : (f32 [4, 3])\n"
                 "%s = reduce_sum(%e:0) {axis = [1], keepdims = true} : (f32 [4, 1])\n"
                 "%inv = divide(%a:0, %s:0) : (f32 [4, 1])\n"
                 "%y = multiply(%e:0, %inv:0) : (f32 [4, 3])\n"
                 "%z = add(%y:0, %b:0) : (f32 [4, 3])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "z"), out(*g, "m")};
  g = fuse(std::move(g), ctx);
  EXPECT_EQ(clusters(*g),
            (std::vector<std::set<std::string>>{{"m", "sub", "e", "s", "inv", "y", "z"}}));
  EXPECT_TRUE(ir::verifyGraph(*g).isOk()) << ir::verifyGraph(*g).toString();
}

// What cannot share a row walk stays out: a reduction over other rows and
// one dropping its dims (neither may end a row cluster either).
TEST(FusionTest, RowClustersTakeOnlyTheirRowsShapes) {
  auto g = parse(std::string(kInputs) +
                 "%e = exp(%x:0) : (f32 [4, 3])\n"
                 "%s = reduce_sum(%e:0) {axis = [1], keepdims = true} : (f32 [4, 1])\n"
                 "%d = divide(%e:0, %s:0) : (f32 [4, 3])\n"
                 "%cols = reduce_sum(%d:0) {axis = [0], keepdims = true} : (f32 [1, 3])\n"
                 "%flat = reduce_max(%d:0) {axis = [1]} : (f32 [4])\n"
                 "%c = add(%cols:0, %a:0) : (f32 [1, 3])\n"
                 "%f = negative(%flat:0) : (f32 [4])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "c"), out(*g, "f")};
  g = fuse(std::move(g), ctx);
  EXPECT_EQ(clusters(*g), (std::vector<std::set<std::string>>{{"e", "s", "d"}}));
  EXPECT_TRUE(ir::verifyGraph(*g).isOk()) << ir::verifyGraph(*g).toString();
}

// Random DAGs of fusible ops with a few non-fusible ones and control
// edges: the result always verifies, is acyclic, and every fused body
// holds only fusible ops with no control inputs.
TEST(FusionTest, RandomGraphsStayAcyclicAndValid) {
  std::mt19937 rng(7);
  const char *fusible[] = {"add", "multiply", "maximum", "subtract"};
  int fusedNodes = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::string text =
        "%x = placeholder() {dtype = f32, shape = shape[8]} : (f32 [8])\n"
        "%shape = constant() {dtype = i32, value = tensor<i32 [1] {8}>} : (i32 [1])\n";
    std::vector<std::string> names{"x"};
    int n = 4 + static_cast<int>(rng() % 20);
    for (int i = 0; i < n; ++i) {
      std::string name = "v" + std::to_string(i);
      std::string a = names[rng() % names.size()], b = names[rng() % names.size()];
      int kind = static_cast<int>(rng() % 10);
      if (kind == 0)
        text += "%" + name + " = reshape(%" + a + ":0, %shape:0) : (f32 [8])\n";
      else if (kind == 1)
        text += "%" + name + " = tanh(%" + a + ":0) ^%" + b + " : (f32 [8])\n";
      else
        text += "%" + name + " = " + fusible[rng() % 4] + "(%" + a + ":0, %" + b +
                ":0) : (f32 [8])\n";
      names.push_back(name);
    }
    auto g = parse(text);
    PassContext ctx;
    for (size_t i = 1; i < names.size(); ++i)
      if (rng() % 3 == 0 || i + 1 == names.size())
        ctx.fetches.push_back(out(*g, names[i]));
    g = fuse(std::move(g), ctx);
    ASSERT_TRUE(g->topologicalOrder().hasValue()) << text;
    ASSERT_TRUE(ir::verifyGraph(*g).isOk()) << ir::verifyGraph(*g).toString() << "\n" << text;
    for (const auto &[fname, f] : g->functions().all())
      for (ir::NodeId k = 0; k < f->body->numNodes(); ++k) {
        const ir::Node &m = f->body->node(k);
        EXPECT_TRUE(m.controlInputs().empty());
        EXPECT_TRUE(m.opName() == "function_arg" || isFusibleOp(m)) << m.opName();
      }
    for (const ir::Output &o : ctx.fetches)
      ASSERT_LT(o.node, g->numNodes());
    fusedNodes += static_cast<int>(clusters(*g).size());
  }
  EXPECT_GT(fusedNodes, 200); // the walk is not vacuous
}

} // namespace
} // namespace sluice::passes
