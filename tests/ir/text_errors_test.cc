// tests/ir/text_errors_test.cc: each malformed .sir input gives one located
// error with a clear message.
#include <gtest/gtest.h>

#include "ir/text/parser.h"

namespace sluice::ir {
namespace {

struct ErrorCase {
  const char *text;
  const char *error;
};

const char kX[] =
    "%x = placeholder() {dtype = f32, shape = shape[2]} : (f32 [2])\n";

std::string withX(const char *rest) { return std::string(kX) + rest; }

TEST(TextErrorsTest, ReportsLocatedErrors) {
  const ErrorCase cases[] = {
      // Lexical.
      {"%x = placeholder() {dtype = f32} : (f32 ?) $",
       "t.sir:1:44: error: invalid_argument: unexpected character '$'"},
      {"%x = placeholder() {dtype = f32} : (f32 ?) @\"abc\n",
       "t.sir:1:45: error: invalid_argument: unterminated string"},
      {"% = placeholder()",
       "t.sir:1:2: error: invalid_argument: expected a node name after '%'"},
      {"%x = placeholder() {dtype = f32} : (f32 ?) loc(\"a\\z\":1:1)",
       "t.sir:1:50: error: invalid_argument: unknown escape '\\z' in string"},
      // Structure.
      {"x = placeholder()", "t.sir:1:1: error: invalid_argument: expected a "
                            "node ('%name = op(...)'), found 'x'"},
      {"%x placeholder()",
       "t.sir:1:4: error: invalid_argument: expected '=', found 'placeholder'"},
      {"%x = 3()",
       "t.sir:1:6: error: invalid_argument: expected an op name, found '3'"},
      {"%x = no_such_op() : ()",
       "t.sir:1:6: error: invalid_argument: unknown op 'no_such_op'"},
      {"%\"\" = no_op() : ()",
       "t.sir:1:1: error: invalid_argument: node name must not be empty"},
      {"%x = placeholder() {dtype = f32} : (f32 ?)\n%y = no_op() : () %z",
       "t.sir:2:19: error: invalid_argument: expected a clause (@, assigned, "
       "colocate, loc) or end of line, found '%z'"},
      {"%x = placeholder() {dtype = f32}",
       "t.sir:1:33: error: invalid_argument: expected ':', found end of file"},
      {"%x = placeholder() {dtype = f32} : (f32 ?\n",
       "t.sir:1:42: error: invalid_argument: expected ',' or ')', found end of "
       "line"},
      // Inputs.
      {"%y = identity(%nope:0) : (f32 ?)",
       "t.sir:1:15: error: invalid_argument: unknown node '%nope'"},
      {"%y = identity(%y:0) : (f32 ?)", "t.sir:1:15: error: invalid_argument: "
                                        "node 'y' cannot read its own output"},
  };
  for (const ErrorCase &c : cases) {
    auto g = parseGraph(c.text, "t.sir");
    ASSERT_FALSE(g.hasValue()) << c.text;
    EXPECT_EQ(g.status().toString(), c.error) << c.text;
  }
}

TEST(TextErrorsTest, ReportsSemanticErrorsAtTheNode) {
  const ErrorCase cases[] = {
      {"%x = no_op() : ()",
       "t.sir:2:1: error: invalid_argument: duplicate node name 'x'"},
      {"%y = identity(%x:1) : (f32 [2])",
       "t.sir:2:18: error: invalid_argument: node 'x' has 1 output, so output "
       "1 does not exist"},
      {"%y = identity(%x:-1) : (f32 [2])",
       "t.sir:2:18: error: invalid_argument: node 'x' has 1 output, so output "
       "-1 does not exist"},
      {"%y = add(%x:0) : (f32 [2])", "t.sir:2:1: error: invalid_argument: node "
                                     "'y': add expects 2 inputs but got 1"},
      {"%i = placeholder() {dtype = i32} : (i32 ?)\n%y = add(%x:0, %i:0) : "
       "(f32 [2])",
       "t.sir:3:1: error: invalid_argument: node 'y': input 'y' of add has "
       "dtype i32 that does not match dtype f32 of the other inputs"},
      {"%y = identity(%x:0) : (i32 [2])",
       "t.sir:2:24: error: invalid_argument: output 0 of 'y' has dtype f32, "
       "but the text says i32"},
      {"%y = identity(%x:0) : (f32 [3])",
       "t.sir:2:24: error: invalid_argument: output 0 of 'y' has shape [2], "
       "incompatible with [3] in the text"},
      {"%y = identity(%x:0) : (f32 [2], f32 [2])",
       "t.sir:2:21: error: invalid_argument: node 'y' has 1 output but the "
       "text lists 2"},
      {"%y = identity(%x:0) ^%nope : (f32 [2])",
       "t.sir:2:22: error: invalid_argument: unknown node '%nope'"},
      // Attrs.
      {"%y = identity(%x:0) {T = f32, T = f32} : (f32 [2])",
       "t.sir:2:31: error: invalid_argument: duplicate attribute 'T'"},
      {"%y = identity(%x:0) {U = f32} : (f32 [2])",
       "t.sir:2:22: error: invalid_argument: op identity has no attribute 'U' "
       "(an extra attribute needs its type, as in 'U: int = 1')"},
      {"%y = identity(%x:0) {T: int = 3} : (f32 [2])",
       "t.sir:2:22: error: invalid_argument: attribute 'T' of identity is "
       "declared type, not int"},
      {"%y = identity(%x:0) {_u: list(nope) = []} : (f32 [2])",
       "t.sir:2:26: error: invalid_argument: unknown attribute type "
       "'list(nope)'"},
      {"%y = identity(%x:0) {T = f99} : (f32 [2])",
       "t.sir:2:26: error: invalid_argument: unknown dtype 'f99'"},
      {"%y = identity(%x:0) {T = i32} : (f32 [2])",
       "t.sir:2:1: error: invalid_argument: node 'y': input 'input' of "
       "identity has dtype f32 that does not match dtype i32 of the other "
       "inputs"},
      {"%y = identity(%x:0) {T = f32 : (f32 [2])",
       "t.sir:2:30: error: invalid_argument: expected ',' or '}', found ':'"},
      {"%c = constant() {value = tensor<f32 [2] {1.0}>} : (f32 [2])",
       "t.sir:2:41: error: invalid_argument: tensor of shape [2] needs 2 "
       "elements, found 1"},
      {"%s = split(%x:0) {num_split = 4000000000} : (f32 ?)",
       "t.sir:2:43: error: invalid_argument: attribute 'num_split' = "
       "4000000000 does not fit the 1 outputs listed"},
      // Clauses.
      {"%y = identity(%x:0) : (f32 [2]) @\"a\" @\"b\"",
       "t.sir:2:38: error: invalid_argument: duplicate '@' clause"},
      {"%y = identity(%x:0) : (f32 [2]) loc(\"f\":0:1)",
       "t.sir:2:41: error: invalid_argument: line number 0 is out of range"},
      {"%y = identity(%x:0) : (f32 [2]) loc(\"f\":1)",
       "t.sir:2:42: error: invalid_argument: expected ':', found ')'"},
      {"%y = identity(%x:0) : (f32 [2]) colocate \"x\"",
       "t.sir:2:42: error: invalid_argument: expected '[', found a string"},
  };
  for (const ErrorCase &c : cases) {
    std::string text = withX(c.text);
    auto g = parseGraph(text, "t.sir");
    ASSERT_FALSE(g.hasValue()) << text;
    EXPECT_EQ(g.status().toString(), c.error) << text;
  }
}

} // namespace
} // namespace sluice::ir
