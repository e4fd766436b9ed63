// tests/ops_array/string_ops_test.cc: string op rows and kernels.
#include <cmath>

#include "tests/ops_array/op_test_util.h"

namespace sluice::testing {
namespace {

using StringOpsTest = OpTest;

TEST_F(StringOpsTest, StringJoin) {
  ir::Node *j = mustAdd("string_join", {constant(strings({"a", "b"})),
                                        constant(Tensor::scalarString("-")),
                                        constant(strings({"x", "y"}))},
                        {{"separator", std::string("+")}});
  EXPECT_EQ(j->outputShape(0), Shape({2}));
  EXPECT_TENSOR_EQ(eval1(j), strings({"a+-+x", "b+-+y"}));
  ir::Node *s = mustAdd("string_join", {constant(Tensor::scalarString("p")),
                                        constant(Tensor::scalarString("q"))});
  EXPECT_TENSOR_EQ(eval1(s), Tensor::scalarString("pq"));
  EXPECT_EQ(addError("string_join", {constant(strings({"a", "b"})),
                                     constant(strings({"c"}))}),
            "Input shapes do not match: [2] vs. [1]");
  ir::Node *d = mustAdd("string_join", {constant(strings({"a", "b"})),
                                        fed(strings({"c"}))});
  EXPECT_EQ(evalError(d), "Input shapes do not match: [2] vs. [1]");
  EXPECT_HAS(addError("string_join", {constant(vec<int32_t>({1}))}),
             "must be string");
}

TEST_F(StringOpsTest, StringSplit) {
  ir::Node *s = mustAdd("string_split",
                        {constant(strings({"hello world", "a  b c", ""}))});
  ASSERT_EQ(s->numOutputs(), 3);
  EXPECT_EQ(s->outputShape(0), Shape({-1, 2}));
  EXPECT_EQ(s->outputShape(2), Shape({2}));
  auto r = eval(s);
  ASSERT_TRUE(r.hasValue());
  EXPECT_TENSOR_EQ((*r)[0], vec<int64_t>({0, 0, 0, 1, 1, 0, 1, 1, 1, 2}, {5, 2}));
  EXPECT_TENSOR_EQ((*r)[1], strings({"hello", "world", "a", "b", "c"}));
  EXPECT_TENSOR_EQ((*r)[2], vec<int64_t>({3, 3}));
  // Each delimiter byte splits; skip_empty=false keeps empty tokens.
  ir::Node *k = mustAdd("string_split", {constant(strings({"a,b;;c"}))},
                        {{"delimiter", std::string(",;")},
                         {"skip_empty", false}});
  r = eval(k);
  EXPECT_TENSOR_EQ((*r)[1], strings({"a", "b", "", "c"}));
  EXPECT_TENSOR_EQ((*r)[2], vec<int64_t>({1, 4}));
  ir::Node *c = mustAdd("string_split", {constant(strings({"ab"}))},
                        {{"delimiter", std::string()}});
  r = eval(c);
  EXPECT_TENSOR_EQ((*r)[1], strings({"a", "b"}));
  EXPECT_EQ(addError("string_split", {constant(strings({"a", "b"}, {1, 2}))}),
            "input must be a vector, got shape: [1, 2]");
}

TEST_F(StringOpsTest, StringToNumber) {
  ir::Node *f = mustAdd("string_to_number",
                        {constant(strings({"1.5", " -2e3 ", "inf"}))});
  EXPECT_EQ(f->outputType(0), DType::kF32);
  Tensor r = eval1(f);
  EXPECT_EQ(r.data<float>()[0], 1.5f);
  EXPECT_EQ(r.data<float>()[1], -2000.0f);
  EXPECT_TRUE(std::isinf(r.data<float>()[2]));
  ir::Node *i = mustAdd("string_to_number", {constant(strings({"42", "-7"}))},
                        {{"out_type", DType::kI64}});
  EXPECT_TENSOR_EQ(eval1(i), vec<int64_t>({42, -7}));
  for (const char *bad : {"abc", "1.5x", "", "0x10"}) {
    ir::Node *b = mustAdd("string_to_number", {constant(strings({bad}))});
    EXPECT_EQ(evalError(b),
              std::string("StringToNumberOp could not correctly convert "
                          "string: ") + bad);
  }
  ir::Node *o = mustAdd("string_to_number",
                        {constant(strings({"3000000000"}))},
                        {{"out_type", DType::kI32}});
  EXPECT_HAS(evalError(o), "could not correctly convert string: 3000000000");
  ir::Node *fi = mustAdd("string_to_number", {constant(strings({"1.5"}))},
                         {{"out_type", DType::kI32}});
  EXPECT_HAS(evalError(fi), "could not correctly convert string: 1.5");
  EXPECT_HAS(addError("string_to_number", {constant(strings({"1"}))},
                      {{"out_type", DType::kBool}}),
             "does not support dtype bool");
}

TEST_F(StringOpsTest, AsString) {
  ir::Node *f = mustAdd("as_string", {constant(vec<float>({1.5f, -2}))});
  EXPECT_TENSOR_EQ(eval1(f), strings({"1.500000", "-2.000000"}));
  f = mustAdd("as_string", {constant(vec<double>({3.14159}))},
              {{"precision", int64_t{2}}});
  EXPECT_TENSOR_EQ(eval1(f), strings({"3.14"}));
  f = mustAdd("as_string", {constant(vec<float>({1500}))},
              {{"scientific", true}});
  EXPECT_TENSOR_EQ(eval1(f), strings({"1.500000e+03"}));
  f = mustAdd("as_string", {constant(vec<float>({0.5f}))},
              {{"shortest", true}});
  EXPECT_TENSOR_EQ(eval1(f), strings({"0.5"}));
  ir::Node *i = mustAdd("as_string", {constant(vec<int32_t>({7, -12}))},
                        {{"width", int64_t{4}}, {"fill", std::string("0")}});
  EXPECT_TENSOR_EQ(eval1(i), strings({"0007", "-012"}));
  ir::Node *l = mustAdd("as_string", {constant(vec<int64_t>({1LL << 40}))});
  EXPECT_TENSOR_EQ(eval1(l), strings({"1099511627776"}));
  ir::Node *b = mustAdd("as_string", {constant(vec<bool>({true, false}))});
  EXPECT_TENSOR_EQ(eval1(b), strings({"true", "false"}));
  ir::Output x = constant(vec<float>({1}));
  EXPECT_EQ(addError("as_string", {x},
                     {{"scientific", true}, {"shortest", true}}),
            "Cannot select both scientific and shortest notation");
  EXPECT_EQ(addError("as_string", {x}, {{"fill", std::string("ab")}}),
            "Fill string must be one or fewer characters");
  EXPECT_EQ(addError("as_string", {x}, {{"fill", std::string("x")}}),
            "Fill argument not supported: \"x\"");
  EXPECT_EQ(addError("as_string", {constant(vec<int32_t>({1}))},
                     {{"precision", int64_t{2}}}),
            "precision not supported for datatype int32");
  EXPECT_HAS(addError("as_string", {constant(strings({"a"}))}),
             "does not support dtype string");
}

TEST_F(StringOpsTest, LengthSubstrStripRegex) {
  ir::Output s = constant(strings({"héllo", "ab", ""}));
  ir::Node *n = mustAdd("string_length", {s});
  EXPECT_EQ(n->outputType(0), DType::kI32);
  EXPECT_TENSOR_EQ(eval1(n), vec<int32_t>({6, 2, 0}));
  n = mustAdd("string_length", {s}, {{"unit", std::string("UTF8_CHAR")}});
  EXPECT_TENSOR_EQ(eval1(n), vec<int32_t>({5, 2, 0}));
  EXPECT_EQ(addError("string_length", {s}, {{"unit", std::string("X")}}),
            "unit must be BYTE or UTF8_CHAR, got X");

  ir::Output w = constant(strings({"hello", "world"}));
  ir::Node *sub = mustAdd("substr", {w, constant(Tensor::scalar<int32_t>(1)),
                                     constant(Tensor::scalar<int32_t>(3))});
  EXPECT_EQ(sub->outputShape(0), Shape({2}));
  EXPECT_TENSOR_EQ(eval1(sub), strings({"ell", "orl"}));
  sub = mustAdd("substr", {w, constant(vec<int32_t>({0, -2})),
                           constant(vec<int32_t>({10, 2}))});
  EXPECT_TENSOR_EQ(eval1(sub), strings({"hello", "ld"}));
  ir::Node *bad = mustAdd("substr", {w, constant(Tensor::scalar<int32_t>(6)),
                                     constant(Tensor::scalar<int32_t>(1))});
  EXPECT_EQ(evalError(bad), "pos 6 out of range for string b'hello' at index 0");
  EXPECT_HAS(addError("substr", {w, constant(vec<int32_t>({0, 1})),
                                 constant(Tensor::scalar<int32_t>(1))}),
             "pos and len should have the same shape");

  ir::Node *st = mustAdd("string_strip", {constant(strings({"  a b \n", "c"}))});
  EXPECT_TENSOR_EQ(eval1(st), strings({"a b", "c"}));

  ir::Node *re = mustAdd("regex_full_match",
                         {constant(strings({"abc123", "abc", "x1"}))},
                         {{"pattern", std::string("[a-z]+[0-9]+")}});
  EXPECT_EQ(re->outputType(0), DType::kBool);
  EXPECT_TENSOR_EQ(eval1(re), vec<bool>({true, false, true}));
  ir::Node *bre = mustAdd("regex_full_match", {constant(strings({"a"}))},
                          {{"pattern", std::string("(")}});
  EXPECT_HAS(evalError(bre), "Invalid pattern: (, error:");
}

} // namespace
} // namespace sluice::testing
