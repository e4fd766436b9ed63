// tests/support/secrets_test.cc: token comparison and generation (#19 item 17).
#include "support/secrets.h"

#include <set>

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(SecretsTest, ConstantTimeEqualsIsEquality) {
  EXPECT_TRUE(constantTimeEquals("", ""));
  EXPECT_TRUE(constantTimeEquals("0123abcd", "0123abcd"));
  EXPECT_FALSE(constantTimeEquals("0123abcd", "0123abce")); // last byte
  EXPECT_FALSE(constantTimeEquals("0123abcd", "1123abcd")); // first byte
  EXPECT_FALSE(constantTimeEquals("0123abcd", "0123abc"));  // a prefix
  EXPECT_FALSE(constantTimeEquals("", "x"));
  std::string withNul("ab\0cd", 5);
  EXPECT_FALSE(constantTimeEquals(withNul, std::string("ab\0ce", 5)));
  EXPECT_TRUE(constantTimeEquals(withNul, std::string("ab\0cd", 5)));
}

TEST(SecretsTest, RandomTokensAreHexOfTheAskedLengthAndDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 64; ++i) {
    auto t = randomHexToken(16);
    ASSERT_TRUE(t.hasValue()) << t.status().message();
    EXPECT_EQ(t->size(), 32u);
    EXPECT_EQ(t->find_first_not_of("0123456789abcdef"), std::string::npos) << *t;
    seen.insert(*t);
  }
  EXPECT_EQ(seen.size(), 64u); // 128 random bits never repeat
  auto longer = randomHexToken(300);
  ASSERT_TRUE(longer.hasValue());
  EXPECT_EQ(longer->size(), 600u);
}

} // namespace
} // namespace sluice
