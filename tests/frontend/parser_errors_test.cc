// tests/frontend/parser_errors_test.cc: syntax error messages, locations and recovery.
#include <gmock/gmock.h>

#include "tests/frontend/parse_helpers.h"

namespace sluice::frontend::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

/// The first diagnostic as "line:col: message".
std::string firstError(const std::string &src) {
  auto r = parse(src);
  if (r->diags.diagnostics().empty())
    return "<no error>";
  const Diagnostic &d = r->diags.diagnostics()[0];
  return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
}

TEST(ParserErrors, MissingClosers) {
  EXPECT_EQ(firstError("fn f() {\n  x = 1\n"),
            "3:1: expected '}' at end of file to close '{' from line 1");
  EXPECT_EQ(firstError("x = [1, 2"), "1:10: expected ']' at end of file to close '[' from line 1");
  EXPECT_THAT(firstError("x = f(1, 2\nfn g() { }\n"), StartsWith("2:1: expected ')'"));
  EXPECT_THAT(firstError("if x { y "), HasSubstr("expected '}'"));
}

TEST(ParserErrors, UnexpectedTokens) {
  EXPECT_EQ(firstError("x = 1 2"), "1:7: unexpected token '2'; expected newline, ';' or end of file");
  EXPECT_EQ(firstError("y = )"), "1:5: unexpected token ')'");
  EXPECT_EQ(firstError("x = 1\n)\n"), "2:1: unexpected token ')'");
  EXPECT_EQ(firstError("d = f(x y)"), "1:9: unexpected token 'y'");
  EXPECT_EQ(firstError("z = 3 +\n"), "1:8: unexpected newline");
  EXPECT_EQ(firstError("}"), "1:1: unexpected token '}'");
  EXPECT_EQ(firstError("else { }"), "1:1: unexpected token 'else'");
  EXPECT_THAT(firstError("fn (a) { }"), StartsWith("1:4: "));
  EXPECT_THAT(firstError("for in xs { }"), StartsWith("1:5: unexpected token 'in'"));
  EXPECT_THAT(firstError("try { }\n"), StartsWith("2:1: "));
  EXPECT_THAT(firstError("session(x) as { }"), StartsWith("1:15: "));
  EXPECT_THAT(firstError("import foo"), StartsWith("1:8: "));
  EXPECT_THAT(firstError("x = {1: }"), StartsWith("1:9: unexpected token '}'"));
}

TEST(ParserErrors, Lexical) {
  EXPECT_EQ(firstError("x = \"abc\ny = 1"), "1:5: unterminated string literal");
  EXPECT_EQ(firstError("x = \"abc"), "1:5: unterminated string literal");
  EXPECT_EQ(firstError("x = \"abc\\"), "1:5: unterminated string literal");
  EXPECT_EQ(firstError("x = r\"abc"), "1:5: unterminated string literal");
  EXPECT_EQ(firstError("w = \"a\\qb\""), "1:7: invalid escape sequence '\\q'");
  EXPECT_THAT(firstError("w = \"\\x4\""), StartsWith("1:6: invalid escape sequence '\\x'"));
  EXPECT_EQ(firstError("c = $"), "1:5: unexpected character '$'");
  EXPECT_EQ(firstError("c = 1 ` 2"), "1:7: unexpected character '`'");
  EXPECT_EQ(firstError(std::string("c = \x01", 5)), "1:5: unexpected control character '\\x01'");
  EXPECT_EQ(firstError("c = \xc3\xa9"), "1:5: unexpected non-ASCII character");
  EXPECT_EQ(firstError("# \xff\xfe comments may hold any bytes\nx = \"\xe2\x82\xac\""), "<no error>");
}

TEST(ParserErrors, Literals) {
  EXPECT_EQ(firstError("a = 18446744073709551616"), "1:5: integer literal is too large");
  EXPECT_EQ(firstError("a = 0x10000000000000000"), "1:5: integer literal is too large");
  EXPECT_EQ(firstError("b = 1e999"), "1:5: float literal is out of range");
  EXPECT_EQ(firstError("b = 1e-999"), "<no error>"); // underflows to 0, as in Python
}

TEST(ParserErrors, Semantic) {
  EXPECT_EQ(firstError("f() = 1"), "1:1: cannot assign to a function call");
  EXPECT_EQ(firstError("1 = x"), "1:1: cannot assign to this expression");
  EXPECT_EQ(firstError("a, f() = x"), "1:4: cannot assign to a function call");
  EXPECT_EQ(firstError("a, b += 1"), "1:1: cannot use a sequence as the target of an augmented assignment");
  EXPECT_EQ(firstError("fn f(a, a) { }"), "1:9: duplicate parameter 'a'");
  EXPECT_EQ(firstError("fn f(a: 1, b) { }"),
            "1:12: parameter 'b' without a default follows one with a default");
  EXPECT_EQ(firstError("x[]"), "1:3: expected an index or a slice");
}

TEST(ParserErrors, RecoversAndReportsSeveral) {
  auto r = parse("x = (1 + )\n"       // 1
                 "y = \"ok\"\n"       // 2
                 "z = [1 2]\n"        // 3
                 "fn (a) { }\n"       // 4
                 "w = \"\\q\"\n"      // 5
                 "v = 99999999999999999999999\n" // 6
                 "u = 1\n");          // 7
  std::string brief = r->brief();
  EXPECT_THAT(brief, HasSubstr("1:10: unexpected token ')'"));
  EXPECT_THAT(brief, HasSubstr("3:8: unexpected token '2'"));
  EXPECT_THAT(brief, HasSubstr("4:4: "));
  EXPECT_THAT(brief, HasSubstr("5:6: invalid escape sequence '\\q'"));
  EXPECT_THAT(brief, HasSubstr("6:5: integer literal is too large"));
  EXPECT_EQ(r->diags.errorCount(), 5) << brief;
  // The module is partial but keeps the good statements.
  std::string body = dump(r->module->body);
  EXPECT_THAT(body, HasSubstr("(= y \"ok\")"));
  // Diagnostics come out in source order.
  int lastLine = 0;
  for (const Diagnostic &d : r->diags.diagnostics()) {
    EXPECT_GE(d.loc.line, lastLine) << brief;
    lastLine = d.loc.line;
  }
}

TEST(ParserErrors, RecoveryKeepsLaterStatements) {
  auto r = parse("session {\n  run(x,\n}\nprint(1)\n");
  EXPECT_TRUE(r->diags.hasErrors());
  auto r2 = parse("x = f(a, b\nfn g() {\n  return 1\n}\ny = 2\n");
  EXPECT_EQ(r2->diags.errorCount(), 1) << r2->brief();
  EXPECT_THAT(dump(r2->module->body), HasSubstr("(fn g () {(return 1)})"));
  EXPECT_THAT(dump(r2->module->body), HasSubstr("(= y 2)"));
}

TEST(ParserErrors, TooManyErrorsStops) {
  std::string src;
  for (int i = 0; i < 500; ++i)
    src += "x = )\n";
  auto r = parse(src);
  const auto &diags = r->diags.diagnostics();
  ASSERT_FALSE(diags.empty());
  EXPECT_LE(diags.size(), 60u);
  EXPECT_EQ(diags.back().message, "too many errors; stopping");
}

TEST(ParserErrors, PrintedWithCaret) {
  auto r = parse("x = 1\n\ty = (2 +)\n", "dir/f.sluice");
  EXPECT_EQ(r->printed(), "dir/f.sluice:2:10: error: unexpected token ')'\n"
                          "\ty = (2 +)\n"
                          "\t        ^\n");
}

} // namespace
} // namespace sluice::frontend::testing
