// tests/io/decode_csv_test.cc: decode_csv's rules and messages (TF's
// decode_csv_op_test.py): types from defaults, required columns, quoting,
// number parsing, field counts, select_cols.
#include <cmath>

#include "io_test_util.h"

namespace sluice::testing {
namespace {

template <typename T> Tensor vec(std::vector<T> v) { return Tensor::fromVector(v); }
template <typename T> Tensor one(T v) {
  if constexpr (std::is_same_v<T, std::string>)
    return strings({v});
  else
    return Tensor::fromVector(std::vector<T>{v});
}
inline Tensor none(DType t) { return Tensor(t, {0}); }

class DecodeCsvTest : public GraphTest {
protected:
  Expected<ir::Node *> csv(Tensor records, std::vector<Tensor> defaults, ir::AttrMap attrs = {}) {
    std::vector<ir::Output> in{constant(std::move(records))};
    for (auto &d : defaults)
      in.push_back(constant(d));
    return add("decode_csv", in, std::move(attrs));
  }
  std::vector<Tensor> decode(Tensor records, std::vector<Tensor> defaults, ir::AttrMap attrs = {}) {
    auto n = csv(std::move(records), std::move(defaults), std::move(attrs));
    EXPECT_TRUE(n.hasValue()) << n.status().message();
    if (!n.hasValue())
      return {};
    auto r = eval(*n);
    EXPECT_TRUE(r.hasValue()) << r.status().message();
    return r.hasValue() ? *r : std::vector<Tensor>{};
  }
  std::string error(Tensor records, std::vector<Tensor> defaults, ir::AttrMap attrs = {}) {
    auto n = csv(std::move(records), std::move(defaults), std::move(attrs));
    if (!n.hasValue())
      return "static: " + n.status().message();
    return evalError(*n);
  }
};

TEST_F(DecodeCsvTest, TypesFromDefaults) {
  auto out = decode(strings({"1.5,2,x,9,0.25", "-3,4,y,-9000000000,1e3"}),
                    {one<float>(0), one<int32_t>(0), one<std::string>(""), one<int64_t>(0),
                     one<double>(0)});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_TRUE(out[0].equals(vec<float>({1.5f, -3.f})));
  EXPECT_TRUE(out[1].equals(vec<int32_t>({2, 4})));
  EXPECT_TRUE(out[2].equals(strings({"x", "y"})));
  EXPECT_TRUE(out[3].equals(vec<int64_t>({9, -9000000000LL})));
  EXPECT_TRUE(out[4].equals(vec<double>({0.25, 1000.0})));
}

TEST_F(DecodeCsvTest, OutputsHaveTheRecordsShape) {
  Tensor recs = strings({"1", "2", "3", "4", "5", "6"}, {2, 3});
  auto n = csv(recs, {one<int32_t>(0)});
  ASSERT_TRUE(n.hasValue());
  EXPECT_EQ((*n)->outputShape(0), ir::Shape({2, 3}));
  auto out = eval(*n);
  ASSERT_TRUE(out.hasValue());
  EXPECT_EQ((*out)[0].dims(), (ir::Dims{2, 3}));
  auto scalar = decode(str("7,8"), {one<int32_t>(0), Tensor::scalar<int32_t>(0)});
  EXPECT_EQ(scalar[0].rank(), 0);
  EXPECT_EQ(scalar[1].scalarValue<int32_t>(), 8);
}

TEST_F(DecodeCsvTest, DefaultsAndRequiredColumns) {
  auto out = decode(strings({",", "3,"}), {one<int32_t>(-1), one<float>(0.5f)});
  EXPECT_TRUE(out[0].equals(vec<int32_t>({-1, 3})));
  EXPECT_TRUE(out[1].equals(vec<float>({0.5f, 0.5f})));
  EXPECT_EQ(error(strings({"1,2", ",3"}), {none(DType::kI32), one<int32_t>(0)}),
            "Field 0 is required but missing in record 1!");
  // na_value counts as missing.
  auto na = decode(strings({"NA,x", "2,NA"}), {one<int32_t>(7), one<std::string>("d")},
                   {{"na_value", std::string("NA")}});
  EXPECT_TRUE(na[0].equals(vec<int32_t>({7, 2})));
  EXPECT_TRUE(na[1].equals(strings({"x", "d"})));
  EXPECT_EQ(error(strings({"NA"}), {none(DType::kString)}, {{"na_value", std::string("NA")}}),
            "Field 0 is required but missing in record 0!");
}

TEST_F(DecodeCsvTest, BadDefaults) {
  EXPECT_EQ(error(strings({"1"}), {vec<int32_t>({1, 2})}),
            "static: There should only be 1 default per field but field 0 has 2");
  EXPECT_EQ(error(strings({"1"}), {Tensor(DType::kI32, {1, 1})}),
            "static: Each record default should be at most rank 1");
  EXPECT_HAS(error(strings({"1"}), {one<bool>(true)}), "not supported in field 0");
}

TEST_F(DecodeCsvTest, NumbersMustParseCompletely) {
  EXPECT_EQ(error(strings({"1", "2x"}), {one<int32_t>(0)}),
            "Field 0 in record 1 is not a valid int32: 2x");
  EXPECT_EQ(error(strings({"2147483648"}), {one<int32_t>(0)}),
            "Field 0 in record 0 is not a valid int32: 2147483648");
  auto edge = decode(strings({"-2147483648", " 5 ", "007"}), {one<int32_t>(0)});
  EXPECT_TRUE(edge[0].equals(vec<int32_t>({INT32_MIN, 5, 7})));
  EXPECT_EQ(error(strings({"+5"}), {one<int32_t>(0)}),
            "Field 0 in record 0 is not a valid int32: +5");
  EXPECT_EQ(error(strings({"99999999999999999999"}), {one<int64_t>(0)}),
            "Field 0 in record 0 is not a valid int64: 99999999999999999999");
  EXPECT_EQ(error(strings({"1.5.2"}), {one<float>(0)}),
            "Field 0 in record 0 is not a valid float: 1.5.2");
  EXPECT_EQ(error(strings({"abc"}), {one<double>(0)}),
            "Field 0 in record 0 is not a valid double: abc");
  auto reals = decode(strings({" 2.5", "+1e2", "inf", "-Infinity", "0x10", "1e40"}), {one<float>(0)});
  const float *f = reals[0].data<float>();
  EXPECT_EQ(f[0], 2.5f);
  EXPECT_EQ(f[1], 100.f);
  EXPECT_TRUE(std::isinf(f[2]) && f[2] > 0);
  EXPECT_TRUE(std::isinf(f[3]) && f[3] < 0);
  EXPECT_EQ(f[4], 16.f);
  EXPECT_TRUE(std::isinf(f[5]));
  auto nan = decode(strings({"NaN"}), {one<double>(0)});
  EXPECT_TRUE(std::isnan(nan[0].data<double>()[0]));
}

TEST_F(DecodeCsvTest, ANumericNaValueIsMissingNotANumber) {
  // The plain-record path parses numbers directly; na_value must still win.
  auto out = decode(strings({"-1,2", "3,-1"}), {one<int32_t>(7), one<float>(0.5f)},
                    {{"na_value", std::string("-1")}});
  EXPECT_TRUE(out[0].equals(vec<int32_t>({7, 3})));
  EXPECT_TRUE(out[1].equals(vec<float>({2.f, 0.5f})));
}

TEST_F(DecodeCsvTest, PlainAndGeneralRecordsMix) {
  // Records the direct path takes and ones it hands on, in one batch.
  auto out = decode(strings({"1,2.5", " 3,4", "5,\"6\"", ",7", "8,9e0"}),
                    {one<int32_t>(-1), one<double>(0)});
  EXPECT_TRUE(out[0].equals(vec<int32_t>({1, 3, 5, -1, 8})));
  EXPECT_TRUE(out[1].equals(vec<double>({2.5, 4, 6, 7, 9})));
  EXPECT_EQ(error(strings({"1,2", "3,4,5"}), {one<int32_t>(0), one<int32_t>(0)}),
            "Expect 2 fields but have 3 in record 1");
}

TEST_F(DecodeCsvTest, StringsKeepSpaces) {
  auto out = decode(strings({" a , b"}), {one<std::string>(""), one<std::string>("")});
  EXPECT_TRUE(out[0].equals(strings({" a "})));
  EXPECT_TRUE(out[1].equals(strings({" b"})));
}

TEST_F(DecodeCsvTest, Quoting) {
  auto out = decode(strings({"\"a,b\",\"say \"\"hi\"\"\"", "\"\",\"x\ny\"", "\"q\",\"r\""}),
                    {one<std::string>("d"), one<std::string>("")});
  EXPECT_TRUE(out[0].equals(strings({"a,b", "d", "q"})));
  EXPECT_TRUE(out[1].equals(strings({"say \"hi\"", "x\ny", "r"})));
  EXPECT_EQ(error(strings({"\"abc\"d,1"}), {one<std::string>(""), one<int32_t>(0)}),
            "Quote inside a string has to be escaped by another quote");
  EXPECT_EQ(error(strings({"\"abc"}), {one<std::string>("")}),
            "Quoted field has to end with quote followed by delim or end");
  EXPECT_EQ(error(strings({"\""}), {one<std::string>("")}),
            "Quoted field has to end with quote followed by delim or end");
  EXPECT_EQ(error(strings({"ab\"c"}), {one<std::string>("")}),
            "Unquoted fields cannot have quotes/CRLFs inside");
  EXPECT_EQ(error(strings({"a\nb"}), {one<std::string>("")}),
            "Unquoted fields cannot have quotes/CRLFs inside");
  // Without use_quote_delim quotes are plain characters.
  auto plain = decode(strings({"\"a\",b\"c"}), {one<std::string>(""), one<std::string>("")},
                      {{"use_quote_delim", false}});
  EXPECT_TRUE(plain[0].equals(strings({"\"a\""})));
  EXPECT_TRUE(plain[1].equals(strings({"b\"c"})));
}

TEST_F(DecodeCsvTest, LineBreaksBetweenFieldsAreSkipped) {
  auto out = decode(strings({"1,\r\n2", "\n3,\n4"}), {one<int32_t>(0), one<int32_t>(0)});
  // Inside an unquoted field they are an error.
  EXPECT_EQ(error(strings({"3,4\r"}), {one<int32_t>(0), one<int32_t>(0)}),
            "Unquoted fields cannot have quotes/CRLFs inside");
  EXPECT_TRUE(out[0].equals(vec<int32_t>({1, 3})));
  EXPECT_TRUE(out[1].equals(vec<int32_t>({2, 4})));
}

TEST_F(DecodeCsvTest, FieldCounts) {
  EXPECT_EQ(error(strings({"1,2", "1,2,3"}), {one<int32_t>(0), one<int32_t>(0)}),
            "Expect 2 fields but have 3 in record 1");
  EXPECT_EQ(error(strings({""}), {one<int32_t>(0)}), "Expect 1 fields but have 0 in record 0");
  // A trailing delimiter adds an empty last field.
  auto out = decode(strings({"1,"}), {one<int32_t>(0), one<int32_t>(9)});
  EXPECT_TRUE(out[1].equals(vec<int32_t>({9})));
  EXPECT_EQ(error(strings({"1,2,"}), {one<int32_t>(0), one<int32_t>(0)}),
            "Expect 2 fields but have 3 in record 0");
}

TEST_F(DecodeCsvTest, FieldDelim) {
  auto out = decode(strings({"1|2"}), {one<int32_t>(0), one<int32_t>(0)},
                    {{"field_delim", std::string("|")}});
  EXPECT_TRUE(out[1].equals(vec<int32_t>({2})));
  EXPECT_EQ(error(strings({"1"}), {one<int32_t>(0)}, {{"field_delim", std::string("||")}}),
            "static: field_delim should be only 1 char");
}

TEST_F(DecodeCsvTest, SelectCols) {
  auto out = decode(strings({"a,1,b,2,c", "d,3,e,4"}), {one<int32_t>(0), one<int32_t>(0)},
                    {{"select_cols", std::vector<int64_t>{1, 3}}});
  EXPECT_TRUE(out[0].equals(vec<int32_t>({1, 3})));
  EXPECT_TRUE(out[1].equals(vec<int32_t>({2, 4})));
  // Parsing stops after the last selected column: junk after it is fine.
  auto stop = decode(strings({"1,2,\"bad"}), {one<int32_t>(0)},
                     {{"select_cols", std::vector<int64_t>{1}}});
  EXPECT_TRUE(stop[0].equals(vec<int32_t>({2})));
  EXPECT_EQ(error(strings({"1,2"}), {one<int32_t>(0), one<int32_t>(0)},
                  {{"select_cols", std::vector<int64_t>{1, 5}}}),
            "Expect 2 fields but have 1 in record 0");
  EXPECT_EQ(error(strings({"1"}), {one<int32_t>(0)}, {{"select_cols", std::vector<int64_t>{0, 1}}}),
            "static: Length of select_cols and record_defaults do not match.");
  EXPECT_EQ(error(strings({"1"}), {one<int32_t>(0), one<int32_t>(0)},
                  {{"select_cols", std::vector<int64_t>{1, 1}}}),
            "static: select_cols is not strictly increasing.");
  EXPECT_EQ(error(strings({"1"}), {one<int32_t>(0), one<int32_t>(0)},
                  {{"select_cols", std::vector<int64_t>{-1, 1}}}),
            "static: select_cols contains negative values.");
}

TEST_F(DecodeCsvTest, ManyRecordsFast) {
  std::vector<std::string> recs;
  for (int i = 0; i < 100000; ++i)
    recs.push_back(std::to_string(i) + "," + std::to_string(i * 0.5) + "," + std::to_string(i % 3));
  auto out = decode(strings(recs), {one<int64_t>(0), one<float>(0), one<int32_t>(0)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].data<int64_t>()[99999], 99999);
  EXPECT_EQ(out[1].data<float>()[1000], 500.f);
  EXPECT_EQ(out[2].data<int32_t>()[5], 2);
}

} // namespace
} // namespace sluice::testing
