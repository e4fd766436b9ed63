// tests/frontend/parser_robustness_test.cc: hostile input never crashes, overflows the stack or hangs.
#include <chrono>
#include <random>
#include <thread>

#include <gmock/gmock.h>

#include "support/large_stack.h"
#include "tests/frontend/parse_helpers.h"

namespace sluice::frontend::testing {
namespace {

using ::testing::HasSubstr;

std::string repeat(const std::string &s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

/// Parses on the calling thread (the default 8 MB stack of gtest's main).
std::unique_ptr<ParseResult> parseHere(const std::string &src) { return parse(src); }

TEST(ParserRobustness, DeepBracketsRejectedUpFront) {
  for (const char *open : {"(", "[", "{", "f(", "[(", "{a: "}) {
    auto r = parseHere("x = " + repeat(open, 100000));
    ASSERT_TRUE(r->diags.hasErrors()) << open;
    EXPECT_THAT(r->brief(), HasSubstr("nesting is too deep (limit 256)")) << open;
    EXPECT_TRUE(r->module->body.empty());
  }
  auto r = parseHere(repeat("(", 100000) + repeat(")", 100000));
  EXPECT_EQ(r->brief(), "1:257: nesting is too deep (limit 256)\n");
}

TEST(ParserRobustness, NestingAtTheLimitParses) {
  std::string src = "x = " + repeat("(", 256) + "1" + repeat(")", 256);
  EXPECT_EQ(parseOk(src), "{(= x 1)}");
  std::string lists = "x = " + repeat("[", 200) + "1" + repeat("]", 200);
  auto r = parseHere(lists);
  EXPECT_FALSE(r->diags.hasErrors()) << r->brief();
  std::string blocks = repeat("if x {\n", 255) + "y = 1\n" + repeat("}\n", 255);
  auto r2 = parseHere(blocks);
  EXPECT_FALSE(r2->diags.hasErrors()) << r2->brief();
  // The same nesting broken in the middle still reports, not crashes.
  auto r3 = parseHere("x = " + repeat("(1 + ", 250) + ")");
  EXPECT_TRUE(r3->diags.hasErrors());
}

TEST(ParserRobustness, LongChainsAreLimited) {
  const size_t n = 100000;
  std::vector<std::string> chains = {
      "x = 1" + repeat("+1", n),  "x = " + repeat("-", n) + "x",
      "x = " + repeat("not ", n) + "x", "x = a" + repeat(".b", n),
      "x = f" + repeat("()", n),  "x = 2" + repeat("**2", n),
      "x = a" + repeat(" or a", n), "x = a" + repeat("[0]", n),
      "x = a" + repeat(" < a", n), "x = 1" + repeat("*1", n)};
  for (const std::string &src : chains) {
    auto r = parseHere(src);
    EXPECT_THAT(r->brief(), HasSubstr("expression is too deeply nested (limit 2000)"))
        << src.substr(0, 20);
  }
}

TEST(ParserRobustness, ChainsBelowTheLimitParse) {
  auto r = parseHere("x = 1" + repeat(" + 1", 1500));
  EXPECT_FALSE(r->diags.hasErrors()) << r->brief();
  auto r2 = parseHere("x = " + repeat("-", 1500) + "1");
  EXPECT_FALSE(r2->diags.hasErrors()) << r2->brief();
}

TEST(ParserRobustness, WideInputIsFast) {
  auto start = std::chrono::steady_clock::now();
  auto r = parseHere(repeat("x = f(a, b: [1, 2.5, \"s\"]) + 1\n", 20000));
  EXPECT_FALSE(r->diags.hasErrors());
  EXPECT_EQ(r->module->body.size(), 20000u);
  auto r2 = parseHere("x = [" + repeat("1, ", 100000) + "]");
  EXPECT_FALSE(r2->diags.hasErrors());
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 60.0);
}

TEST(ParserRobustness, HugeLiterals) {
  auto r = parseHere("x = " + std::string(1000000, '9'));
  EXPECT_EQ(r->brief(), "1:5: integer literal is too large\n");
  auto r2 = parseHere("x = " + std::string(400, '9') + ".0");
  EXPECT_EQ(r2->brief(), "1:5: float literal is out of range\n");
  auto r3 = parseHere("x = \"" + std::string(1000000, 'a') + "\"");
  EXPECT_FALSE(r3->diags.hasErrors());
  auto r4 = parseHere("x = \"" + std::string(1000000, 'a'));
  EXPECT_EQ(r4->brief(), "1:5: unterminated string literal\n");
  auto r5 = parseHere(std::string(1000000, 'a'));
  EXPECT_FALSE(r5->diags.hasErrors());
}

TEST(ParserRobustness, RandomBytes) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 300; ++i) {
    std::string src(rng() % 3000, '\0');
    for (char &c : src)
      c = static_cast<char>(rng() & 0xff);
    auto r = parseHere(src);
    (void)r;
  }
}

TEST(ParserRobustness, RandomTokenSoup) {
  const std::vector<std::string> vocab = {
      "x", "f", "(", ")", "[", "]", "{", "}", ",", ":", ";", "\n", "=", "+=", "+", "-", "*",
      "**", "/", "//", "@", "%", "<", "==", "not", "in", "and", "or", "fn", "if", "else",
      "for", "while", "return", "break", "with", "as", "session", "try", "catch", "import",
      "test", "spawn", "expect_error", "true", "none", "1", "2.5", "\"s\"", "r\"\\q\"",
      "\"\\q\"", "\"", ".", "0x", "1e", "#", "$", "\t", " "};
  std::mt19937 rng(777);
  for (int i = 0; i < 2000; ++i) {
    std::string src;
    size_t n = rng() % 60;
    for (size_t k = 0; k < n; ++k)
      src += vocab[rng() % vocab.size()] + (rng() % 3 == 0 ? " " : "");
    auto r = parseHere(src);
    (void)r;
  }
}

TEST(ParserRobustness, EveryPrefixOfAValidFile) {
  const std::string src =
      "fn f(a, b: [1, {\"k\": (2,)}]) {\n  return a ** -b[0:2, ::1]\n}\n"
      "x, y = [i * 2 for i in range(3) if i not in xs], \"s\\n\"\n"
      "session(config: c) as s {\n  try { h = spawn(name: \"t\") { run(x) } }\n"
      "  catch out_of_range as e { print(e.message) }\n}\n"
      "test \"t\" { expect_error(value_error, \"m\") { f(1) } }\n"
      "while not done and k <= 3 { k += 1; if k { break } else if j { continue } else { } }\n"
      "with device(\"/cpu:0\") as d, name_scope(\"n\") { import \"a.sluice\" }\n";
  EXPECT_FALSE(parse(src)->diags.hasErrors()) << parse(src)->brief();
  for (size_t len = 0; len < src.size(); ++len) {
    auto r = parseHere(src.substr(0, len));
    (void)r;
  }
}

TEST(ParserRobustness, NulAndControlBytes) {
  auto r = parseHere(std::string("x = 1\0y = 2\n\"a\0b\"", 18));
  EXPECT_TRUE(r->diags.hasErrors());
  auto r2 = parseHere(std::string("\0", 1));
  EXPECT_TRUE(r2->diags.hasErrors());
  auto r3 = parseHere("x = \"\\x00\"");
  EXPECT_FALSE(r3->diags.hasErrors());
}

TEST(ParserRobustness, WorksInsideLargeStack) {
  std::unique_ptr<ParseResult> r;
  runWithLargeStack([&] { r = parse("x = " + repeat("(", 100000)); });
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->diags.hasErrors());
}

int deepRecursion(int n) {
  volatile char pad[256];
  pad[0] = 1;
  if (n == 0)
    return 0;
  return deepRecursion(n - 1) + pad[0];
}

TEST(LargeStack, RunsDeepRecursionAndJoins) {
  int result = -1;
  // ~100 MB of frames: far beyond the default 8 MB stack.
  runWithLargeStack([&] { result = deepRecursion(300000); });
  EXPECT_EQ(result, 300000);
}

TEST(LargeStack, PropagatesExceptions) {
  EXPECT_THROW(runWithLargeStack([] { throw std::runtime_error("boom"); }, 1 << 20),
               std::runtime_error);
}

} // namespace
} // namespace sluice::frontend::testing
