// tests/api/program_test.cc: Program: loading files and strings, errors
// with their locations, and name lookup.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sluice/sluice.h"
#include "sluice/testing.h"

namespace {

using sluice::DType;
using sluice::ErrorCode;
using sluice::Program;
using ::testing::HasSubstr;

TEST(ProgramTest, LoadsAStringAndFindsTensorsByNodeAndTopLevelName) {
  auto p = Program::fromString("x = placeholder(f32, shape: [none, 2], name: \"x\")\n"
                               "y = reduce_sum(x * 2.0, axis: 1)\n");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_TRUE(p->hasNode("x"));
  auto x = p->tensor("x");
  ASSERT_TRUE(x.ok()) << x.error();
  EXPECT_EQ(x->node, "x");
  EXPECT_EQ(x->dtype, DType::kFloat32);
  EXPECT_TRUE(x->rankKnown);
  EXPECT_EQ(x->shape, (std::vector<int64_t>{-1, 2}));
  auto y = p->tensor("y"); // a top-level name, not a node name
  ASSERT_TRUE(y.ok()) << y.error();
  EXPECT_NE(y->node, "y");
  EXPECT_EQ(y->shape, (std::vector<int64_t>{-1}));
  auto x0 = p->tensor("x:0");
  ASSERT_TRUE(x0.ok());
  EXPECT_EQ(x0->index, 0);
}

TEST(ProgramTest, UnknownNamesAreNotFound) {
  auto p = Program::fromString("a = constant(1.0)\n");
  ASSERT_TRUE(p.ok()) << p.error();
  auto t = p->tensor("nope");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code(), ErrorCode::kNotFound);
  EXPECT_THAT(t.error().message(), HasSubstr("'nope'"));
  auto bad = p->tensor("Const:3");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message(), HasSubstr("no output 3"));
}

TEST(ProgramTest, SyntaxErrorsCarryTheirLocation) {
  auto p = Program::fromString("a = constant(1.0)\nb = (a +\n", {}, "broken.sluice");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().file(), "broken.sluice");
  EXPECT_GT(p.error().line(), 1);
  EXPECT_THAT(p.error().toString(), HasSubstr("broken.sluice:"));
  EXPECT_THAT(p.error().toString(), HasSubstr("error:"));
}

TEST(ProgramTest, EvaluationErrorsCarryFileLineCol) {
  auto p = Program::fromString("a = constant([1.0, 2.0])\nb = matmul(a, a)\n", {}, "m.sluice");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().file(), "m.sluice");
  EXPECT_EQ(p.error().line(), 2);
  EXPECT_GT(p.error().column(), 0);
  EXPECT_THAT(p.error().toString(), HasSubstr("m.sluice:2:"));
}

TEST(ProgramTest, MissingFileIsNotFound) {
  auto p = Program::load("/nonexistent/x.sluice");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code(), ErrorCode::kNotFound);
}

TEST(ProgramTest, LoadsAFileWithGlobalsAndSkipsSessionBlocks) {
  auto dir = std::filesystem::temp_directory_path() / "sluice_api_program_test";
  std::filesystem::create_directories(dir);
  auto file = dir / "g.sluice";
  std::ofstream(file) << "s = constant(scale, name: \"s\")\n"
                         "print(\"built\", label)\n"
                         "session { print(\"ran\") }\n";
  std::ostringstream out;
  sluice::LoadOptions opts;
  opts.globals = {{"scale", "2.5"}, {"label", "hello"}};
  opts.out = &out;
  auto p = Program::load(file.string(), opts);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(out.str(), "built hello\n");
  auto s = p->tensor("s");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dtype, DType::kFloat32);

  std::ostringstream out2;
  opts.out = &out2;
  opts.runSessionBlocks = true;
  auto q = Program::load(file.string(), opts);
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(out2.str(), "built hello\nran\n");
  std::filesystem::remove_all(dir);
}

TEST(ProgramTest, GraphTextAndNodeNames) {
  auto p = Program::fromString("a = constant(1.0, name: \"a\")\nb = a + 1.0\n");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_THAT(p->nodeNames(), ::testing::Contains("a"));
  EXPECT_THAT(p->graphText(), HasSubstr("a"));
}

} // namespace
