// tests/api/testing_test.cc: HostTensor and the matchers of
// <sluice/testing.h>, with their failure messages.
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sluice/sluice.h"
#include "sluice/testing.h"

namespace {

using sluice::DType;
using sluice::HostTensor;
using sluice::testing::HasDType;
using sluice::testing::HasShape;
using sluice::testing::TensorEq;
using sluice::testing::TensorNear;
using ::testing::HasSubstr;
using ::testing::Not;

/// What a matcher says about `t` when it does not match.
std::string explain(const ::testing::Matcher<const HostTensor &> &m, const HostTensor &t) {
  ::testing::StringMatchResultListener l;
  EXPECT_FALSE(m.MatchAndExplain(t, &l));
  return l.str();
}

TEST(HostTensorTest, BuildsFromVectorsAndShapes) {
  HostTensor t(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.numElements(), 6);
  EXPECT_EQ(t.at<float>(4), 5.0f);
  EXPECT_EQ(t.values<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(t.toString(), "[[1. 2. 3.] [4. 5. 6.]]");
  EXPECT_EQ(t.typeString(), "f32[2,3]");
  HostTensor s = HostTensor::scalar("hi");
  EXPECT_EQ(s.dtype(), DType::kString);
  EXPECT_EQ(s.scalarValue<std::string>(), "hi");
  HostTensor b(std::vector<bool>{true, false});
  EXPECT_EQ(b.dtype(), DType::kBool);
  EXPECT_TRUE(b.at<bool>(0));
  HostTensor z(DType::kInt64, {3});
  EXPECT_EQ(z.values<int64_t>(), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(HostTensor::of<int32_t>({1, 2}), HostTensor::of<int32_t>({1, 2}));
  EXPECT_NE(HostTensor::of<int32_t>({1, 2}), HostTensor::of<int64_t>({1, 2}));
}

TEST(HostTensorDeathTest, TypedAccessOfAnotherDTypeAborts) {
  HostTensor t = HostTensor::of<float>({1});
  EXPECT_DEATH((void)t.at<int32_t>(0), "dtype mismatch");
}

TEST(MatchersTest, TensorEqStrictAndNested) {
  HostTensor t = HostTensor::of<int64_t>({1, 2, 3, 4}, {2, 2});
  EXPECT_THAT(t, TensorEq(HostTensor::of<int64_t>({1, 2, 3, 4}, {2, 2})));
  EXPECT_THAT(t, Not(TensorEq(HostTensor::of<int32_t>({1, 2, 3, 4}, {2, 2}))));
  EXPECT_THAT(t, TensorEq({{1, 2}, {3, 4}}));
  EXPECT_THAT(t, TensorEq(std::vector<std::vector<int>>{{1, 2}, {3, 4}}));
  EXPECT_THAT(HostTensor(std::vector<std::string>{"a", "b"}),
              TensorEq(std::vector<std::string>{"a", "b"}));
}

TEST(MatchersTest, TensorEqNamesTheFirstMismatch) {
  HostTensor t = HostTensor::of<float>({1, 2, 3, 5}, {2, 2});
  std::string why = explain(TensorEq({{1, 2}, {3, 4}}), t);
  EXPECT_THAT(why, HasSubstr("1 of 4 elements differ"));
  EXPECT_THAT(why, HasSubstr("the first at [1, 1]: 5. vs expected 4."));
  EXPECT_THAT(why, HasSubstr("max abs error 1"));
  EXPECT_THAT(explain(TensorEq({1, 2, 3, 5}), t), HasSubstr("whose shape is [2, 2], not [4]"));
  EXPECT_THAT(explain(TensorEq(HostTensor::of<double>({1, 2, 3, 5}, {2, 2})), t),
              HasSubstr("whose dtype is f32, not f64"));
}

TEST(MatchersTest, TensorNearUsesTheTolerance) {
  HostTensor t = HostTensor::of<float>({1.0f, 2.001f});
  EXPECT_THAT(t, TensorNear({1.0, 2.0}, 0.01));
  EXPECT_THAT(t, Not(TensorNear({1.0, 2.0}, 1e-5)));
  EXPECT_THAT(t, TensorNear({1.0, 2.0}, 0, 1e-3)); // relative
  std::string why = explain(TensorNear({1.0, 2.5}, 0.01), t);
  EXPECT_THAT(why, HasSubstr("the first at [1]"));
  EXPECT_THAT(why, HasSubstr("max rel error"));
  HostTensor n = HostTensor::of<double>({NAN});
  EXPECT_THAT(n, TensorNear({NAN}, 0.1));
  EXPECT_THAT(n, Not(TensorNear({0.0}, 0.1)));
}

TEST(MatchersTest, HasShapeAndHasDType) {
  HostTensor t(DType::kInt32, {2, 3});
  EXPECT_THAT(t, HasShape({2, 3}));
  EXPECT_THAT(t, HasShape({-1, 3}));
  EXPECT_THAT(t, Not(HasShape({3})));
  EXPECT_THAT(explain(HasShape({3}), t), HasSubstr("whose shape is [2, 3]"));
  EXPECT_THAT(t, HasDType(DType::kInt32));
  EXPECT_THAT(explain(HasDType(DType::kFloat32), t), HasSubstr("whose dtype is i32"));
  EXPECT_EQ(::testing::DescribeMatcher<const HostTensor &>(HasShape({2, -1})),
            "has shape [2, ?]");
}

} // namespace
