// tests/ir/text_fuzz_test.cc: random mutations of a printed graph never
// crash the parser; accepted mutants obey the round-trip property and
// rejected ones get a located error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "ir/text/dot.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/text/verifier.h"
#include "tests/ir/graph_builder.h"

namespace sluice::ir {
namespace {

using namespace testing;

std::string seedText() {
  Graph g;
  Node *x = placeholder(g, "x", DType::kF32, Shape({2, Shape::kUnknown}));
  x->setRequestedDevice("/job:worker");
  Node *c = constant(
      g, "scope/c",
      Tensor::fromVector<float>({0.1f, -0.0f, 1e30f, 2, 3, 4}, {2, 3}));
  Tensor str(DType::kString, {2});
  str.strings()[0] = "a\"b\n";
  str.strings()[1] = "\xff";
  Node *s = constant(g, "s", str);
  Node *k = constant(g, "k", Tensor::fromVector<int32_t>({1, 2}));
  Node *init = op(g, "init", "no_op", {});
  Node *sum = op(g, "sum", "add", {out(x), out(c)}, {}, {init->id()});
  sum->setAssignedDevice("/job:worker/task:0/device:CPU:0");
  sum->addColocation("x");
  sum->setAttr("_extra", std::vector<Shape>{Shape({1, -1}), Shape()});
  Node *parts = op(g, "parts", "split", {out(sum)},
                   {{"num_split", int64_t{3}}, {"axis", int64_t{1}}});
  op(g, "cat", "concat", {out(parts, 0), out(parts, 2)},
     {{"axis", int64_t{1}}});
  op(g, "t", "transpose", {out(c)}, {{"perm", std::vector<int64_t>{1, 0}}});
  op(g, "j", "string_join", {out(s), out(s)},
     {{"separator", std::string(",")}});
  op(g, "id", "identity", {out(k)});
  return printGraph(g);
}

// Bytes that make interesting mutations: syntax, digits, quotes, escapes.
const char kAlphabet[] = "%^=(),:{}[]<>?@\"\\#-+.e0123456789 \n\txfinanshape"
                         "tensortypesshapes_/\xff\x01";

std::string mutate(std::string text, std::mt19937 &rng) {
  auto pick = [&](size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  int edits = 1 + static_cast<int>(pick(3));
  for (int e = 0; e < edits; ++e) {
    size_t pos = pick(text.size() + 1);
    switch (pick(6)) {
    case 0: // delete a short range
      text.erase(pos, 1 + pick(8));
      break;
    case 1: // insert a byte
      text.insert(pos, 1, kAlphabet[pick(sizeof kAlphabet - 1)]);
      break;
    case 2: // replace a byte
      if (pos < text.size())
        text[pos] = kAlphabet[pick(sizeof kAlphabet - 1)];
      break;
    case 3: { // duplicate a range somewhere else
      size_t len = pick(40);
      std::string piece = text.substr(pos, len);
      text.insert(pick(text.size() + 1), piece);
      break;
    }
    case 4: { // insert an extreme token
      static const char *tokens[] = {"9223372036854775807",
                                     "-1",
                                     "4000000000",
                                     "1e999",
                                     "tensor<",
                                     "shapes[",
                                     "%x:0",
                                     "^%sum",
                                     "\"",
                                     "{",
                                     "nan",
                                     "-0.0",
                                     "\n"};
      text.insert(pos, tokens[pick(std::size(tokens))]);
      break;
    }
    default: // flip a digit
      for (size_t i = pos; i < text.size(); ++i)
        if (text[i] >= '0' && text[i] <= '9') {
          text[i] = static_cast<char>('0' + pick(10));
          break;
        }
    }
  }
  return text;
}

TEST(TextFuzzTest, MutationsNeverCrash) {
  const std::string seed = seedText();
  ASSERT_TRUE(parseGraph(seed, "f.sir").hasValue());
  // SLUICE_FUZZ_SEED / SLUICE_FUZZ_ITERS run longer or different campaigns.
  const char *seedEnv = std::getenv("SLUICE_FUZZ_SEED");
  const char *itersEnv = std::getenv("SLUICE_FUZZ_ITERS");
  std::mt19937 rng(seedEnv ? std::strtoul(seedEnv, nullptr, 10) : 12345);
  int iters = itersEnv ? std::atoi(itersEnv) : 10000;
  int accepted = 0;
  for (int iter = 0; iter < iters; ++iter) {
    std::string text = mutate(seed, rng);
    auto g = parseGraph(text, "f.sir");
    if (!g.hasValue()) {
      const Status &s = g.status();
      ASSERT_TRUE(s.loc().valid()) << s.toString() << "\n" << text;
      ASSERT_EQ(*s.loc().file, "f.sir");
      ASSERT_FALSE(s.message().empty());
      continue;
    }
    ++accepted;
    std::string printed = printGraph(**g);
    auto again = parseGraph(printed, "f.sir");
    ASSERT_TRUE(again.hasValue()) << again.status().toString() << "\n"
                                  << printed << "\nfrom\n"
                                  << text;
    ASSERT_EQ(printGraph(**again), printed) << "from\n" << text;
    verifyGraph(**g).ignore();
    (void)writeDot(**g);
  }
  // Some mutants (in strings, digits, spacing) stay valid.
  EXPECT_GT(accepted, 100);
}

} // namespace
} // namespace sluice::ir
