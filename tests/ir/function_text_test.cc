// tests/ir/function_text_test.cc: graph functions in the IR: the library,
// their checks, and their text form (func "name" { ... return ... }).
#include <gtest/gtest.h>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/text/verifier.h"
#include "tests/ir/graph_builder.h"

namespace sluice::ir {
namespace {

Node *arg(Graph &g, const std::string &name, int64_t index, DType t) {
  NodeSpec s;
  s.name = name;
  s.op = "function_arg";
  s.attrs = {{"T", t}, {"index", index}, {"shape", Shape::scalar()}};
  auto n = g.addNode(std::move(s));
  EXPECT_TRUE(n.hasValue()) << n.status().toString();
  return *n;
}

// f(a, b) = a + b
std::shared_ptr<FunctionDef> addFunction(const std::string &name) {
  auto body = std::make_shared<Graph>();
  Node *a = arg(*body, "a", 0, DType::kF32);
  Node *b = arg(*body, "b", 1, DType::kF32);
  NodeSpec add;
  add.name = "sum";
  add.op = "add";
  add.inputs = {{a->id(), 0}, {b->id(), 0}};
  Node *sum = *body->addNode(std::move(add));
  auto f = std::make_shared<FunctionDef>();
  f->name = name;
  f->args = {a->id(), b->id()};
  f->rets = {{sum->id(), 0}};
  f->body = body;
  return f;
}

TEST(FunctionTest, LibraryChecksAndNames) {
  FunctionLibrary lib;
  ASSERT_TRUE(lib.add(addFunction("f")).isOk());
  EXPECT_EQ(lib.add(addFunction("f")).code(), Code::kAlreadyExists);
  EXPECT_EQ(lib.uniqueName("f"), "f_1");
  EXPECT_EQ(lib.uniqueName("g"), "g");
  auto f = lib.find("f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->argTypes(), (std::vector<DType>{DType::kF32, DType::kF32}));
  EXPECT_EQ(f->retTypes(), (std::vector<DType>{DType::kF32}));

  auto swapped = addFunction("bad");
  std::swap(swapped->args[0], swapped->args[1]);
  Status s = lib.add(swapped);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("not function_arg with index 0"), std::string::npos) << s.message();

  auto missing = addFunction("short");
  missing->args.pop_back();
  EXPECT_NE(lib.add(missing).message().find("2 function_arg nodes but 1 parameters"),
            std::string::npos);
}

TEST(FunctionTest, CloneCarriesTheLibrary) {
  Graph g;
  ASSERT_TRUE(g.functions().add(addFunction("f")).isOk());
  auto copy = g.clone();
  EXPECT_TRUE(copy->functions().find("f"));
}

TEST(FunctionTest, TextRoundTrip) {
  Graph g;
  ASSERT_TRUE(g.functions().add(addFunction("adder")).isOk());
  testing::placeholder(g, "x", DType::kF32, Shape::scalar());
  std::string text = printGraph(g);
  EXPECT_NE(text.find("func \"adder\" {\n  %a = function_arg()"), std::string::npos) << text;
  EXPECT_NE(text.find("  return %sum:0\n}\n"), std::string::npos) << text;
  auto back = parseGraph(text, "t.sir");
  ASSERT_TRUE(back.hasValue()) << back.status().toString() << "\n" << text;
  EXPECT_EQ(printGraph(**back), text);
  auto f = (*back)->functions().find("adder");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->args.size(), 2u);
  EXPECT_TRUE(verifyGraph(**back).isOk());
}

TEST(FunctionTest, TextErrorsAreLocated) {
  auto noReturn = parseGraph("func \"f\" {\n  %a = function_arg() {T = f32, index = 0} : (f32 ?)\n}\n",
                             "t.sir");
  ASSERT_FALSE(noReturn.hasValue());
  EXPECT_NE(noReturn.status().message().find("'return'"), std::string::npos)
      << noReturn.status().message();
  EXPECT_EQ(noReturn.status().loc().line, 3);

  auto badRet = parseGraph("func \"f\" {\n  return %nope:0\n}\n", "t.sir");
  ASSERT_FALSE(badRet.hasValue());
  EXPECT_NE(badRet.status().message().find("unknown node '%nope'"), std::string::npos);

  auto nested = parseGraph("func \"f\" {\n  func \"g\" {\n", "t.sir");
  ASSERT_FALSE(nested.hasValue());
  EXPECT_NE(nested.status().message().find("cannot be nested"), std::string::npos);

  auto dup = parseGraph("func \"f\" {\n  return\n}\nfunc \"f\" {\n  return\n}\n", "t.sir");
  ASSERT_FALSE(dup.hasValue());
  EXPECT_NE(dup.status().message().find("duplicate function 'f'"), std::string::npos);
}

TEST(FunctionTest, VerifierChecksReferencedFunctions) {
  std::string text = "%s = constant() {value = tensor<i64 [] {1}>, dtype = i64} : (i64 [])\n"
                     "%d = range_dataset(%s:0, %s:0, %s:0) {output_types = types[i64], "
                     "output_shapes = shapes[[]]} : (variant [])\n"
                     "%m = map_dataset(%d:0) {f = \"nowhere\", Targuments = types[], "
                     "output_types = types[i64], output_shapes = shapes[[]]} : (variant [])\n";
  auto parsed = parseGraph(text, "t.sir");
  ASSERT_TRUE(parsed.hasValue()) << parsed.status().toString();
  Status s = verifyGraph(**parsed);
  EXPECT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("names function 'nowhere'"), std::string::npos) << s.message();
}

} // namespace
} // namespace sluice::ir
