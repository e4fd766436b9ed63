// tests/passes/fuse_read_decode_test.cc: when the reader + decode_csv pair
// is fused and when it is left alone, and how its uses are rewired.
#include "passes/fuse_read_decode.h"

#include "ir/text/parser.h"
#include "passes/pipeline.h"
#include "tests/passes/test_graph.h"

namespace sluice::passes {
namespace {

// A filename queue, a text line reader, read_up_to(10) and a decode_csv of
// its values; `extra` adds nodes.
std::unique_ptr<ir::Graph> graph(const std::string &extra = "", bool upTo = true) {
  std::string read = upTo ? "reader_read_up_to(%reader:0, %q:0, %n:0) : (string [?], string [?])"
                          : "reader_read(%reader:0, %q:0) : (string [], string [])";
  std::string rows = upTo ? "[?]" : "[]";
  std::string text =
      "# sluice ir v1\n"
      "%q = fifo_queue() {capacity = 10, component_types = types[string], container = \"\", "
      "shapes = shapes[[]], shared_name = \"\"} : (resource [])\n"
      "%reader = text_line_reader() {container = \"\", shared_name = \"\", skip_header_lines = 1} "
      ": (resource [])\n"
      "%n = constant() {dtype = i64, value = tensor<i64 [] {10}>} : (i64 [])\n"
      "%read = " + read + "\n"
      "%d0 = constant() {dtype = f32, value = tensor<f32 [1] {0.0}>} : (f32 [1])\n"
      "%d1 = constant() {dtype = i32, value = tensor<i32 [1] {0}>} : (i32 [1])\n"
      "%csv = decode_csv(%read:1, %d0:0, %d1:0) {Tlist = types[f32, i32], field_delim = \",\", "
      "na_value = \"\", use_quote_delim = true} : (f32 " + rows + ", i32 " + rows + ")\n" +
      extra;
  auto g = ir::parseGraph(text, "t.sir");
  EXPECT_TRUE(g.hasValue()) << g.status().toString();
  return g.hasValue() ? std::move(*g) : std::make_unique<ir::Graph>();
}

ir::Output out(const ir::Graph &g, const std::string &name, int i = 0) {
  return {g.findNode(name)->id(), i};
}

// Runs the step pipeline for `fetches` (names with output index).
std::unique_ptr<ir::Graph> compile(std::unique_ptr<ir::Graph> g, PassContext &ctx,
                                   bool fuse = true) {
  ctx.options.fuseReadDecode = fuse;
  Status s = runPipeline(g, ctx);
  EXPECT_TRUE(s.isOk()) << s.toString();
  return g;
}

int count(const ir::Graph &g, const std::string &op) {
  int n = 0;
  for (ir::NodeId id = 0; id < g.numNodes(); ++id)
    n += g.node(id).opName() == op;
  return n;
}

TEST(FuseReadDecodeTest, FusesAndRewiresTheColumns) {
  auto g = graph();
  PassContext ctx;
  ctx.fetches = {out(*g, "csv", 0), out(*g, "csv", 1)};
  g = compile(std::move(g), ctx);
  EXPECT_EQ(count(*g, "reader_read_up_to"), 0);
  EXPECT_EQ(count(*g, "decode_csv"), 0);
  ASSERT_EQ(count(*g, "reader_read_csv"), 1);
  const ir::Node &f = g->node(ctx.fetches[0].node);
  EXPECT_EQ(f.opName(), "reader_read_csv");
  EXPECT_EQ(ctx.fetches[0].index, 1);
  EXPECT_EQ(ctx.fetches[1].index, 2);
  EXPECT_FALSE(f.attr<bool>("emit_keys"));
  EXPECT_TRUE(f.attr<bool>("up_to"));
  EXPECT_EQ(f.name(), "csv/read_csv");
  EXPECT_EQ(f.outputShape(1), ir::Shape({-1}));
}

TEST(FuseReadDecodeTest, KeysInUseAreEmitted) {
  auto g = graph("%keys = identity(%read:0) : (string [?])\n");
  PassContext ctx;
  ctx.fetches = {out(*g, "keys"), out(*g, "csv", 1)};
  g = compile(std::move(g), ctx);
  const ir::Node &keys = g->node(ctx.fetches[0].node);
  const ir::Node &f = g->node(keys.inputs()[0].node);
  EXPECT_EQ(f.opName(), "reader_read_csv");
  EXPECT_TRUE(f.attr<bool>("emit_keys"));
  EXPECT_EQ(keys.inputs()[0].index, 0);
}

TEST(FuseReadDecodeTest, AScalarReadGetsANumRecordsConstant) {
  auto g = graph("", false);
  PassContext ctx;
  ctx.fetches = {out(*g, "csv", 0)};
  g = compile(std::move(g), ctx);
  const ir::Node &f = g->node(ctx.fetches[0].node);
  ASSERT_EQ(f.opName(), "reader_read_csv");
  EXPECT_FALSE(f.attr<bool>("up_to"));
  EXPECT_EQ(f.outputShape(1), ir::Shape::scalar());
}

TEST(FuseReadDecodeTest, ControlUsesFollowTheFusedNode) {
  auto g = graph("%after = no_op() ^%read ^%csv : ()\n");
  PassContext ctx;
  ctx.targets = {g->findNode("after")->id()};
  g = compile(std::move(g), ctx);
  EXPECT_EQ(count(*g, "reader_read_up_to"), 0);
  const ir::Node &after = g->node(ctx.targets[0]);
  ASSERT_EQ(after.controlInputs().size(), 1u);
  EXPECT_EQ(g->node(after.controlInputs()[0]).opName(), "reader_read_csv");
}

TEST(FuseReadDecodeTest, ATargetReadRunsOnceAsTheFusedNode) {
  auto g = graph();
  PassContext ctx;
  ctx.targets = {g->findNode("read")->id(), g->findNode("csv")->id()};
  g = compile(std::move(g), ctx);
  EXPECT_EQ(count(*g, "reader_read_up_to"), 0);
  ASSERT_EQ(ctx.targets.size(), 1u);
  EXPECT_EQ(g->node(ctx.targets[0]).opName(), "reader_read_csv");
}

TEST(FuseReadDecodeTest, LeftAloneWhenTheValuesHaveOtherUses) {
  struct Case {
    const char *name;
    std::string extra;
    bool fetchValues, feedValues, fuse;
  } cases[] = {
      {"another reader of the values", "%v = identity(%read:1) : (string [?])\n", false, false, true},
      {"fetched values", "", true, false, true},
      {"fed values", "", false, true, true},
      {"fusion off", "", false, false, false},
  };
  for (const Case &c : cases) {
    auto g = graph(c.extra);
    PassContext ctx;
    ctx.fetches = {out(*g, "csv", 0)};
    if (c.extra.find("%v") != std::string::npos)
      ctx.fetches.push_back(out(*g, "v"));
    if (c.fetchValues)
      ctx.fetches.push_back(out(*g, "read", 1));
    if (c.feedValues)
      ctx.feeds.push_back(out(*g, "read", 1));
    g = compile(std::move(g), ctx, c.fuse);
    EXPECT_EQ(count(*g, "reader_read_csv"), 0) << c.name;
    EXPECT_EQ(count(*g, "decode_csv"), 1) << c.name;
  }
}

TEST(FuseReadDecodeTest, LeftAloneAcrossDevices) {
  auto g = graph();
  g->findNode("read")->setAssignedDevice("/job:localhost/replica:0/task:0/device:CPU:0");
  g->findNode("csv")->setAssignedDevice("/job:localhost/replica:0/task:0/device:CPU:1");
  PassContext ctx;
  ctx.fetches = {out(*g, "csv", 0)};
  auto pass = createFuseReadDecodePass();
  ASSERT_TRUE(pass->run(*g, ctx).isOk());
  EXPECT_EQ(count(*g, "reader_read_csv"), 0);
}

} // namespace
} // namespace sluice::passes
