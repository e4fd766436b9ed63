// tests/passes/pipeline_test.cc: pass order, --print-after, unknown names,
// and shape inference.
#include "passes/pipeline.h"
#include "runtime/pass_config.h"

#include "passes/shape_inference.h"
#include "tests/passes/test_graph.h"

namespace sluice::passes {
namespace {

using testing::dump;
using testing::TestGraph;

TEST(PipelineTest, RegistryListsEveryPass) {
  EXPECT_EQ(passNames(), (std::vector<std::string>{"shape-inference", "prune",
                                                   "constant-folding", "pipeline-check",
                                                   "placer", "fuse-read-decode", "fusion"}));
  EXPECT_EQ(pipelineOrder({}), (std::vector<std::string>{"prune", "fuse-read-decode",
                                                         "constant-folding", "prune"}));
  PipelineOptions withShapes;
  withShapes.inferShapes = true;
  EXPECT_EQ(pipelineOrder(withShapes).front(), "shape-inference");
  PipelineOptions placed;
  placed.place = true;
  EXPECT_EQ(pipelineOrder(placed), (std::vector<std::string>{"placer", "prune",
                                                             "fuse-read-decode",
                                                             "constant-folding", "prune"}));
  PipelineOptions fused;
  fused.fuse = true;
  EXPECT_EQ(pipelineOrder(fused), (std::vector<std::string>{"prune", "fuse-read-decode",
                                                            "constant-folding", "prune", "fusion",
                                                            "prune"}));
}

TEST(PipelineTest, PrintsAfterANamedPass) {
  TestGraph t;
  auto a = t.constant("a", 1.0f);
  auto b = t.constant("b", 2.0f);
  auto c = t.binary("c", "add", a, b);
  t.constant("unused", 7.0f);
  std::string printed;
  PipelineOptions opts;
  opts.printAfter = "prune";
  opts.afterPass = [&](std::string_view pass, const ir::Graph &g) {
    printed += "// after " + std::string(pass) + "\n" + dump(g);
  };
  PassContext ctx;
  ctx.options.kernels = rt::kernelQueries(nullptr); // folding, as a session folds
  ctx.fetches = {c};
  Status s = runPipeline(t.owned(), ctx, opts);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(printed, "// after prune\n"
                     "a = constant() 1.\n"
                     "b = constant() 2.\n"
                     "c = add(a, b)\n"
                     "// after prune\n"
                     "c/_folded_0 = constant() 3.\n");
}

TEST(PipelineTest, PrintAfterAllNamesEachPassInOrder) {
  TestGraph t;
  auto c = t.constant("c", 1.0f);
  std::vector<std::string> seen;
  PipelineOptions opts;
  opts.printAfter = "all";
  opts.afterPass = [&](std::string_view pass, const ir::Graph &) {
    seen.emplace_back(pass);
  };
  PassContext ctx;
  ctx.options.kernels = rt::kernelQueries(nullptr); // folding, as a session folds
  ctx.fetches = {c};
  ASSERT_TRUE(runPipeline(t.owned(), ctx, opts).isOk());
  EXPECT_EQ(seen, (std::vector<std::string>{"prune", "fuse-read-decode", "constant-folding",
                                            "prune"}));
}

TEST(PipelineTest, UnknownPassNameListsTheValidOnes) {
  TestGraph t;
  PipelineOptions opts;
  opts.printAfter = "constant-fold";
  PassContext ctx;
  ctx.options.kernels = rt::kernelQueries(nullptr); // folding, as a session folds
  Status s = runPipeline(t.owned(), ctx, opts);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "unknown pass 'constant-fold' (valid passes: "
                         "shape-inference, prune, constant-folding, pipeline-check, placer, "
                         "fuse-read-decode, fusion)");
  EXPECT_FALSE(createPass("nope").hasValue());
}

TEST(ShapeInferenceTest, RecomputesStaleShapes) {
  TestGraph t;
  auto x = t.placeholder("x", ir::DType::kF32, ir::Shape({2, 3}));
  auto y = t.binary("y", "add", x, t.constant("one", 1.0f));
  t.graph().node(y.node).setOutputShape(0, ir::Shape::unknown());
  auto pass = createShapeInferencePass();
  PassContext ctx;
  ctx.options.kernels = rt::kernelQueries(nullptr); // folding, as a session folds
  ASSERT_TRUE(pass->run(t.graph(), ctx).isOk());
  EXPECT_EQ(t.graph().node(y.node).outputShape(0).str(), "[2, 3]");
}

} // namespace
} // namespace sluice::passes
