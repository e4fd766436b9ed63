// tests/ir/text_test.cc: printGraph's format and the parse/print round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/text/verifier.h"
#include "tests/ir/graph_builder.h"

namespace sluice::ir {
namespace {

using namespace testing;

// Parses `text`, failing the test on error.
std::unique_ptr<Graph> parseOrFail(const std::string &text) {
  auto g = parseGraph(text, "t.sir");
  EXPECT_TRUE(g.hasValue()) << g.status().toString() << "\n" << text;
  return g.hasValue() ? std::move(*g) : nullptr;
}

// print(parse(print(g))) == print(g), byte for byte.
void expectRoundTrip(const Graph &g) {
  std::string text = printGraph(g);
  auto back = parseOrFail(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(printGraph(*back), text);
  EXPECT_EQ(back->numNodes(), g.numNodes());
}

TEST(TextTest, PrintsOneLinePerNode) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32, Shape({2, Shape::kUnknown}));
  x->setRequestedDevice("/job:worker");
  Node *c = constant(g, "c", Tensor::fromVector<float>({1, 2, 3}, {1, 3}));
  NodeSpec init;
  init.name = "init";
  init.op = "no_op";
  init.loc = testLoc(2, 7);
  Node *i = addOrFail(g, init);
  NodeSpec sum;
  sum.name = "sum";
  sum.op = "add";
  sum.inputs = {out(x), out(c)};
  sum.controlInputs = {i->id()};
  sum.loc = testLoc(3, 5);
  Node *s = addOrFail(g, sum);
  s->setAssignedDevice("/job:worker/task:0/device:CPU:0");
  s->addColocation("x");
  EXPECT_EQ(printGraph(g),
            "# sluice ir v1\n"
            "%x = placeholder() {dtype = f32, shape = shape[2, ?]} : "
            "(f32 [2, ?]) @\"/job:worker\"\n"
            "%c = constant() {dtype = f32, value = tensor<f32 [1, 3] "
            "{1.0, 2.0, 3.0}>} : (f32 [1, 3])\n"
            "%init = no_op() : () loc(\"test.sluice\":2:7)\n"
            "%sum = add(%x:0, %c:0) ^%init {T = f32} : (f32 [2, 3]) "
            "assigned \"/job:worker/task:0/device:CPU:0\" colocate [\"x\"] "
            "loc(\"test.sluice\":3:5)\n");
  expectRoundTrip(g);
  auto back = parseOrFail(printGraph(g));
  const Node *bs = back->findNode("sum");
  ASSERT_TRUE(bs);
  EXPECT_EQ(bs->loc().str(), "test.sluice:3:5");
  EXPECT_EQ(bs->assignedDevice(), "/job:worker/task:0/device:CPU:0");
  EXPECT_EQ(bs->colocateWith(), std::vector<std::string>{"x"});
  EXPECT_EQ(back->findNode("x")->requestedDevice(), "/job:worker");
  // Nodes created from one source file share its name.
  EXPECT_EQ(bs->loc().file, back->findNode("init")->loc().file);
}

TEST(TextTest, QuotesNamesThatNeedIt) {
  Graph g;
  placeholder(g, "scope/sub.1_x-2", DType::kF32);
  placeholder(g, "has space", DType::kF32);
  placeholder(g, "caf\xc3\xa9\n\"", DType::kF32);
  std::string text = printGraph(g);
  EXPECT_NE(text.find("%scope/sub.1_x-2 = "), std::string::npos);
  EXPECT_NE(text.find("%\"has space\" = "), std::string::npos);
  EXPECT_NE(text.find("%\"caf\\xc3\\xa9\\n\\\"\" = "), std::string::npos);
  expectRoundTrip(g);
  auto back = parseOrFail(text);
  EXPECT_TRUE(back->findNode("caf\xc3\xa9\n\""));
}

// A graph using every attr type, through declared attrs where some op has
// one and through annotated extra ('_') attrs for the rest.
std::unique_ptr<Graph> everyAttrGraph() {
  auto gp = std::make_unique<Graph>();
  Graph &g = *gp;
  double inf = std::numeric_limits<double>::infinity();
  double nan = std::numeric_limits<double>::quiet_NaN();
  Node *x = placeholder(g, "x", DType::kF32, Shape({2, Shape::kUnknown}));
  Node *u = placeholder(g, "u", DType::kF32);
  Node *scalar = placeholder(g, "scalar", DType::kI64, Shape::scalar());
  Node *c = constant(
      g, "c",
      Tensor::fromVector<float>(
          {0.1f, -0.0f, float(inf), float(nan), 1e-40f, 3e38f}, {2, 3}));
  constant(g, "d", Tensor::fromVector<double>({0.1, -inf, 5e-324}));
  constant(g, "h", Tensor::fromVector<Half>({Half(0.5f), Half(-2.0f)}));
  constant(g, "i8", Tensor::fromVector<int8_t>({-128, 127}));
  constant(g, "i16", Tensor::fromVector<int16_t>({-32768}));
  constant(g, "i32", Tensor::scalar<int32_t>(7));
  constant(g, "u8", Tensor::fromVector<uint8_t>({0, 255}));
  constant(g, "b", Tensor::fromVector<bool>({true, false}));
  Tensor str(DType::kString, {3});
  str.strings()[0] = "quote\" backslash\\ newline\n";
  str.strings()[1] = "\xff\x00 bytes";
  str.strings()[1][1] = '\0';
  str.strings()[2] = "na\xc3\xafve";
  Node *s = constant(g, "s", str);
  constant(g, "empty", Tensor(DType::kF32, {0, 4}));
  constant(g, "empty_str", Tensor(DType::kString, {0}));
  Node *sum = op(g, "sum", "add", {out(x), out(c)});
  op(g, "cat", "concat", {out(c), out(sum)}, {{"axis", int64_t{0}}});
  Node *sp = op(g, "parts", "split", {out(c)},
                {{"num_split", int64_t{3}}, {"axis", int64_t{1}}});
  op(g, "last", "identity", {out(sp, 2)});
  op(g, "hot", "one_hot", {out(scalar)},
     {{"depth", int64_t{4}}, {"on_value", 0.1}, {"off_value", -0.0}});
  op(g, "t", "transpose", {out(c)}, {{"perm", std::vector<int64_t>{1, 0}}});
  op(g, "joined", "string_join", {out(s), out(s)},
     {{"separator", std::string("\t\"")}});
  op(g, "mm", "matmul", {out(c), out(u)}, {{"transpose_b", true}});
  Node *v = op(g, "var", "variable", {},
               {{"dtype", DType::kF32}, {"shape", Shape::unknown()}});
  v->setAttr("_floats", std::vector<double>{0.1, -0.0, inf, nan});
  v->setAttr("_empty_floats", std::vector<double>{});
  v->setAttr("_empty_ints", std::vector<int64_t>{});
  v->setAttr("_ints", std::vector<int64_t>{-1, 0, 1});
  v->setAttr("_strings", std::vector<std::string>{"a", "", "\x01"});
  v->setAttr("_empty_strings", std::vector<std::string>{});
  v->setAttr("_types", std::vector<DType>{DType::kF32, DType::kString});
  v->setAttr("_empty_types", std::vector<DType>{});
  v->setAttr("_shapes",
             std::vector<Shape>{Shape({2, -1}), Shape(), Shape::scalar()});
  v->setAttr("_empty_shapes", std::vector<Shape>{});
  v->setAttr("_float", -0.0);
  v->setAttr("_bool", false);
  v->setAttr("_type", DType::kResource);
  v->setAttr("_shape", Shape());
  v->setAttr("_tensor", Tensor::scalarString("x"));
  v->setAttr("_weird name", int64_t{3});
  return gp;
}

TEST(TextTest, EveryAttrTypeRoundTrips) {
  auto g = everyAttrGraph();
  if (::testing::Test::HasFailure())
    return;
  expectRoundTrip(*g);
  std::string text = printGraph(*g);
  EXPECT_NE(text.find("_empty_ints: list(int) = []"), std::string::npos)
      << text;
  EXPECT_NE(text.find("_floats: list(float) = [0.1, -0.0, inf, nan]"),
            std::string::npos);
  EXPECT_NE(text.find("\"_weird name\": int = 3"), std::string::npos);
  EXPECT_NE(text.find("{0.1, -0.0, inf, nan, 9.99995e-41, 3e+38}"),
            std::string::npos);
  // Values, not just text, survive.
  auto back = parseOrFail(text);
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->findNode("s")->attr<Tensor>("value").equals(
      g->findNode("s")->attr<Tensor>("value")));
  const Tensor &c = back->findNode("c")->attr<Tensor>("value");
  EXPECT_TRUE(std::signbit(c.data<float>()[1]));
  EXPECT_TRUE(std::isnan(c.data<float>()[3]));
  EXPECT_EQ(c.data<float>()[4], 1e-40f);
  EXPECT_EQ(back->findNode("last")->inputs()[0].index, 2);
  EXPECT_EQ(back->findNode("last")->outputShape(0), Shape({2, 1}));
  EXPECT_TRUE(verifyGraph(*back).isOk()) << verifyGraph(*back).toString();
}

TEST(TextTest, PrintsInTopologicalOrderAfterRewiring) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32);
  Node *a = op(g, "a", "identity", {out(x)});
  Node *late = placeholder(g, "late", DType::kF32);
  Node *n = op(g, "n", "no_op", {});
  g.replaceUses(out(x), out(late)); // a now reads a later node
  g.addControlInput(a->id(), n->id());
  std::string text = printGraph(g);
  EXPECT_LT(text.find("%late ="), text.find("%a ="));
  EXPECT_LT(text.find("%n ="), text.find("%a ="));
  expectRoundTrip(g);
}

TEST(TextTest, ControlCycleRoundTrips) {
  // Not a valid graph, but printing and parsing must still agree.
  Graph g;
  Node *a = op(g, "a", "no_op", {});
  Node *b = op(g, "b", "no_op", {}, {}, {a->id()});
  g.addControlInput(a->id(), b->id());
  expectRoundTrip(g);
  auto back = parseOrFail(printGraph(g));
  EXPECT_EQ(verifyGraph(*back).code(), Code::kFailedPrecondition);
}

TEST(TextTest, KeepsRefinedShapes) {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32);
  Node *i = op(g, "i", "identity", {out(x)});
  i->setOutputShape(0, Shape({4, 4})); // as a shape-refining pass would
  expectRoundTrip(g);
  auto back = parseOrFail(printGraph(g));
  EXPECT_EQ(back->findNode("i")->outputShape(0), Shape({4, 4}));
}

TEST(TextTest, AcceptsCommentsBlankLinesAndSpacing) {
  auto g = parseOrFail("# a comment\n\n  %x   =   placeholder( ) "
                       "{dtype=f32}:(f32 ?)  # trailing\r\n"
                       "%y = identity(%x:0) {T = f32} : (f32 ?)");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->numNodes(), 2);
  EXPECT_EQ(printGraph(*g), "# sluice ir v1\n"
                            "%x = placeholder() {dtype = f32} : (f32 ?)\n"
                            "%y = identity(%x:0) {T = f32} : (f32 ?)\n");
}

TEST(TextTest, FillsDefaultsAndBindsTypeAttrs) {
  // Attrs the text leaves out are bound or defaulted by addNode.
  auto g = parseOrFail("%x = placeholder() {dtype = i32} : (i32 ?)\n"
                       "%y = identity(%x:0) : (i32 ?)\n"
                       "%h = one_hot(%x:0) {depth = 3} : (f32 ?)\n");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->findNode("y")->attr<DType>("T"), DType::kI32);
  EXPECT_EQ(g->findNode("h")->attr<double>("on_value"), 1.0);
}

TEST(TextTest, EmptyGraph) {
  Graph g;
  EXPECT_EQ(printGraph(g), "# sluice ir v1\n");
  auto back = parseOrFail("");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->numNodes(), 0);
}

} // namespace
} // namespace sluice::ir
