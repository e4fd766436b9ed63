// tests/ir/attr_text_test.cc: every attribute type prints with formatAttr
// and reads back with parseAttr to the same value and the same text.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/text/parser.h"

namespace sluice::ir {
namespace {

// Parses `text` as `type`, checks that it prints back as `text` exactly.
AttrValue roundTrip(const std::string &text, AttrType type) {
  auto v = parseAttr(text, type);
  EXPECT_TRUE(v.hasValue()) << text << ": " << v.status().toString();
  if (!v.hasValue())
    return AttrValue(int64_t(0));
  EXPECT_EQ(attrTypeOf(*v), type);
  EXPECT_EQ(formatAttr(*v), text);
  return *v;
}

// Prints `v`, parses it back, checks the text is stable.
void valueRoundTrip(const AttrValue &v) {
  std::string text = formatAttr(v);
  auto back = parseAttr(text, attrTypeOf(v));
  ASSERT_TRUE(back.hasValue()) << text << ": " << back.status().toString();
  EXPECT_EQ(formatAttr(*back), text);
}

TEST(AttrTextTest, Ints) {
  EXPECT_EQ(std::get<int64_t>(roundTrip("0", AttrType::kInt)), 0);
  EXPECT_EQ(std::get<int64_t>(roundTrip("-42", AttrType::kInt)), -42);
  valueRoundTrip(AttrValue(std::numeric_limits<int64_t>::min()));
  valueRoundTrip(AttrValue(std::numeric_limits<int64_t>::max()));
}

TEST(AttrTextTest, FloatsAreExact) {
  for (double d : {0.1, -0.0, 0.0, 1.0, 1e300, -2.5e-308, 5e-324, 1.0 / 3,
                   std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    std::string text = formatAttr(AttrValue(d));
    auto back = parseAttr(text, AttrType::kFloat);
    ASSERT_TRUE(back.hasValue()) << text;
    double b = std::get<double>(*back);
    EXPECT_EQ(b, d) << text;
    EXPECT_EQ(std::signbit(b), std::signbit(d)) << text;
  }
  EXPECT_EQ(formatAttr(AttrValue(0.1)), "0.1");
  EXPECT_EQ(formatAttr(AttrValue(-0.0)), "-0.0");
  EXPECT_EQ(formatAttr(AttrValue(1.0)), "1.0");
  roundTrip("inf", AttrType::kFloat);
  roundTrip("-inf", AttrType::kFloat);
  EXPECT_TRUE(std::isnan(std::get<double>(roundTrip("nan", AttrType::kFloat))));
  // An integer spelling is accepted for a float.
  auto v = parseAttr("3", AttrType::kFloat);
  ASSERT_TRUE(v.hasValue());
  EXPECT_EQ(std::get<double>(*v), 3.0);
}

TEST(AttrTextTest, Bools) {
  EXPECT_TRUE(std::get<bool>(roundTrip("true", AttrType::kBool)));
  EXPECT_FALSE(std::get<bool>(roundTrip("false", AttrType::kBool)));
}

TEST(AttrTextTest, StringsWithEscapesAndBytes) {
  std::string s = "a\"b\\c\n\t\r\x01\x7f\xff caf\xc3\xa9";
  std::string text = formatAttr(AttrValue(s));
  EXPECT_EQ(text, "\"a\\\"b\\\\c\\n\\t\\r\\x01\\x7f\\xff caf\\xc3\\xa9\"");
  auto back = parseAttr(text, AttrType::kString);
  ASSERT_TRUE(back.hasValue());
  EXPECT_EQ(std::get<std::string>(*back), s);
  roundTrip("\"\"", AttrType::kString);
  std::string withNul("a\0b", 3);
  valueRoundTrip(AttrValue(withNul));
  EXPECT_EQ(
      std::get<std::string>(*parseAttr(formatAttr(withNul), AttrType::kString)),
      withNul);
}

TEST(AttrTextTest, Types) {
  for (DType t : {DType::kF16, DType::kF32, DType::kF64, DType::kI8,
                  DType::kI16, DType::kI32, DType::kI64, DType::kU8,
                  DType::kBool, DType::kString, DType::kResource})
    EXPECT_EQ(
        std::get<DType>(roundTrip(std::string(dtypeName(t)), AttrType::kType)),
        t);
}

TEST(AttrTextTest, Shapes) {
  EXPECT_FALSE(
      std::get<Shape>(roundTrip("shape?", AttrType::kShape)).hasRank());
  EXPECT_EQ(std::get<Shape>(roundTrip("shape[]", AttrType::kShape)),
            Shape::scalar());
  EXPECT_EQ(std::get<Shape>(roundTrip("shape[2, ?, 0]", AttrType::kShape)),
            Shape({2, -1, 0}));
}

TEST(AttrTextTest, Tensors) {
  roundTrip("tensor<f32 [2, 2] {1.0, -0.0, inf, nan}>", AttrType::kTensor);
  roundTrip("tensor<f32 [] {0.1}>", AttrType::kTensor);
  roundTrip("tensor<f16 [3] {0.0999756, 65504.0, -inf}>", AttrType::kTensor);
  roundTrip("tensor<f64 [1] {0.1}>", AttrType::kTensor);
  roundTrip("tensor<i8 [2] {-128, 127}>", AttrType::kTensor);
  roundTrip("tensor<u8 [2] {0, 255}>", AttrType::kTensor);
  roundTrip("tensor<i64 [1] {-9223372036854775808}>", AttrType::kTensor);
  roundTrip("tensor<bool [2] {true, false}>", AttrType::kTensor);
  Tensor s = std::get<Tensor>(
      roundTrip("tensor<string [2] {\"a\\n\", \"\\xff\"}>", AttrType::kTensor));
  EXPECT_EQ(s.strings()[1], "\xff");
  Tensor empty =
      std::get<Tensor>(roundTrip("tensor<f32 [0, 3] {}>", AttrType::kTensor));
  EXPECT_EQ(empty.numElements(), 0);
  roundTrip("tensor<string [0] {}>", AttrType::kTensor);
  // 0.1f prints as the float it is, not as its double expansion.
  EXPECT_EQ(formatAttr(AttrValue(Tensor::scalar(0.1f))),
            "tensor<f32 [] {0.1}>");
  // Every f16 value survives.
  Tensor halves(DType::kF16, {1 << 16});
  for (int i = 0; i < (1 << 16); ++i)
    halves.data<Half>()[i].bits = static_cast<uint16_t>(i);
  auto back = parseAttr(formatAttr(AttrValue(halves)), AttrType::kTensor);
  ASSERT_TRUE(back.hasValue());
  const Tensor &h = std::get<Tensor>(*back);
  for (int i = 0; i < (1 << 16); ++i) {
    uint16_t bits = static_cast<uint16_t>(i);
    bool isNan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff);
    if (!isNan) {
      ASSERT_EQ(h.data<Half>()[i].bits, bits) << i;
    }
  }
}

TEST(AttrTextTest, Lists) {
  roundTrip("[]", AttrType::kIntList);
  roundTrip("[1, -2, 3]", AttrType::kIntList);
  roundTrip("[]", AttrType::kFloatList);
  roundTrip("[0.1, -0.0, inf, nan]", AttrType::kFloatList);
  roundTrip("[]", AttrType::kStringList);
  roundTrip("[\"a\", \"\\\"\"]", AttrType::kStringList);
  roundTrip("types[]", AttrType::kTypeList);
  roundTrip("types[f32, string]", AttrType::kTypeList);
  roundTrip("shapes[]", AttrType::kShapeList);
  roundTrip("shapes[[2, ?], ?, []]", AttrType::kShapeList);
}

TEST(AttrTextTest, Errors) {
  struct Case {
    const char *text;
    AttrType type;
    const char *error;
  };
  const Case cases[] = {
      {"1.5", AttrType::kInt,
       "<attr>:1:1: error: invalid_argument: expected an integer, found '1.5'"},
      {"99999999999999999999", AttrType::kInt,
       "<attr>:1:1: error: invalid_argument: integer '99999999999999999999' is "
       "out of range"},
      {"yes", AttrType::kBool,
       "<attr>:1:1: error: invalid_argument: expected true or false, found "
       "'yes'"},
      {"\"abc", AttrType::kString,
       "<attr>:1:1: error: invalid_argument: unterminated string"},
      {"\"a\\q\"", AttrType::kString,
       "<attr>:1:3: error: invalid_argument: unknown escape '\\q' in string"},
      {"\"\\x4\"", AttrType::kString,
       "<attr>:1:2: error: invalid_argument: \\x needs two hex digits"},
      {"f33", AttrType::kType,
       "<attr>:1:1: error: invalid_argument: unknown dtype 'f33'"},
      {"[2]", AttrType::kShape,
       "<attr>:1:1: error: invalid_argument: expected a shape such as shape[2, "
       "?] or shape?, found '['"},
      {"shape[2, -3]", AttrType::kShape,
       "<attr>:1:10: error: invalid_argument: dimension must be '?' or at "
       "least 0, found -3"},
      {"tensor<f32 [3] {1.0, 2.0}>", AttrType::kTensor,
       "<attr>:1:16: error: invalid_argument: tensor of shape [3] needs 3 "
       "elements, found 2"},
      {"tensor<f32 [1000000000, 1000000000, 1000000000] {}>", AttrType::kTensor,
       "<attr>:1:12: error: invalid_argument: tensor has too many elements"},
      {"tensor<u8 [1] {256}>", AttrType::kTensor,
       "<attr>:1:16: error: invalid_argument: value 256 is out of range for "
       "u8"},
      {"tensor<f32 [1] {1.0}", AttrType::kTensor,
       "<attr>:1:21: error: invalid_argument: expected '>', found end of file"},
      {"tensor<f32 [1] {x}>", AttrType::kTensor,
       "<attr>:1:17: error: invalid_argument: expected a number, found 'x'"},
      {"[1, 2", AttrType::kIntList,
       "<attr>:1:6: error: invalid_argument: expected ',' or ']', found end of "
       "file"},
      {"[1] 2", AttrType::kIntList,
       "<attr>:1:5: error: invalid_argument: expected end of the value, found "
       "'2'"},
      {"[f32]", AttrType::kTypeList,
       "<attr>:1:1: error: invalid_argument: expected a type list such as "
       "types[f32, i32], found '['"},
      {"1e999", AttrType::kFloat,
       "<attr>:1:1: error: invalid_argument: number '1e999' is out of range"},
      {"$", AttrType::kInt,
       "<attr>:1:1: error: invalid_argument: unexpected character '$'"},
  };
  for (const Case &c : cases) {
    auto v = parseAttr(c.text, c.type);
    ASSERT_FALSE(v.hasValue()) << c.text;
    EXPECT_EQ(v.status().toString(), c.error) << c.text;
  }
}

} // namespace
} // namespace sluice::ir
